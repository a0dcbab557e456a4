"""The per-thread CPU reader (ThreadCPUSampler) over many threads against its floor (cpuSamplerScale)."""
import json
import statistics

from ..common import pair_order, run, spread
from ..processes import BusyThreads, Demo
from ..tables import by_number, fmt


def cpu_sampler_scale(k):
    """The /proc per-thread CPU reader over 10, 100 and 1000 threads: its steady pass (after the
    first, which opens every thread's files) beside the kernel's floor, lagmon-floor cpu (C: one
    pread of each thread's kept-open schedstat, nothing else), interleaved in rounds. The sleeping
    threads' readings are carried over when the process's CPU clock proves them unchanged;
    `1000busy` (1000 asleep, one spinning) is the case where it never can."""
    passes, rounds = 40, 3
    rows = {}
    for count in (10, 100, 1000, "1000busy"):
        if count == "1000busy":
            demo = BusyThreads(1000)
        else:
            demo = Demo(k.bin, ["--scenario", "threads", "--threads", str(count), "--seconds", "600"],
                        "sleeping threads")
        lagmon, floor, first, read, carried = [], [], [], [], []
        try:
            for round_index in range(rounds):
                for side in pair_order(round_index, "lagmon", "floor"):
                    if side == "lagmon":
                        out = json.loads(run([f"{k.bin}/lagmon-bench", "cpu", str(demo.pid), str(passes)]).stdout)
                        lagmon.append(out["steadyCpuNsPerPass"])
                        first.append(out["firstPassCpuNs"])
                        read.append(out["threadsRead"] / max(out["passes"], 1))
                        carried.append(out.get("threadsCarried", 0) / max(out["passes"], 1))
                    else:
                        out = json.loads(run([f"{k.bin}/lagmon-floor", "cpu", str(demo.pid), str(passes)]).stdout)
                        floor.append(out["steadyCpuNsPerPass"])
        finally:
            demo.stop()
        ratios = [a / max(b, 1) for a, b in zip(lagmon, floor)]
        rows[str(count)] = {"threadsPerPass": statistics.median(read),
                            "threadsCarriedPerPass": statistics.median(carried),
                            "usPerPass": statistics.median(lagmon) / 1e3,
                            "pctOfCoreAt4Hz": statistics.median(lagmon) * 4 / 1e9 * 100,
                            "firstPassUs": statistics.median(first) / 1e3,
                            "floorUsPerPass": statistics.median(floor) / 1e3,
                            "floorPctOfCoreAt4Hz": statistics.median(floor) * 4 / 1e9 * 100,
                            "ratioToFloor": spread(ratios)}
    return {"passes": passes, "rounds": rounds, "rows": rows}


def cpu_reader_row(cs):
    rows = by_number({n: r for n, r in cs["rows"].items() if n != "1000busy"})
    if "floorUsPerPass" not in rows[0][1]:
        per = "; ".join(f"{n} threads: {r['usPerPass']:.0f} µs per pass, {r['pctOfCoreAt4Hz']:.3f} % of a core at 4 Hz"
                        for n, r in rows)
        return (f"| Per-thread CPU reader | ThreadCPUSampler passes over lagmon-demo --scenario threads (N sleeping "
                f"threads), {cs['passes']} passes | {per} | <= 1 % of a core at 1000 threads x 4 Hz |")
    busy = cs["rows"].get("1000busy")
    rows += [("1000 + 1 spinning", busy)] if busy else []

    def carried(r):
        if "threadsCarriedPerPass" not in r:
            return ""
        return f"; {r['threadsPerPass']:.0f} read and {r['threadsCarriedPerPass']:.0f} carried a pass"

    per = "; ".join(f"{n} threads: {r['usPerPass']:.0f} µs per pass, {r['pctOfCoreAt4Hz']:.3f} % of a core at 4 Hz "
                    f"(floor {r['floorUsPerPass']:.0f} µs, {r['floorPctOfCoreAt4Hz']:.3f} %; ratio "
                    f"{fmt(r['ratioToFloor'], 2)}; first pass {r['firstPassUs']:.0f} µs{carried(r)})" for n, r in rows)
    return (f"| Per-thread CPU reader | ThreadCPUSampler over lagmon-demo --scenario threads (N sleeping threads; "
            f"\"1000 + 1 spinning\": a Python process of 1000 sleeping threads and one always running; sleepers are "
            f"carried over, not read, when the process's CPU clock proves them unchanged): CPU per steady pass (after the first, which opens each "
            f"thread's files), {cs['passes']} passes; beside it the floor, lagmon-floor cpu (C: one pread of each "
            f"thread's kept-open schedstat, every thread); {cs['rounds']} interleaved rounds, medians | {per} | "
            f"<= 1 % of a core at 1000 threads x 4 Hz |")
