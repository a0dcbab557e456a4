"""How long a stack sample stops the sampled thread: against eu-stack and gdb (pausePerSample) and
against the kernel's floor, lagmon-floor pause (pauseFloor)."""
import json
import os
import shutil
import statistics
import sys

from ..common import pair_order, percentile, run, spread
from ..processes import Demo, realtime, timed
from ..tables import fmt, ordered, realtime_note

# The peers the pause per sample is compared with, and the Debian packages that have them.
PEERS = (("eu-stack", "elfutils"), ("gdb", "gdb"))
PAUSE_ROWS = {
    "shallow": "shallow Swift stack (main -> decodeImage, no run loop)",
    "deep": "deep Foundation stack (run loop -> timer -> decodeImage)",
}


def check_peers(k):
    """eu-stack and gdb must be there before anything is measured (scripts/install-deps)."""
    missing = [f"{tool} (Debian package {package})" for tool, package in PEERS if not shutil.which(tool)]
    if missing:
        sys.exit(f"bench: {', '.join(missing)} not found; run scripts/install-deps (or make deps) first")


def pause_per_sample(k):
    """How long the sampled thread is stopped per stack sample, lagmon vs eu-stack and gdb on the
    same stalled process (they stop every thread for as long as they run: their wall time bounds
    their pause)."""
    interval_ms = 10
    rows = {}
    for key, args, ready in (
        ("shallow", ["--scenario", "noloop", "--seconds", "600"], "busy"),
        ("deep", ["--scenario", "hang"], "stalled 200ms"),
    ):
        demo = Demo(k.bin, args, ready)
        try:
            out = json.loads(run([f"{k.bin}/lagmon-bench", "sample", str(demo.pid), str(k.samples),
                                  str(interval_ms)]).stdout)
            eu = timed(["eu-stack", "-p", str(demo.pid)], k.peer_runs)
            gdb = timed(["gdb", "-batch", "-nx", "-ex", "bt", "-p", str(demo.pid)], max(2, k.peer_runs // 3))
        finally:
            demo.stop()
        pauses = [p / 1000 for p in out["pauseNs"]]
        ends = [(p + u) / 1000 for p, u in zip(out["pauseNs"], out["unwindNs"])]
        rows[key] = {
            "samples": out["samples"],
            "frames": statistics.median(out["frames"]) if out["frames"] else 0,
            "completeness": out["complete"] / max(out["samples"], 1),
            "pauseUs": {"p50": percentile(pauses, 50), "p99": percentile(pauses, 99), "max": max(pauses)},
            "endToEndUs": {"p50": percentile(ends, 50), "p99": percentile(ends, 99), "max": max(ends)},
            "symbolizeMs": out["symbolizeNs"] / 1e6,
            "euStackUs": spread(eu),
            "gdbUs": spread(gdb),
        }
    return {"sampleIntervalMs": interval_ms, "rows": rows}


def floor_rounds(k, pid, prefix, rounds, per_round, interval_ms, on_lagmon=None):
    """lagmon-bench sample and lagmon-floor pause on process `pid`, interleaved `rounds` times:
    each side's pauses (µs) and, per round, lagmon's p50 over the floor's. `on_lagmon(out, p50)`
    sees each of lagmon's rounds (what else a row takes from it)."""
    commands = {"lagmon": prefix + [f"{k.bin}/lagmon-bench", "sample"], "floor": prefix + [f"{k.bin}/lagmon-floor", "pause"]}
    pauses, ratios = {"lagmon": [], "floor": []}, []
    for round_index in range(rounds):
        p50 = {}
        for side in pair_order(round_index, "lagmon", "floor"):
            out = json.loads(run(commands[side] + [str(pid), str(per_round), str(interval_ms)]).stdout)
            side_pauses = [p / 1000 for p in out["pauseNs"]]
            pauses[side].extend(side_pauses)
            p50[side] = percentile(side_pauses, 50)
            if side == "lagmon" and on_lagmon:
                on_lagmon(out, p50[side])
        ratios.append(p50["lagmon"] / max(p50["floor"], 1e-3))
    return pauses, ratios


def pause_floor(k):
    """Pause per sample against the kernel's floor: lagmon-bench sample (lagmon's StackSampler)
    and lagmon-floor pause (C: interrupt, wait, GETREGS, one read of the stack's innermost bytes,
    continue) on the same stalled process, interleaved in rounds; lagmon's p50 over the floor's.
    The target and both samplers run at a real-time priority where allowed (`realtime`)."""
    per_round, rounds, interval_ms = max(k.samples // 4, 10), 6, 10
    prefix = realtime()
    load = os.getloadavg()[0]
    demo = Demo(k.bin, ["--scenario", "noloop", "--seconds", "600"], "busy", prefix)
    try:
        pauses, ratios = floor_rounds(k, demo.pid, prefix, rounds, per_round, interval_ms)
    finally:
        demo.stop()
    lagmon, floor = pauses["lagmon"], pauses["floor"]
    return {"rounds": rounds, "samplesPerRound": per_round, "sampleIntervalMs": interval_ms,
            "realtime": bool(prefix), "loadAverage": [load, os.getloadavg()[0]],
            "lagmonPauseUs": {"p50": percentile(lagmon, 50), "p99": percentile(lagmon, 99), "n": len(lagmon)},
            "floorPauseUs": {"p50": percentile(floor, 50), "p99": percentile(floor, 99), "n": len(floor)},
            "ratio": spread(ratios)}


def pause_rows(pause):
    lines = []
    for key, row in ordered(pause["rows"], list(PAUSE_ROWS)):
        p, e = row["pauseUs"], row["endToEndUs"]
        eu, gdb = row["euStackUs"]["median"], row["gdbUs"]["median"]
        lines.append(
            f"| Pause per sample, {PAUSE_ROWS[key]} | {row['samples']} samples every {pause['sampleIntervalMs']} ms, "
            f"{row['frames']:.0f} frames, {row['completeness']:.0%} complete; eu-stack -p and gdb -batch -ex bt -p on "
            f"the same process | lagmon pause p50 {p['p50']:.0f} µs, p99 {p['p99']:.0f} µs, max {p['max']:.0f} µs; "
            f"end to end p50 {e['p50']:.0f} µs, max {e['max']:.0f} µs · eu-stack {eu / 1000:.1f} ms "
            f"({eu / p['p50']:.0f}× lagmon's pause), gdb {gdb / 1000:.0f} ms ({gdb / p['p50']:.0f}×), both stopping "
            "every thread | pause ≤ 50 µs, end to end ≤ 300 µs |")
    return lines


def pause_floor_row(pf):
    lp, fp = pf["lagmonPauseUs"], pf["floorPauseUs"]
    return (f"| Pause per sample against the kernel's floor | lagmon-demo --scenario noloop; lagmon-bench sample "
            f"(lagmon's sampler) and lagmon-floor pause (C: PTRACE_INTERRUPT, waitpid, GETREGS, one "
            f"process_vm_readv of the stack's innermost bytes, PTRACE_CONT), {pf['samplesPerRound']} samples every "
            f"{pf['sampleIntervalMs']} ms each, {pf['rounds']} interleaved rounds{realtime_note(pf)} | "
            f"lagmon p50 {lp['p50']:.0f} µs, "
            f"p99 {lp['p99']:.0f} µs; floor p50 {fp['p50']:.0f} µs, p99 {fp['p99']:.0f} µs; lagmon's p50 over the "
            f"floor's, per round: {fmt(pf['ratio'], 2)}× | pause ≤ 50 µs |")
