"""The run loop observer: lagmon-hotloop alone and under lagmon run (observerOverhead), the
record function alone (callbackCost) and the instructions per pass (observerInstructions)."""
import os
import tempfile

from .. import callgrind, micro
from ..common import (
    ROOT,
    build_dir,
    pair_order,
    read_json,
    run,
    side_by_side,
    spread,
    today,
)
from ..tables import fmt, micro_mallocs, micro_result, micro_runs, ordered

# lagmon-hotloop's loop shapes, in the table's order, and what each is
# (Benchmarks/lagmon-hotloop/main.swift says more).
HOTLOOP_SHAPES = {
    "run": "one long CFRunLoopRun around a version-0 source re-signalling itself (never sleeps)",
    "pumped": "CFRunLoopRunInMode(default, 0, true) called in a loop around the same source (entry and exit every pass)",
    "timer": "one long CFRunLoopRun woken by a timer re-armed to fire at once (sleeps and wakes every pass)",
    "sleep": "the same timer re-armed 50 µs ahead (really sleeps every pass)",
}


def hotloop(k, shape, under_lagmon, report_path=None):
    """One lagmon-hotloop run: its passes per second and its main thread's CPU time per pass."""
    command = [f"{k.bin}/lagmon-hotloop", k.seconds, shape]
    if under_lagmon:
        command = [f"{k.bin}/lagmon", "run", "--quiet", "--json", report_path, "--"] + command
    out = run(command).stdout
    fields = dict(item.split("=") for item in out.split())
    return {"rate": float(fields["rate"]), "cpuNsPerPass": float(fields["cpuNsPerPass"])}


def observer_overhead(k):
    """A run loop spinning as fast as its shape lets it, with and without lagmon, interleaved;
    per shape. The slowdown is the main thread's CPU time per pass under lagmon over alone (CPU
    time: the machine's preemptions and the sleeps of the sleeping shape do not count); the
    wall-clock rate's ratio is kept beside it."""
    shapes = {shape: hotloop_shape(k, shape) for shape in HOTLOOP_SHAPES}
    # The long CFRunLoopRun's figures stay at the top level, where the first version of the row had them.
    return dict(shapes["run"], shapes=shapes)


def hotloop_shape(k, shape):
    ratios, rate_ratios, callback_ns, bare_rates, observed_rates, bare_cpu, transitions = [], [], [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        report_path = os.path.join(tmp, "hot.json")
        for runs in side_by_side(k.rounds, lambda under: hotloop(k, shape, under, report_path)):
            loop = read_json(report_path)["loops"][0]
            transitions_per_pass = loop["transitions"] / max(loop["iterations"], 1)
            bare, observed = runs[False], runs[True]
            bare_rates.append(bare["rate"])
            observed_rates.append(observed["rate"])
            bare_cpu.append(bare["cpuNsPerPass"])
            ratios.append(observed["cpuNsPerPass"] / bare["cpuNsPerPass"])
            rate_ratios.append(bare["rate"] / observed["rate"])
            transitions.append(transitions_per_pass)
            callback_ns.append((observed["cpuNsPerPass"] - bare["cpuNsPerPass"]) / max(transitions_per_pass, 1e-9))
    return {
        "rounds": k.rounds,
        "secondsPerRun": float(k.seconds),
        "barePassesPerSecond": spread(bare_rates),
        "observedPassesPerSecond": spread(observed_rates),
        "bareCpuNsPerPass": spread(bare_cpu),
        "slowdown": spread(ratios),
        "wallSlowdown": spread(rate_ratios),
        "transitionsPerPass": spread(transitions),
        "nsPerCallback": spread(callback_ns),
    }


def callback_cost(k):
    """The observer's record function alone, in-process (no CoreFoundation dispatch), beside the
    clock read it makes."""
    record, clock = micro.benchmark(k, "Observer record"), micro.benchmark(k, "Monotonic clock read")
    return {"nsPerCall": record["p50"], "record": record, "clock": clock}


def observer_instructions(k):
    """The run loop's observation in instructions, per shape (callgrind counts them whatever the
    machine's load; the timed rows' pairs spread wider than the effect): lagmon-hotloop's measured
    part (`measure`, the main thread's passes) alone and under lagmon run, interleaved pairs. Per
    shape: instructions per pass on each side and their ratio, and those of lagmon's preload
    library alone. User space only: each pass also makes one or two system calls, which callgrind
    does not count, so the ratio overstates the slowdown in time."""
    runs, seconds = 3, "0.5"
    program = os.path.join(build_dir("bench-observer"), "lagmon-hotloop")
    run(["swiftc", "-O", "-swift-version", "6", os.path.join(ROOT, "Benchmarks/lagmon-hotloop/main.swift"), "-o",
         program])
    result = {"runs": runs, "date": today(), "shapes": {}}
    with tempfile.TemporaryDirectory() as tmp:
        lagmon = callgrind.lagmon_without_debug_info(k, tmp)
        for shape in HOTLOOP_SHAPES:
            per_pass, probe, ratios = {False: [], True: []}, [], []
            for index in range(runs):
                for under in pair_order(index, False, True):
                    out_file = os.path.join(tmp, f"callgrind.{shape}.{index}.{int(under)}")
                    command = ["valgrind", "--tool=callgrind", "--toggle-collect=*measure*",
                               f"--callgrind-out-file={out_file}", program, seconds, shape]
                    if under:
                        command = callgrind.under_lagmon(lagmon, command)
                    fields = dict(item.split("=") for item in run(command).stdout.split())
                    passes = int(fields["passes"])
                    flat = run(["callgrind_annotate", "--inclusive=no", "--threshold=100", out_file]).stdout
                    total = callgrind.counts(out_file)[0]
                    per_pass[under].append(total / passes)
                    if under:
                        preload = sum(int(line.split()[0].replace(",", "")) for line in flat.splitlines()
                                      if "[" in line and "libLagmonPreload.so]" in line)
                        probe.append(preload / passes)
                ratios.append(per_pass[True][-1] / per_pass[False][-1])
            result["shapes"][shape] = {"alonePerPass": spread(per_pass[False]),
                                       "underLagmonPerPass": spread(per_pass[True]),
                                       "probePerPass": spread(probe), "ratio": spread(ratios)}
    return result


def overhead_rows(o, cb):
    """Table rows of observerOverhead (a row per shape) and callbackCost."""
    shapes = o.get("shapes", {"run": o})
    lines = []
    for key, row in ordered(shapes, list(HOTLOOP_SHAPES)):
        cpu = ""
        if "bareCpuNsPerPass" in row:
            cpu = (f"main thread CPU per pass alone vs under lagmon run ({row['transitionsPerPass']['median']:.0f} "
                   f"transitions a pass); wall-clock slowdown {fmt(row['wallSlowdown'])}×; ")
            what = (f"lagmon-hotloop {key}: {HOTLOOP_SHAPES[key]}; {row['rounds']} interleaved pairs of "
                    f"{row['secondsPerRun']:.0f} s")
            result = (f"slowdown {fmt(row['slowdown'])}× ({cpu}{fmt(row['nsPerCallback'], 1)} ns per transition; "
                      f"bare {row['bareCpuNsPerPass']['median']:.0f} ns CPU and "
                      f"{row['barePassesPerSecond']['median']:.0f} passes/s)")
        else:
            what = (f"lagmon-hotloop: a version-0 CFRunLoopSource re-signalling itself; passes/s alone vs under lagmon "
                    f"run, {row['rounds']} interleaved pairs of {row['secondsPerRun']:.0f} s")
            result = (f"slowdown {fmt(row['slowdown'])}×; {fmt(row['nsPerCallback'], 1)} ns per observer callback; "
                      f"bare {row['barePassesPerSecond']['median']:.0f} passes/s")
        lines.append(f"| Observer overhead, {key} | {what} | {result} | ≤ 1.03× |")
    lines.append(
        "| Observer callback alone | Benchmarks/Micro `Observer record`: lagmon_probe_record on a slot, alternating "
        "before-timers/before-sources; beside it `Monotonic clock read`, the clock_gettime it makes; "
        f"{micro_runs(cb['record'])} | {micro_result(cb['record'])} per call; clock_gettime alone "
        f"{micro_result(cb['clock'])}; {micro_mallocs(cb['record'])} | — |")
    return lines


def instructions_row(oi):
    """The table row of observerInstructions."""
    shapes = oi["shapes"]
    parts = "; ".join(
        f"{key}: {fmt(row['alonePerPass'], 0)} alone, {fmt(row['underLagmonPerPass'], 0)} under lagmon "
        f"(lagmon's preload {row['probePerPass']['median']:.0f}), ratio {fmt(row['ratio'], 3)}×"
        for key, row in ordered(shapes, list(HOTLOOP_SHAPES)))
    return (f"| Observer instructions | callgrind: lagmon-hotloop's measured passes (each shape above), alone and "
            f"under lagmon run, {oi['runs']} interleaved pairs per shape; user-space instructions per pass (each pass "
            f"also makes one or two system calls, not counted); measured {oi['date']} | {parts} | — (the timed "
            f"rows above hold the 1.03× goal) |")
