"""Every row of `make bench`: what measures it (in measuring order) and how the table shows it (in
the table's order). A new row is a function in the module of its group (or a new module), a `Row`
in ROWS and, if the section `bench` shows it, an entry in BENCH_TABLE."""
from collections.abc import Callable
from dataclasses import dataclass

from . import (
    attach,
    cpu_sampler,
    detection,
    jit_map,
    jvm_map,
    metrics,
    metrics_section,
    nio_wrk,
    observer,
    own_cost,
    pyspy,
    python,
    sampler_pause,
    soak,
    startup,
    strict,
    swift_jobs,
    tokio_pool,
    waitcall,
)


@dataclass(frozen=True)
class Row:
    """One key of docs/benchmarks.json and what measures it."""

    key: str
    measure: Callable
    """`measure(knobs)`: the row's figures, a JSON value."""
    prepare: Callable | None = None
    """`prepare(knobs)`, run before anything is measured: whatever could fail for want of a tool or a build."""
    default: bool = True
    """Whether a full run measures it (else only LAGMON_BENCH_ONLY does)."""
    dated: bool = False
    """Whether its figures say when they were measured (`measured`): LAGMON_BENCH_FROM takes only these."""


# Every row, in the order a run measures them.
ROWS = (
    Row("observerOverhead", observer.observer_overhead),
    Row("detectionAccuracy", detection.detection_accuracy),
    Row("callbackCost", observer.callback_cost),
    Row("waitcallOverhead", waitcall.waitcall_overhead),
    Row("waitcallCost", waitcall.waitcall_cost),
    Row("strictCost", strict.strict_cost),
    Row("asyncioOverhead", python.asyncio_overhead),
    Row("swiftJobCost", swift_jobs.swift_job_cost),
    Row("swiftJobsOverhead", swift_jobs.swift_jobs_overhead, swift_jobs.swift_jobs_program),
    Row("swiftJobInstructions", swift_jobs.swift_job_instructions),
    Row("tokioPoolOverhead", tokio_pool.tokio_pool_overhead, tokio_pool.tokio_yields_program),
    Row("tokioPoolInstructions", tokio_pool.tokio_pool_instructions, tokio_pool.prepare_instructions),
    Row("observerInstructions", observer.observer_instructions),
    Row("pausePerSample", sampler_pause.pause_per_sample, sampler_pause.check_peers),
    Row("culpritHitRate", detection.culprit_hit_rate),
    Row("ownCost", own_cost.own_cost),
    Row("cpuSamplerScale", cpu_sampler.cpu_sampler_scale),
    Row("pauseFloor", sampler_pause.pause_floor),
    Row("nioWrk", nio_wrk.nio_wrk, nio_wrk.prepare),
    Row("nioWrkKeepAlive", nio_wrk.nio_wrk_keep_alive, nio_wrk.prepare),
    Row("pythonFrames", python.python_frames),
    Row("jitMap", jit_map.jit_map, jit_map.check_node),
    Row("jvmMap", jvm_map.jvm_map, jvm_map.check_java),
    Row("scale", detection.scale),
    Row("attachAccuracy", attach.attach_accuracy),
    Row("attachCost", attach.attach_cost),
    Row("scrapeCost", metrics.scrape_cost, dated=True),
    Row("idleRSS", metrics.idle_rss, dated=True),
    Row("soak", soak.soak, dated=True),
    Row("scrapeScaling", metrics.scrape_scaling, default=False, dated=True),
    Row("pySpy", pyspy.py_spy, pyspy.prepare),
    Row("startup", startup.startup, startup.prepare),
)

# The section `bench`'s rows in order: each renders from the measurements it names, and is left
# out when the JSON has none of them (a run that did not measure it), so no row shows a figure
# from another run.
BENCH_TABLE = (
    (observer.overhead_rows, "observerOverhead", "callbackCost"),
    (observer.instructions_row, "observerInstructions"),
    (detection.detection_row, "detectionAccuracy"),
    (sampler_pause.pause_rows, "pausePerSample"),
    (detection.culprit_row, "culpritHitRate"),
    (own_cost.own_cost_rows, "ownCost"),
    (cpu_sampler.cpu_reader_row, "cpuSamplerScale"),
    (sampler_pause.pause_floor_row, "pauseFloor"),
    (waitcall.waitcall_rows, "waitcallOverhead", "waitcallCost"),
    (strict.strict_rows, "strictCost"),
    (python.asyncio_row, "asyncioOverhead"),
    (swift_jobs.swift_job_cost_row, "swiftJobCost"),
    (swift_jobs.swift_jobs_row, "swiftJobsOverhead"),
    (tokio_pool.tokio_pool_row, "tokioPoolOverhead"),
    (nio_wrk.nio_wrk_row, "nioWrk"),
    (nio_wrk.nio_wrk_row, "nioWrkKeepAlive"),
    (python.python_frames_row, "pythonFrames"),
    (jit_map.jit_map_row, "jitMap"),
    (jvm_map.jvm_map_row, "jvmMap"),
    (swift_jobs.swift_job_instructions_row, "swiftJobInstructions"),
    (tokio_pool.tokio_pool_instructions_row, "tokioPoolInstructions"),
    (detection.scale_row, "scale"),
    (attach.attach_rows, "attachAccuracy", "attachCost"),
    (startup.startup_row, "startup"),
)

# The page's other generated sections: `section(results, body)` → the section's new body.
SECTIONS = {"metrics": metrics_section.section, "pyspy": pyspy.section}


def select(only):
    """The rows a run measures: those named in `only` (LAGMON_BENCH_ONLY), else every default row;
    in measuring order."""
    return [row for row in ROWS if (row.key in only if only else row.default)]
