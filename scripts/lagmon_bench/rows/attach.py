"""lagmon attach (the /proc probe): stall timing against the demo's truth (attachAccuracy) and its
own CPU per reading interval (attachCost)."""
import os
import subprocess
import tempfile

from ..common import read_json, run, spread
from ..processes import Demo
from ..tables import by_number, fmt, injected
from .detection import injected_stalls


def attach_accuracy(k):
    """lagmon attach (the /proc probe, one reading per ms) on the naive demo, started first and
    begun once lagmon is attached; stalls reported minus injected (the demo's truth)."""
    start_errors, end_errors, duration_errors, bounds, truths = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(max(3, k.rounds // 3)):
            report_path, truth_path = os.path.join(tmp, "r.json"), os.path.join(tmp, "t.json")
            demo = Demo(k.bin, ["--scenario", "naive", "--wait-for-input", "--truth", truth_path], "waiting for a line")
            lagmon = subprocess.Popen([f"{k.bin}/lagmon", "attach", str(demo.pid), "--json", report_path],
                                      stderr=subprocess.PIPE, text=True)
            while "attached to pid" not in lagmon.stderr.readline():
                pass
            demo.go()
            lagmon.communicate()
            demo.process.wait()
            report, truth = read_json(report_path), read_json(truth_path)
            truths.append(injected_stalls(truth))
            base = report["target"]["monotonicStartNs"]
            bounds.append(report["loops"][0]["timingErrorNs"] / 1e6)
            for stall, entry in zip(report["stalls"], truth):
                start = base + stall["startNs"]
                start_errors.append((start - entry["startMonotonicNs"]) / 1e6)
                end_errors.append((start + stall["durationNs"] - entry["startMonotonicNs"] - entry["durationNs"]) / 1e6)
                duration_errors.append((stall["durationNs"] - entry["durationNs"]) / 1e6)
    return {
        "runs": len(truths), "injected": truths[0], "probeIntervalMs": report["config"]["probeIntervalNs"] / 1e6,
        "startErrorMs": spread(start_errors), "endErrorMs": spread(end_errors),
        "durationErrorMs": spread(duration_errors), "timingErrorBoundMs": spread(bounds),
        "maxAbsStartErrorMs": max(map(abs, start_errors)), "maxAbsEndErrorMs": max(map(abs, end_errors)),
    }


def attach_cost(k):
    """lagmon attach's own CPU while it watches an idle loop for 10 s, per reading interval (its
    report's `overhead`: the whole process, and the /proc probe's thread per reading)."""
    seconds = 10
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for interval in ("1ms", "2ms", "5ms"):
            demo = Demo(k.bin, ["--scenario", "idle", "--seconds", "600"], "idle for")
            try:
                path = os.path.join(tmp, "r.json")
                run([f"{k.bin}/lagmon", "attach", str(demo.pid), "--quiet", "--duration", f"{seconds}s",
                     "--probe-interval", interval, "--json", path])
                o = read_json(path)["overhead"]
            finally:
                demo.stop()
            rows[interval] = {"cpuPct": o["cpuPct"], "probeReadings": o["probeReadings"],
                              "probeUsPerReading": o["probeNsPerReading"] / 1e3,
                              "probePctOfCore": o["probeReadings"] * o["probeNsPerReading"] / (seconds * 1e9) * 100}
    return {"seconds": seconds, "rows": rows}


def attach_rows(aa, ac):
    per = "; ".join(f"every {k}: {r['cpuPct']:.2f} % of a core in all, the probe {r['probePctOfCore']:.2f} % "
                    f"({r['probeUsPerReading']:.0f} µs per reading, wake-up included)" for k, r in by_number(ac["rows"]))
    return [
        (f"| Attach detection accuracy | lagmon attach --probe-interval {aa['probeIntervalMs']:g}ms to "
        f"lagmon-demo --scenario naive ({injected(aa['injected'])}); reported minus injected (ms) | start {fmt(aa['startErrorMs'])} ms, end "
        f"{fmt(aa['endErrorMs'])} ms (worst {aa['maxAbsStartErrorMs']:.2f} / {aa['maxAbsEndErrorMs']:.2f} ms); "
        f"duration {fmt(aa['durationErrorMs'])} ms; reported bound timingErrorNs {fmt(aa['timingErrorBoundMs'])} ms | "
        "|error| <= timingErrorNs + 2 ms (docs/attach.md) |"),
        (f"| Attach cost | lagmon attach --duration {ac['seconds']}s to lagmon-demo --scenario idle (a 50 ms timer); "
        f"lagmon's own process | {per} | — |"),
    ]
