"""lagmon's own CPU and memory while it watches (ownCost)."""
import tempfile

from ..processes import lagmon_report
from ..tables import ordered

OWN_COST_ROWS = {
    "idle": "idle target, {idleSeconds} s",
    "stalling": "stalling target (naive demo, {stalls} stalls sampled)",
}


def own_cost(k):
    """lagmon's own CPU and peak RSS (its report's `overhead`, RUSAGE_SELF) while it watches an
    idle target for 10 s and the stalling naive demo."""
    idle_seconds = 10
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for key, args in (
            ("idle", ["--", f"{k.bin}/lagmon-demo", "--scenario", "idle", "--seconds", str(idle_seconds)]),
            ("stalling", ["--", f"{k.bin}/lagmon-demo", "--scenario", "naive"]),
        ):
            report, _ = lagmon_report(k, args, tmp)
            o = report["overhead"]
            rows[key] = {"cpuPct": o["cpuPct"], "cpuMs": o["cpuNs"] / 1e6, "peakRssMB": o["peakRssBytes"] / 2**20,
                         "wallS": report["target"]["wallNs"] / 1e9, "samples": report["sampling"]["samples"],
                         "stalls": report["summary"]["stallCount"]}
    return {"idleSeconds": idle_seconds, "rows": rows}


def own_cost_rows(own):
    lines = []
    for key, row in ordered(own["rows"], list(OWN_COST_ROWS)):
        name = OWN_COST_ROWS[key].format(idleSeconds=own["idleSeconds"], stalls=row["stalls"])
        lines.append(
            f"| lagmon's own cost, {name} | lagmon run (release) with default options; lagmon's own process only | "
            f"{row['cpuPct']:.2f} % of a core ({row['cpuMs']:.0f} ms CPU over {row['wallS']:.1f} s), peak RSS "
            f"{row['peakRssMB']:.1f} MB | <= 0.5 % of a core idle, <= 25 MB RSS |")
    return lines
