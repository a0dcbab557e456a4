"""What a measuring run reads from its command line and the environment, read once."""
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Knobs:
    """The settings of one measuring run (the package's docstring lists the variables)."""

    bin: str
    """The directory of the release build (lagmon, lagmon-demo, lagmon-bench, …)."""
    rounds: int
    seconds: str
    samples: int
    peer_runs: int
    jit_functions: int
    wrk_seconds: str
    scrapes: int
    fixture_bin: str
    soak_stalls: int
    soak_stall_ms: float
    soak_gap_ms: float
    soak_threshold_ms: float
    soak_keep: bool
    python: str
    pyspy_runs: int

    @classmethod
    def from_env(cls, bin_dir, env=None):
        env = os.environ if env is None else env
        return cls(
            bin=bin_dir,
            rounds=int(env.get("LAGMON_BENCH_ROUNDS", "9")),
            seconds=env.get("LAGMON_BENCH_SECONDS", "2"),
            samples=int(env.get("LAGMON_BENCH_SAMPLES", "200")),
            peer_runs=int(env.get("LAGMON_BENCH_PEER_RUNS", "10")),
            jit_functions=int(env.get("LAGMON_BENCH_JIT_FUNCTIONS", "10000")),
            wrk_seconds=env.get("LAGMON_BENCH_WRK_SECONDS", "5"),
            scrapes=int(env.get("LAGMON_BENCH_SCRAPES", "300")),
            fixture_bin=env.get("LAGMON_FIXTURE_BIN", bin_dir),
            soak_stalls=int(env.get("LAGMON_SOAK_STALLS", "100000")),
            soak_stall_ms=float(env.get("LAGMON_SOAK_STALL_MS", "4")),
            soak_gap_ms=float(env.get("LAGMON_SOAK_GAP_MS", "4")),
            soak_threshold_ms=float(env.get("LAGMON_SOAK_THRESHOLD_MS", "2")),
            soak_keep=bool(env.get("LAGMON_SOAK_KEEP")),
            python=env.get("LAGMON_BENCH_PYTHON", "/usr/bin/python3"),
            pyspy_runs=int(env.get("LAGMON_BENCH_PYSPY_RUNS", "3")),
        )
