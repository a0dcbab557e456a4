"""Python targets: an asyncio loop alone and under lagmon run (asyncioOverhead), and the pause of
reading a CPython thread's frames (pythonFrames)."""
import os
import subprocess

from ..common import ROOT, percentile, run, side_by_side, spread
from ..processes import realtime
from ..tables import count, fmt, realtime_note
from .sampler_pause import floor_rounds

# The pythonFrames target: 9 Python calls deep, then spinning.
SPINNER = ("def level(n):\n    if n == 0:\n        print('busy', flush=True)\n        while True:\n"
           "            pass\n    level(n - 1)\nlevel(8)\n")


def asyncio_overhead(k):
    """Python asyncio: a loop that only yields (one selector poll per iteration), alone and under lagmon."""
    fixture = os.path.join(ROOT, "Tests/Fixtures/lagmon-asyncio-fixture/lagmon_asyncio_fixture.py")
    iterations = 200000
    ratios, added, bare_rates = [], [], []

    def rate(under):
        command = ["python3", fixture, "bench", str(iterations)]
        if under:
            command = [f"{k.bin}/lagmon", "run", "--quiet", "--no-cpu", "--"] + command
        line = next(line for line in run(command).stdout.splitlines() if line.startswith("rate="))
        return float(line.split("=")[1])

    for rates in side_by_side(k.rounds, rate):
        bare_rates.append(rates[False])
        ratios.append(rates[False] / rates[True])
        added.append((1 / rates[True] - 1 / rates[False]) * 1e9)
    return {"rounds": k.rounds, "iterations": iterations, "bareIterationsPerSecond": spread(bare_rates),
            "slowdown": spread(ratios), "addedNsPerIteration": spread(added)}


def python_frames(k):
    """Python frame reading: the pause of lagmon's sampler on a CPython process (the system
    python3, spinning 9 calls deep), the part of it spent reading the Python frames while the
    thread is stopped (the pause they add), beside the C floor's pause on the same process;
    interleaved rounds, at the priority of the pauseFloor row."""
    per_round, rounds, interval_ms = max(k.samples // 4, 10), 6, 10
    prefix, load = realtime(), os.getloadavg()[0]
    target = subprocess.Popen(prefix + ["/usr/bin/python3", "-c", SPINNER], stdout=subprocess.PIPE, text=True)
    reads, read_shares = [], []

    def on_lagmon(out, p50):
        round_reads = [r / 1000 for r in out["interpreterReadNs"]]
        reads.extend(round_reads)
        read_shares.append(percentile(round_reads, 50) / max(p50, 1e-3))

    try:
        if "busy" not in target.stdout.readline():
            raise RuntimeError("python3 exited before spinning")
        pauses, ratios = floor_rounds(k, target.pid, prefix, rounds, per_round, interval_ms, on_lagmon)
    finally:
        target.kill()
        target.wait()
    lagmon, floors = pauses["lagmon"], pauses["floor"]
    return {"python": run(["/usr/bin/python3", "--version"]).stdout.split()[-1], "rounds": rounds,
            "samplesPerRound": per_round, "sampleIntervalMs": interval_ms, "realtime": bool(prefix),
            "loadAverage": [load, os.getloadavg()[0]],
            "lagmonPauseUs": {"p50": percentile(lagmon, 50), "p99": percentile(lagmon, 99), "n": len(lagmon)},
            "pythonReadUs": {"p50": percentile(reads, 50), "p99": percentile(reads, 99), "n": len(reads)},
            "floorPauseUs": {"p50": percentile(floors, 50), "p99": percentile(floors, 99), "n": len(floors)},
            "readShareOfPause": spread(read_shares), "ratioToFloor": spread(ratios)}


def asyncio_row(a):
    return (f"| Python asyncio overhead | lagmon_asyncio_fixture.py bench: {count(a['iterations'])} iterations of "
            f"`await asyncio.sleep(0)`, best of 3; alone vs under lagmon run, {a['rounds']} interleaved pairs | "
            f"slowdown {fmt(a['slowdown'])}×; +{fmt(a['addedNsPerIteration'], 0)} ns per iteration; bare "
            f"{a['bareIterationsPerSecond']['median']:.0f} iterations/s | — |")


def python_frames_row(pf):
    lp, rp, fp = pf["lagmonPauseUs"], pf["pythonReadUs"], pf["floorPauseUs"]
    return (f"| Python frame reading | CPython {pf['python']} (/usr/bin/python3) spinning 9 Python calls deep; "
            f"lagmon-bench sample (lagmon's sampler, which reads the Python frames from the interpreter's memory "
            f"while the thread is stopped) and lagmon-floor pause on the same process, {pf['samplesPerRound']} "
            f"samples every {pf['sampleIntervalMs']} ms each, {pf['rounds']} interleaved rounds"
            f"{realtime_note(pf)}; py-spy on the same kind of program: section \"py-spy side by side\" | "
            f"reading the Python frames p50 {rp['p50']:.0f} µs, p99 {rp['p99']:.0f} µs a sample (n={rp['n']}), "
            f"{fmt(pf['readShareOfPause'], 2)} of the pause per round; lagmon's pause p50 {lp['p50']:.0f} µs, p99 "
            f"{lp['p99']:.0f} µs; floor p50 {fp['p50']:.0f} µs; lagmon's p50 over the floor's "
            f"{fmt(pf['ratioToFloor'], 2)}× | — |")
