"""Swift concurrency jobs: the preload shim's per-job path alone (swiftJobCost), a program of
yields alone and under lagmon run (swiftJobsOverhead), and its instructions (swiftJobInstructions)."""
import functools
import json
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
from ..tables import count, fmt, micro_mallocs, micro_result, micro_runs

SWIFT_FIXTURES = os.path.join(ROOT, "Tests/Fixtures/swift-servers")


@functools.cache
def swift_jobs_program(k):
    """Compiles the Swift concurrency fixture's one source file with `swiftc -O` (before measuring
    starts) and returns the program. It is the job-heavy program of swiftJobsOverhead: a single-file
    release build takes seconds, where a release build of its package (SwiftNIO too) took minutes."""
    source = os.path.join(SWIFT_FIXTURES, "Sources/lagmon-concurrency-fixture/ConcurrencyFixture.swift")
    program = os.path.join(build_dir("bench-swift-jobs"), "lagmon-concurrency-fixture")
    # Swift 5 mode, as its package builds it (Package.swift: swiftLanguageModes); @main needs -parse-as-library.
    run(["swiftc", "-O", "-parse-as-library", "-swift-version", "5", source, "-o", program])
    return program


def swift_job_cost(k):
    """Swift concurrency, in-process: the preload shim's per-job path (lagmon_swift_job.h: lagmon's
    tick and a record before and after a pool job, one in 64 timed by the counter clock; the counter
    clock for a main-actor job) around a job that only counts its calls, beside the same job called
    straight through the same pointer."""
    pool, main_actor = micro.benchmark(k, "Swift pool job wrapper"), micro.benchmark(k, "Swift main-actor job wrapper")
    alone = micro.benchmark(k, "Swift job alone")
    return {"addedNsPerJob": {"pool": pool["p50"] - alone["p50"], "mainActor": main_actor["p50"] - alone["p50"]},
            "pool": pool, "mainActor": main_actor, "alone": alone, "date": today()}


COUNTER_READ_C = r"""
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>
static uint64_t now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000ull + t.tv_nsec; }
int main(void) {
    enum { N = 20000000 };
    volatile uint64_t sink = 0;
    uint64_t start = now();
    for (int i = 0; i < N; i++) sink += __rdtsc();
    printf("%.3f\n", (double)(now() - start) / N);
    return 0;
}
"""


def counter_read_ns(rounds=5):
    """What one read of the counter clock costs here (rdtsc, as the exact Swift job path reads it
    twice a job: every main-actor job, one pool job in 64; lagmon_swift_job.h), back to back in a C
    loop; the median of `rounds` runs of 20M reads."""
    out_dir = build_dir("bench-swift-jobs")
    source, program = os.path.join(out_dir, "counter-read.c"), os.path.join(out_dir, "counter-read")
    with open(source, "w") as f:
        f.write(COUNTER_READ_C)
    run(["clang", "-O2", source, "-o", program])
    return spread([float(run([program]).stdout) for _ in range(rounds)])


def swift_jobs_overhead(k):
    """Swift concurrency, side by side: a million `await Task.yield()` on the cooperative pool,
    then a tenth as many on the main actor (each yield is a job or two, each job one iteration of a
    watched loop), alone and under lagmon run (release builds), interleaved. Each side's wall-clock
    and CPU time (the process's, every thread) per yield; the jobs per yield come from lagmon's
    report (the loops' iterations)."""
    program = swift_jobs_program(k)
    yields = 1000000
    kinds = (("pool", "poolNsPerYield", "poolCpuNsPerYield"),
             ("mainActor", "mainActorNsPerYield", "mainActorCpuNsPerYield"))
    series = {name: {kind: [] for kind, _, _ in kinds}
              for name in ("bare", "bareCpu", "added", "addedCpu", "slowdown", "cpuSlowdown")}
    jobs = {"pool": [], "mainActor": []}
    loads = []  # the machine's 1-minute load average after each pair: how busy it was meanwhile

    with tempfile.TemporaryDirectory() as tmp:
        report_path = os.path.join(tmp, "jobs.json")

        def per_yield(under):
            command = [program, "bench", str(yields)]
            if under:
                command = [f"{k.bin}/lagmon", "run", "--quiet", "--no-cpu", "--json", report_path, "--"] + command
            return json.loads(run(command).stdout.splitlines()[-1])

        for ns in side_by_side(k.rounds, per_yield):
            loops = read_json(report_path)["loops"]
            jobs["pool"].append(sum(loop["iterations"] for loop in loops if loop["observer"] == "swift-pool") / yields)
            jobs["mainActor"].append(sum(loop["iterations"] for loop in loops
                                         if loop["observer"] == "swift-main-actor") / max(1, yields // 10))
            for kind, wall, cpu in kinds:
                bare, observed = ns[False], ns[True]
                series["bare"][kind].append(bare[wall])
                series["bareCpu"][kind].append(bare[cpu])
                series["added"][kind].append(observed[wall] - bare[wall])
                series["addedCpu"][kind].append(observed[cpu] - bare[cpu])
                series["slowdown"][kind].append(observed[wall] / bare[wall])
                series["cpuSlowdown"][kind].append(observed[cpu] / bare[cpu])
            loads.append(os.getloadavg()[0])
    result = {name: {kind: spread(values) for kind, values in by_kind.items()} for name, by_kind in series.items()}
    return {"rounds": k.rounds, "poolYields": yields, "mainActorYields": max(1, yields // 10),
            "loadAverage": spread(loads), "jobsPerYield": {kind: spread(values) for kind, values in jobs.items()},
            "bareNsPerYield": result["bare"], "bareCpuNsPerYield": result["bareCpu"],
            "addedNsPerYield": result["added"], "addedCpuNsPerYield": result["addedCpu"],
            "slowdown": result["slowdown"], "cpuSlowdown": result["cpuSlowdown"], "date": today(),
            "counterReadNs": counter_read_ns()}


def swift_job_instructions(k):
    """Swift concurrency, in instructions (callgrind counts them, whatever the machine's load):
    lagmon-swift-yields N (N `await Task.yield()` on the pool) and lagmon-swift-yields N main-actor
    (N yields of a main-actor task, run by libdispatch workers), each alone and under lagmon run.
    Per kind: the wrapper's own instructions per job and the job's (the runtime's __swift_run_job,
    inclusive), exact; the whole program's per yield alone and under lagmon, and their ratio, which
    vary a few % between runs (valgrind runs the pool's threads one at a time, and libdispatch's
    spinning depends on the interleaving). 200k yields, not 20k: one-time costs (the runtime's start,
    symbol binding through one more library) then weigh 10 times less per yield, under 0.1 %."""
    yields, runs = 200000, 5
    program = os.path.join(build_dir("bench-swift-jobs"), "lagmon-swift-yields")
    run(["swiftc", "-O", os.path.join(ROOT, "Benchmarks/lagmon-swift-yields/main.swift"), "-o", program])
    kinds = {"pool": ([], "lagmon_swift_jobs_run_pool_job"), "mainActor": (["main-actor"], "lagmon_swift_jobs_run_main_job")}
    job = "__swift_run_job(void*)"
    result = {"yields": yields, "runs": runs, "date": today()}
    with tempfile.TemporaryDirectory() as tmp:
        lagmon = callgrind.lagmon_without_debug_info(k, tmp)
        for kind, (mode, wrapper) in kinds.items():
            totals, ratios = {False: [], True: []}, []
            for index in range(runs):
                for under in pair_order(index, False, True):
                    out_file = os.path.join(tmp, f"callgrind.{kind}.{index}.{int(under)}")
                    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", program,
                               str(yields)] + mode
                    if under:
                        command = callgrind.under_lagmon(lagmon, command)
                    run(command)
                    total, own, calls = callgrind.counts(out_file)
                    totals[under].append(total / yields)
                    if under:
                        jobs, job_instructions = calls[(wrapper, job)]
                        wrapper_own = own[wrapper]
                ratios.append(totals[True][-1] / totals[False][-1])
            result[kind] = {"jobs": jobs, "wrapperInstructionsPerJob": wrapper_own / jobs,
                            "jobInstructionsPerJob": job_instructions / jobs,
                            "programInstructionsPerYield": {"alone": spread(totals[False]),
                                                            "underLagmon": spread(totals[True])},
                            "programRatio": spread(ratios)}
    return result


def swift_job_cost_row(c):
    return (f"| Swift job wrapper | Benchmarks/Micro `Swift pool job wrapper` and `Swift main-actor job wrapper`: the "
            "preload shim's per-job path (lagmon_swift_job.h: pool: lagmon's tick + after-waiting record, the job, the "
            "tick + before-waiting record, one job in 64 timed by the counter clock; main actor: the counter clock at "
            "both ends) around a job that counts its calls, beside `Swift job alone` (the same "
            f"job through the same pointer); {micro_runs(c['pool'], 'jobs')}; measured {c['date']} | pool "
            f"+{c['addedNsPerJob']['pool']:.1f} ns per job ({micro_result(c['pool'])} wrapped); main actor "
            f"+{c['addedNsPerJob']['mainActor']:.1f} ns ({micro_result(c['mainActor'])}); alone "
            f"{micro_result(c['alone'])}; {micro_mallocs(c['pool'], 'pool jobs')}, "
            f"{micro_mallocs(c['mainActor'], 'main-actor jobs')} | <= 50 ns per job, 0 mallocs |")


def swift_jobs_row(sj):
    load = f", load average {fmt(sj['loadAverage'], 1)}" if "loadAverage" in sj else ""
    if "cpuSlowdown" not in sj:  # the row's first version: wall-clock only
        return (f"| Swift jobs | lagmon-concurrency-fixture bench (release): {count(sj['poolYields'])} `await Task.yield()` "
                f"on the pool, then {count(sj['mainActorYields'])} on the main actor; alone vs under lagmon run, "
                f"{sj['rounds']} interleaved pairs | pool +{fmt(sj['addedNsPerJob']['pool'], 1)} ns per job (slowdown "
                f"{fmt(sj['slowdown']['pool'])}×, bare {sj['bareNsPerYield']['pool']['median']:.0f} ns); main actor "
                f"+{fmt(sj['addedNsPerJob']['mainActor'], 1)} ns per job (slowdown {fmt(sj['slowdown']['mainActor'])}×, "
                f"bare {sj['bareNsPerYield']['mainActor']['median']:.0f} ns) | <= 50 ns per job; <= 1.03x |")
    per = "; ".join(
        f"{name}: wall slowdown {fmt(sj['slowdown'][kind])}×, CPU slowdown {fmt(sj['cpuSlowdown'][kind])}× (bare "
        f"{sj['bareNsPerYield'][kind]['median']:.0f} ns wall, {sj['bareCpuNsPerYield'][kind]['median']:.0f} ns CPU per "
        f"yield; {sj['jobsPerYield'][kind]['median']:.2f} jobs per yield)"
        for name, kind in (("pool", "pool"), ("main actor", "mainActor")))
    floor = ""
    if "counterReadNs" in sj:
        # Timing a job exactly takes two counter reads: their cost alone, over the bare program's time per
        # yield (what every pool job would pay without lagmon's tick; what every main-actor job pays).
        read, pool = sj["counterReadNs"]["median"], sj["jobsPerYield"]["pool"]["median"]
        floor = (f"; one counter read (rdtsc) costs {fmt(sj['counterReadNs'], 2)} ns here, so two a job "
                 f"alone would make the pool {1 + 2 * read * pool / sj['bareNsPerYield']['pool']['median']:.3f}× "
                 f"(its jobs read lagmon's tick instead) and make the main actor "
                 f"{1 + 2 * read / sj['bareNsPerYield']['mainActor']['median']:.4f}×")
    return (f"| Swift jobs | lagmon-concurrency-fixture bench (`swiftc -O`): {count(sj['poolYields'])} `await Task.yield()` "
            f"on the pool, then {count(sj['mainActorYields'])} on the main actor; alone vs under lagmon run, "
            f"{sj['rounds']} interleaved pairs{load}; measured {sj['date']} | {per}{floor} | <= 1.03x |")


def swift_job_instructions_row(si):
    def kind(k, name):
        program = k["programInstructionsPerYield"]
        return (f"{name}: the wrapper's own {k['wrapperInstructionsPerJob']:.0f} instructions per job ({k['jobs']} "
                f"jobs), beside {k['jobInstructionsPerJob']:.0f} in the job itself (__swift_run_job, inclusive); "
                f"whole program {fmt(program['alone'], 0)} per yield alone, {fmt(program['underLagmon'], 0)} under "
                f"lagmon, ratio {fmt(k['programRatio'], 3)}×")
    parts = f"{kind(si['pool'], 'pool')}; {kind(si['mainActor'], 'main actor')}"
    return (f"| Swift job instructions | callgrind: lagmon-swift-yields {count(si['yields'])} (`await Task.yield()` on "
            f"the pool; `main-actor`: on the main actor, run by libdispatch workers), alone and under lagmon run, "
            f"{si['runs']} interleaved pairs each; measured {si['date']} | {parts} | whole-program ratio <= 1.03× |")
