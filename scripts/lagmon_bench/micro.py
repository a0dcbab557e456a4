"""Benchmarks/Micro (ordo-one/benchmark): the in-process costs several rows read."""
import functools
import os
import tempfile

from .common import ROOT, percentile, run

MICRO = os.path.join(ROOT, "Benchmarks/Micro")
# ProbeCost's scaling factor (kilo): every measured iteration of a micro-benchmark makes 1000 calls.
CALLS_PER_ITERATION = 1000


@functools.cache
def samples(bin_dir):
    """Runs Benchmarks/Micro once (the plugin builds it on first use) and returns every
    iteration's raw value per (benchmark, metric), from the harness's histogramSamples export:
    a file per benchmark and metric, a header line, a value per line."""
    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        # The StrictMode rows dlopen the preload shim lagmon was built with.
        environment = dict(os.environ, LAGMON_PRELOAD_LIBRARY=os.path.abspath(f"{bin_dir}/libLagmonPreload.so"))
        run(["swift", "package", "--package-path", MICRO, "--allow-writing-to-directory", tmp, "benchmark",
             "--format", "histogramSamples", "--path", tmp, "--no-progress"], env=environment)
        for name in os.listdir(tmp):
            # Current_run.<target>.<benchmark name, spaces as _>.<metric>.histogram.samples.tsv
            benchmark, metric = name.split(".")[2:4]
            with open(os.path.join(tmp, name)) as f:
                found[(benchmark.replace("_", " "), metric)] = [int(line) for line in f.read().splitlines()[1:] if line]
    return found


def benchmark(k, name):
    """One micro-benchmark's wall clock per call (percentiles over its iterations) and its mallocs."""
    found = samples(k.bin)
    ns = [value / CALLS_PER_ITERATION for value in found[(name, "wallClock")]]
    return {"p25": percentile(ns, 25), "p50": percentile(ns, 50), "p75": percentile(ns, 75),
            "p99": percentile(ns, 99), "iterations": len(ns), "callsPerIteration": CALLS_PER_ITERATION,
            "mallocs": sum(found[(name, "mallocCountTotal")])}
