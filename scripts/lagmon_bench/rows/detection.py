"""What lagmon run reports against what the demo injected: stall timing (detectionAccuracy), the
culprit (culpritHitRate) and 10,000 stalls (scale)."""
import os
import statistics
import tempfile

from ..common import read_json, run, spread
from ..processes import lagmon_report
from ..tables import by_number, fmt, fmt99, injected, ordered

# The culprit hit rate's scenarios, in the table's order, and the function each stalls in.
CULPRITS = {"naive": "decodeImage", "io": "readThumbnail", "lock": "waitForThumbnailLock"}


def injected_stalls(truth):
    """What the demo's truth log says it injected: how many stalls, and their shortest and longest."""
    durations = [entry["durationNs"] / 1e6 for entry in truth]
    return {"stalls": len(durations), "minMs": min(durations, default=0), "maxMs": max(durations, default=0)}


def detection_accuracy(k):
    """Stalls of known length at known times (the demo's truth) vs what lagmon reports."""
    start_errors, duration_errors, notice_delays, truths = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(max(3, k.rounds // 3)):
            report_path, truth_path = os.path.join(tmp, "r.json"), os.path.join(tmp, "t.json")
            run([f"{k.bin}/lagmon", "run", "--quiet", "--json", report_path, "--",
                 f"{k.bin}/lagmon-demo", "--scenario", "naive", "--truth", truth_path])
            report, truth = read_json(report_path), read_json(truth_path)
            truths.append(injected_stalls(truth))
            base = report["target"]["monotonicStartNs"]
            threshold = report["config"]["thresholdNs"]
            for stall, entry in zip(report["stalls"], truth):
                start_errors.append((base + stall["startNs"] - entry["startMonotonicNs"]) / 1e6)
                duration_errors.append((stall["durationNs"] - entry["durationNs"]) / 1e6)
                if "noticedAfterNs" in stall:
                    notice_delays.append((stall["noticedAfterNs"] - threshold) / 1e6)
    return {
        "runs": len(truths),
        "injected": truths[0],
        "startErrorMs": spread(start_errors),
        "durationErrorMs": spread(duration_errors),
        "detectionDelayMs": spread(notice_delays),
    }


def culprit_hit_rate(k):
    """How often a stall's culprit is the function the demo stalls in, per scenario."""
    runs = 3
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for scenario, function in CULPRITS.items():
            hits = total = 0
            completeness = []
            for _ in range(runs):
                path = os.path.join(tmp, "r.json")
                run([f"{k.bin}/lagmon", "run", "--quiet", "--json", path, "--", f"{k.bin}/lagmon-demo", "--scenario",
                     scenario])
                report = read_json(path)
                for stall in report["stalls"]:
                    total += 1
                    hits += function in ((stall.get("culprit") or {}).get("symbol") or "")
                completeness.append(report["sampling"]["completeness"])
            rows[scenario] = {"stalls": total, "hits": hits, "rate": hits / max(total, 1),
                              "completeness": statistics.median(completeness)}
    return {"runsPerScenario": runs, "rows": rows}


def scale(k):
    """A compressed-time run with 10,000 stalls (threshold 1 ms, stalls of 2 ms) against one with
    1,000: report size and lagmon's memory stay bounded, counts and totals exact."""
    threshold_ms, stall_ms = 1, 2
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for count in (1000, 10000):
            report, size = lagmon_report(k, [
                "--threshold", f"{threshold_ms}ms", "--", f"{k.bin}/lagmon-demo", "--scenario", "many",
                "--stalls", str(count), "--stall-ms", str(stall_ms)], tmp)
            summary = report["summary"]
            rows[str(count)] = {"stallCount": summary["stallCount"], "listed": len(report["stalls"]),
                                "omitted": summary["stallsOmitted"], "totalStallMs": summary["totalStallNs"] / 1e6,
                                "reportKB": size / 1024, "peakRssMB": report["overhead"]["peakRssBytes"] / 2**20,
                                "fingerprintCount": sum(f["count"] for f in report["fingerprints"]),
                                "samples": report["sampling"]["samples"]}
    return {"thresholdMs": threshold_ms, "stallMs": stall_ms, "rows": rows}


def detection_row(d):
    return (f"| Detection accuracy | lagmon-demo --scenario naive: {injected(d['injected'])}; reported minus injected (ms) | start "
            f"{fmt(d['startErrorMs'])} ms; duration {fmt(d['durationErrorMs'])} ms; detection delay beyond the "
            f"threshold (`noticedAfterNs` − threshold) {fmt99(d['detectionDelayMs'])} ms | ≤ 2 ms |")


def culprit_row(hits):
    rates = ", ".join(f"{k} {v['hits']}/{v['stalls']}" for k, v in ordered(hits["rows"], list(CULPRITS)))
    complete = ", ".join(f"{k} {v['completeness']:.0%}" for k, v in ordered(hits["rows"], list(CULPRITS)))
    return (f"| Culprit hit rate | lagmon run on the demo, {hits['runsPerScenario']} runs per scenario | {rates}; "
            f"unwind completeness {complete} | — |")


def scale_row(sc):
    per = "; ".join(f"{n} stalls: {r['stallCount']} counted, {r['listed']} listed ({r['omitted']} omitted), "
                    f"total {r['totalStallMs']:.0f} ms, fingerprints cover {r['fingerprintCount']}, report "
                    f"{r['reportKB']:.0f} KB, peak RSS {r['peakRssMB']:.1f} MB" for n, r in by_number(sc["rows"]))
    return (f"| Scale | lagmon run --threshold {sc['thresholdMs']}ms -- lagmon-demo --scenario many --stalls N "
            f"--stall-ms {sc['stallMs']} | {per} | bounded size and memory, exact counts |")
