"""Targets a row starts and stops: the demo in a scenario, a process of many threads, a real-time
prefix, a peer tool's wall time."""
import os
import subprocess
import time

from .common import read_json, run


class Demo:
    """lagmon-demo in a scenario, running until stopped; ready once it printed `ready`."""

    def __init__(self, bin_dir, args, ready, prefix=()):
        self.process = subprocess.Popen(list(prefix) + [f"{bin_dir}/lagmon-demo"] + args, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        seen = ""
        while ready not in seen:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"lagmon-demo {args} exited before {ready!r}")
            seen += line
        self.pid = self.process.pid

    def go(self):
        """Ends --wait-for-input: the scenario begins."""
        self.process.stdin.write("go\n")
        self.process.stdin.flush()

    def stop(self):
        self.process.kill()
        self.process.wait()


class BusyThreads:
    """A Python process of `count` threads asleep and one more spinning on a CPU (its own, not
    lagmon-demo: the demo has no such scenario): the case where the process's CPU clock never
    proves the sleepers unchanged, so every pass reads every thread."""

    SCRIPT = ("import sys, threading\n"
              "for _ in range(int(sys.argv[1])): threading.Thread(target=threading.Event().wait, daemon=True).start()\n"
              "def spin():\n    while True: pass\n"
              "threading.Thread(target=spin, daemon=True).start()\n"
              "print('sleeping threads', flush=True)\nsys.stdin.readline()\n")

    def __init__(self, count):
        self.process = subprocess.Popen(["python3", "-c", self.SCRIPT, str(count)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        self.process.stdout.readline()
        self.pid = self.process.pid

    def stop(self):
        self.process.kill()
        self.process.wait()


def realtime(policy="-f"):
    """`chrt -f 20` (or `-r`, round robin) where it is allowed (root), else nothing: a pause or
    a request is mostly threads waiting for a CPU, so on a shared, busy machine it measures the
    load, not the code; both sides of a comparison and their target run under the same prefix."""
    try:
        run(["chrt", policy, "20", "true"])
        return ["chrt", policy, "20"]
    except (OSError, subprocess.CalledProcessError):
        return []


def timed(command, runs):
    """`command`'s wall time in µs, `runs` times (its exit status does not matter)."""
    walls = []
    for _ in range(runs):
        start = time.monotonic()
        subprocess.run(command, capture_output=True, timeout=120, check=False)
        walls.append((time.monotonic() - start) * 1e6)
    return walls


def lagmon_report(k, args, tmp):
    """`lagmon run --quiet --json` with `args`: its report and the report's size in bytes."""
    path = os.path.join(tmp, "report.json")
    run([f"{k.bin}/lagmon", "run", "--quiet", "--json", path] + args)
    return read_json(path), os.path.getsize(path)
