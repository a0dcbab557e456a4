"""tokio's worker pool: a program of yields on a `multi_thread` runtime alone and under lagmon run
(tokioPoolOverhead), and its instructions (tokioPoolInstructions)."""
import functools
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

from .. import callgrind
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
from ..tables import count, fmt

SOURCE = os.path.join(ROOT, "Benchmarks/rust-tokio-yields")
REGISTRY = "/usr/share/cargo/registry"  # Debian's packaged crates (librust-tokio-dev's tokio among them)
WORKER = "tokio-worker"  # the observer of a watched tokio worker's loop (LoopObserver.tokioWorker)


def cargo():
    """cargo on PATH, else rustup's in ~/.cargo/bin (where the machine image installs it), as the
    tokio tests find it; None when neither is there."""
    return shutil.which("cargo") or shutil.which("cargo", path=os.path.expanduser("~/.cargo/bin"))


@functools.cache
def tokio_yields_program(k):
    """Builds Benchmarks/rust-tokio-yields (release) offline from Debian's crates, in a copy (cargo
    writes Cargo.lock beside Cargo.toml), before measuring starts; returns the program. A missing
    cargo, a missing librust-tokio-dev or a failed build stops the run here, in one line."""
    tool = cargo()
    if tool is None:
        sys.exit("bench: cargo not found (Debian package cargo, or rustup's in ~/.cargo/bin); "
                 "run scripts/install-deps --bench first")
    if not glob.glob(os.path.join(REGISTRY, "tokio-1.*")):
        sys.exit(f"bench: Debian's tokio crate is not in {REGISTRY} (Debian package librust-tokio-dev); "
                 "run scripts/install-deps --bench first")
    out = build_dir("bench-tokio-yields")
    copy = os.path.join(out, "source")
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(SOURCE, copy)
    command = [tool, "--config", os.path.join(copy, ".cargo/config.toml"), "build", "--offline", "--quiet",
               "--release", "--manifest-path", os.path.join(copy, "Cargo.toml")]
    try:
        run(command, env=dict(os.environ, CARGO_TARGET_DIR=os.path.join(out, "target")))
    except subprocess.CalledProcessError as failure:
        lines = failure.stderr.strip().splitlines() or ["no output"]
        first = next((line for line in lines if line.startswith("error")), lines[-1])
        sys.exit(f"bench: cargo build of Benchmarks/rust-tokio-yields failed: {first} (it builds offline from "
                 "Debian's crates, which scripts/install-deps --bench installs with cargo)")
    return os.path.join(out, "target/release/rust-tokio-yields")


def prepare_instructions(k):
    """valgrind must be there, and the program built, before anything is measured."""
    if not shutil.which("valgrind"):
        sys.exit("bench: valgrind (Debian package valgrind) not found; run scripts/install-deps --bench first")
    tokio_yields_program(k)


def watched_workers(report):
    """From a lagmon report: how many tokio workers it watched, their iterations in all, the pool's
    width and the stalls found (none expected: no task holds a worker)."""
    workers = [loop for loop in report["loops"] if loop["observer"] == WORKER]
    return {"workers": len(workers), "iterations": sum(loop["iterations"] for loop in workers),
            "poolWidth": (report.get("tokioPool") or {}).get("width", 0), "stalls": report["summary"]["stallCount"]}


def tokio_pool_overhead(k):
    """tokio's pool, side by side: a million `tokio::task::yield_now().await` by 8 tasks at a time on
    a `multi_thread` runtime of two workers (rust-tokio-yields, release), alone and under lagmon run
    (default flags), interleaved. Each side's wall-clock and CPU time (the process's, every thread)
    per yield; from lagmon's report, the tokio workers it watched and their iterations (parks)."""
    program, yields = tokio_yields_program(k), 1000000
    series = {name: [] for name in ("bare", "bareCpu", "slowdown", "cpuSlowdown")}
    watched = {name: [] for name in ("workers", "iterations", "poolWidth", "stalls")}
    loads = []  # the machine's 1-minute load average after each pair: how busy it was meanwhile
    with tempfile.TemporaryDirectory() as tmp:
        report_path = os.path.join(tmp, "tokio.json")

        def per_yield(under):
            command = [program, str(yields)]
            if under:
                command = [f"{k.bin}/lagmon", "run", "--quiet", "--no-cpu", "--json", report_path, "--"] + command
            return json.loads(run(command).stdout.splitlines()[-1])

        for ns in side_by_side(k.rounds, per_yield):
            bare, observed = ns[False], ns[True]
            series["bare"].append(bare["nsPerYield"])
            series["bareCpu"].append(bare["cpuNsPerYield"])
            series["slowdown"].append(observed["nsPerYield"] / bare["nsPerYield"])
            series["cpuSlowdown"].append(observed["cpuNsPerYield"] / bare["cpuNsPerYield"])
            for name, value in watched_workers(read_json(report_path)).items():
                watched[name].append(value)
            loads.append(os.getloadavg()[0])
    return {"rounds": k.rounds, "yields": bare["yields"], "tasks": bare["tasks"], "taskRounds": bare["rounds"],
            "workers": bare["workers"], "loadAverage": spread(loads),
            "bareNsPerYield": spread(series["bare"]), "bareCpuNsPerYield": spread(series["bareCpu"]),
            "slowdown": spread(series["slowdown"]), "cpuSlowdown": spread(series["cpuSlowdown"]),
            "watched": {name: spread(values) for name, values in watched.items()}, "date": today()}


def tokio_pool_instructions(k):
    """tokio's pool in instructions (callgrind counts them whatever the machine's load): the same
    program alone and under lagmon run, `runs` interleaved pairs. The whole program's instructions
    per yield on each side, their ratio, and those of lagmon's preload library alone, per yield and
    per watched worker iteration. User space only: the system calls (each park's epoll_wait or futex
    wait, the same on both sides) are not counted, so the ratio overstates the slowdown in time.
    valgrind runs the pool's threads one at a time, so the workers park at other moments than on
    the machine; lagmon's report of each run under it says they were watched."""
    program, yields, runs = tokio_yields_program(k), 1000000, 5
    totals, preload, per_iteration, ratios = {False: [], True: []}, [], [], []
    watched = {name: [] for name in ("workers", "iterations", "poolWidth", "stalls")}
    with tempfile.TemporaryDirectory() as tmp:
        lagmon = callgrind.lagmon_without_debug_info(k, tmp)
        report_path = os.path.join(tmp, "tokio.json")
        for index in range(runs):
            for under in pair_order(index, False, True):
                out_file = os.path.join(tmp, f"callgrind.{index}.{int(under)}")
                command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", program, str(yields)]
                if under:
                    command = callgrind.under_lagmon(lagmon, command, report=report_path)
                figures = json.loads(run(command).stdout.splitlines()[-1])
                done = figures["yields"]
                totals[under].append(callgrind.counts(out_file)[0] / done)
                if under:
                    workers = watched_workers(read_json(report_path))
                    for name, value in workers.items():
                        watched[name].append(value)
                    own = callgrind.object_instructions(out_file, "libLagmonPreload.so")
                    preload.append(own / done)
                    per_iteration.append(own / max(1, workers["iterations"]))
            ratios.append(totals[True][-1] / totals[False][-1])
    return {"yields": done, "tasks": figures["tasks"], "taskRounds": figures["rounds"], "runs": runs, "date": today(),
            "programInstructionsPerYield": {"alone": spread(totals[False]), "underLagmon": spread(totals[True])},
            "preloadInstructionsPerYield": spread(preload), "preloadInstructionsPerIteration": spread(per_iteration),
            "ratio": spread(ratios), "watched": {name: spread(values) for name, values in watched.items()}}


def _watched(w):
    """What lagmon's reports said of the pool: the workers it watched, their iterations, stalls."""
    return (f"tokio workers watched {fmt(w['workers'], 0)} of {w['poolWidth']['median']:.0f}, their iterations "
            f"(parks) {fmt(w['iterations'], 0)} in all, stalls {w['stalls']['max']:.0f}")


def tokio_pool_row(tp):
    return (f"| tokio pool | Benchmarks/rust-tokio-yields (release, Debian's tokio): {count(tp['yields'])} "
            f"`tokio::task::yield_now().await` by {tp['tasks']} tasks at a time, {tp['taskRounds']} rounds, on a "
            f"`multi_thread` runtime of {tp['workers']} workers with its I/O driver; alone vs under lagmon run "
            f"(default flags), {tp['rounds']} interleaved pairs, load average {fmt(tp['loadAverage'], 1)}; measured "
            f"{tp['date']} | wall slowdown {fmt(tp['slowdown'])}×, CPU slowdown {fmt(tp['cpuSlowdown'])}× (bare "
            f"{tp['bareNsPerYield']['median']:.0f} ns wall, {tp['bareCpuNsPerYield']['median']:.0f} ns CPU per yield); "
            f"{_watched(tp['watched'])} | <= 1.03x |")


def tokio_pool_instructions_row(ti):
    program = ti["programInstructionsPerYield"]
    return (f"| tokio pool instructions | callgrind: Benchmarks/rust-tokio-yields, the tokio pool row's program "
            f"({count(ti['yields'])} `yield_now().await` by {ti['tasks']} tasks at a time, {ti['taskRounds']} rounds, 2 "
            f"workers), alone and under lagmon run, {ti['runs']} interleaved pairs; user-space instructions (each park's "
            f"system call, the same on both sides, not counted); measured {ti['date']} | whole program "
            f"{fmt(program['alone'], 0)} per yield alone, {fmt(program['underLagmon'], 0)} under lagmon, ratio "
            f"{fmt(ti['ratio'])}×; lagmon's preload {fmt(ti['preloadInstructionsPerYield'], 1)} per yield, "
            f"{fmt(ti['preloadInstructionsPerIteration'], 0)} per worker iteration; "
            f"{_watched(ti['watched'])} | — (the timed tokio pool row holds the 1.03× goal) |")
