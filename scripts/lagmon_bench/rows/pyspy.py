"""lagmon and py-spy side by side on the same stalling Python programs (pySpy), and the section
`pyspy` of docs/benchmarks.md. Before measuring, py-spy (PyPI, pinned) is installed in a venv of
its own under .build/, once.

1. Culprit: Tests/Fixtures/lagmon-python-fixture/lagmon_python_stall.py stall (an asyncio loop
   stalled 500 ms in parse_feed, which parses JSON) under `lagmon run` and under
   `py-spy record --format raw` (100 Hz, py-spy's default: it stops the whole process per sample).
   lagmon's culprit against py-spy's top function by own samples, and the user function py-spy's
   samples hold most.
2. Pause per sample: a program whose loop stalls 2 s in a tight loop that timestamps itself
   (time.perf_counter_ns) and keeps every gap over 5 us between two iterations: a sample's pause
   shows up as one gap, in the workload's own clock. Alone (the machine's own gaps: preemption),
   under lagmon run (which samples the stalled thread only) and under py-spy record.
   lagmon's own pause figures (report.sampling) are given beside its gaps.
"""
import json
import os
import statistics
import subprocess
import tempfile

from ..common import ROOT, percentile, today

VENV = os.path.join(ROOT, ".build", "bench-pyspy-venv")
PYSPY_VERSION = "0.4.3"
FIXTURE = os.path.join(ROOT, "Tests/Fixtures/lagmon-python-fixture/lagmon_python_stall.py")

# The pause workload: ticks, a 2 s stall in spin_and_time that records its own gaps, ticks.
GAP_PROGRAM = r"""
import asyncio, json, sys, time

def spin_and_time(seconds):
    gaps = []
    now = time.perf_counter_ns()
    deadline = now + int(seconds * 1e9)
    while now < deadline:
        later = time.perf_counter_ns()
        if later - now > 5000:
            gaps.append(later - now)
        now = later
    return gaps

async def main():
    for _ in range(5):
        await asyncio.sleep(0.02)
    gaps = spin_and_time(2.0)
    for _ in range(5):
        await asyncio.sleep(0.02)
    print(json.dumps(gaps), flush=True)

asyncio.run(main())
"""


def prepare(k):
    """py-spy in a venv of its own (before any measurement)."""
    pyspy = os.path.join(VENV, "bin", "py-spy")
    if os.path.exists(pyspy):
        return pyspy
    subprocess.run([k.python, "-m", "venv", VENV], check=True)
    subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "--quiet", f"py-spy=={PYSPY_VERSION}"], check=True)
    return pyspy


def lagmon_run(k, program):
    with tempfile.NamedTemporaryFile(suffix=".json") as report:
        out = subprocess.run([f"{k.bin}/lagmon", "run", "--quiet", "--json", report.name, "--"] + program,
                             capture_output=True, text=True, check=True)
        with open(report.name) as f:
            return json.load(f), out.stdout


def pyspy_record(pyspy, program):
    with tempfile.NamedTemporaryFile(suffix=".txt") as folded:
        out = subprocess.run([pyspy, "record", "--format", "raw", "--rate", "100", "-o", folded.name, "--"]
                             + program, capture_output=True, text=True, check=True)
        stacks = []
        with open(folded.name) as lines:
            for line in lines:
                frames, _, count = line.rstrip("\n").rpartition(" ")
                if frames:
                    stacks.append((frames.split(";"), int(count)))
        return stacks, out.stdout


def function_name(frame):
    """`parse_feed (lagmon_python_stall.py:28)` → `parse_feed (lagmon_python_stall.py)`."""
    name, _, place = frame.partition(" (")
    return f"{name} ({place.rsplit(':', 1)[0].split('/')[-1]})" if place else name


def short(frame):
    """`parse_feed (/srv/app.py:28)` → `parse_feed (app.py:28)`."""
    name, _, place = frame.partition(" (")
    return f"{name} ({place.split('/')[-1]}" if place else name


def is_user(frame):
    return "/lib/python3" not in frame and "site-packages" not in frame and not frame.startswith("<")


def culprit_round(k, pyspy):
    report, _ = lagmon_run(k, [k.python, FIXTURE, "stall"])
    stall = max(report["stalls"], key=lambda s: s["durationNs"])
    culprit = stall.get("culprit") or {}
    where = culprit.get("file", "").split("/")[-1]
    lagmon = f"{culprit.get('symbol')} ({where}:{culprit.get('line')})" if culprit.get("runtime") else \
        culprit.get("symbol")
    stacks, _ = pyspy_record(pyspy, [k.python, FIXTURE, "stall"])
    total = sum(count for _, count in stacks)
    own = {}
    for frames, count in stacks:
        leaf = function_name(frames[-1])
        own[leaf] = own.get(leaf, 0) + count
    top = max(own.items(), key=lambda item: item[1])
    deepest_user = {}
    for frames, count in stacks:
        user = [f for f in frames if is_user(f) and FIXTURE.split("/")[-1] in f]
        if user:
            deepest_user[user[-1]] = deepest_user.get(user[-1], 0) + count
    best_user = max(deepest_user.items(), key=lambda item: item[1]) if deepest_user else ("-", 0)
    return {
        "lagmonCulprit": lagmon,
        "lagmonPauseNsP50": report["sampling"].get("pauseNsP50"),
        "lagmonInterpreterReadNsP50": report["sampling"].get("interpreterReadNsP50"),
        "pyspySamples": total,
        "pyspyTopOwn": top[0],
        "pyspyTopOwnShare": round(top[1] / total, 3) if total else 0,
        "pyspyDeepestUserFrame": short(best_user[0]),
        "pyspyDeepestUserShare": round(best_user[1] / total, 3) if total else 0,
    }


def gaps_of(stdout):
    """The workload's line of gaps (py-spy prints lines of its own on stdout too)."""
    return json.loads([line for line in stdout.splitlines() if line.startswith("[")][-1])


def gap_summary(gaps):
    """All gaps, and those under 1 ms (pause-sized: the scheduler's preemptions of a busy machine
    take milliseconds)."""
    short_gaps = [gap for gap in gaps if gap < 1_000_000]
    return {"gaps": len(gaps), "gapNsP50": percentile(gaps, 50, None), "gapNsP90": percentile(gaps, 90, None),
            "shortGaps": len(short_gaps), "shortGapNsP50": percentile(short_gaps, 50, None),
            "shortGapNsP90": percentile(short_gaps, 90, None)}


def pause_round(k, pyspy):
    program = [k.python, "-c", GAP_PROGRAM]
    alone = subprocess.run(program, capture_output=True, text=True, check=True).stdout
    report, under_lagmon = lagmon_run(k, program)
    _, under_pyspy = pyspy_record(pyspy, program)
    sampling = report["sampling"]
    return {
        "alone": gap_summary(gaps_of(alone)),
        "lagmon": dict(gap_summary(gaps_of(under_lagmon)), samples=sampling.get("samples"),
                       pauseNsP50=sampling.get("pauseNsP50"), pauseNsP99=sampling.get("pauseNsP99")),
        "pyspy": gap_summary(gaps_of(under_pyspy)),
    }


def py_spy(k):
    """LAGMON_BENCH_PYSPY_RUNS rounds of both comparisons."""
    pyspy = prepare(k)
    version = subprocess.run([k.python, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    result = {"date": today(), "python": version, "pyspy": PYSPY_VERSION, "culprit": [], "pause": []}
    for _ in range(k.pyspy_runs):
        result["culprit"].append(culprit_round(k, pyspy))
        result["pause"].append(pause_round(k, pyspy))
    return result


def us(ns):
    return "-" if ns is None else f"{ns / 1000:.0f} µs"


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def section(results, body):
    """The section `pyspy`: what the row pySpy measured; as the page has it when the results lack it."""
    if "pySpy" not in results:
        return body
    result = results["pySpy"]
    return "\n".join([
        (
            f"Measured {result['date']} by `make bench` (row `pySpy`; raw numbers: "
            "[benchmarks.json](benchmarks.json)). The machine is shared and noisy: the gaps "
            "of the run alone are its own preemptions, which the runs under a profiler contain too: where the "
            "run alone has about as many short gaps as the runs under a profiler, the gaps cannot tell the "
            "profilers' pauses from the machine's own, and lagmon's own pause figure (timed around each stop) "
            "is the better number; py-spy reports none."
        ),
        "",
    ] + table(result))


def table(result):
    culprits = result["culprit"]
    pauses = result["pause"]
    lagmon_culprits = sorted({c["lagmonCulprit"] for c in culprits})
    tops = sorted({f"{c['pyspyTopOwn']} ({c['pyspyTopOwnShare']:.0%})" for c in culprits})
    users = sorted({f"{c['pyspyDeepestUserFrame']} ({c['pyspyDeepestUserShare']:.0%})" for c in culprits})

    def gaps(tool, key):
        return us(median([p[tool][key] for p in pauses]))

    def count(tool, key):
        return median([p[tool][key] for p in pauses])

    n = len(pauses)
    return [
        "| Row | What was run | Result |",
        "| --- | --- | --- |",
        (
            f"| py-spy side by side: culprit | `lagmon_python_stall.py stall` ({result['python']}: asyncio loop stalled "
            f"500 ms in parse_feed parsing JSON) under `lagmon run` and `py-spy record --format raw` "
            f"(py-spy {result['pyspy']}, 100 Hz), {len(culprits)} runs each | lagmon's culprit: "
            f"{', '.join(lagmon_culprits)}; py-spy's top function by own samples: {', '.join(tops)}; the user "
            f"function py-spy's samples hold deepest: {', '.join(users)} |"
        ),
        (
            f"| py-spy side by side: pause per sample | a 2 s stall in a loop timing its own iterations (gaps over "
            f"5 µs, and of those the ones under 1 ms, pause-sized); alone, under lagmon run (samples the stalled "
            f"thread only, every 10 ms), under py-spy record (stops the whole process, 100 Hz); medians of {n} runs "
            f"| alone: {count('alone', 'shortGaps')} gaps under 1 ms, p50 {gaps('alone', 'shortGapNsP50')}, p90 "
            f"{gaps('alone', 'shortGapNsP90')} ({count('alone', 'gaps')} in all) · lagmon: "
            f"{count('lagmon', 'shortGaps')} gaps under 1 ms, p50 {gaps('lagmon', 'shortGapNsP50')}, p90 "
            f"{gaps('lagmon', 'shortGapNsP90')} ({count('lagmon', 'gaps')} in all; its own pause p50 "
            f"{us(median([p['lagmon']['pauseNsP50'] for p in pauses]))}, p99 "
            f"{us(median([p['lagmon']['pauseNsP99'] for p in pauses]))}, "
            f"{median([p['lagmon']['samples'] for p in pauses])} samples) · py-spy: {count('pyspy', 'shortGaps')} "
            f"gaps under 1 ms, p50 {gaps('pyspy', 'shortGapNsP50')}, p90 {gaps('pyspy', 'shortGapNsP90')} "
            f"({count('pyspy', 'gaps')} in all) |"
        ),
    ]
