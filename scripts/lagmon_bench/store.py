"""docs/benchmarks.json: read, written whole, a partial run merged into the last full one."""
import json
import os
import platform

from .common import run, today


def load(path):
    with open(path) as f:
        return json.load(f)


def save(path, results):
    """Writes `results` atomically, keys sorted (the file diffs row by row)."""
    with open(path + ".tmp", "w") as f:
        json.dump(results, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(path + ".tmp", path)


def machine():
    cpu = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
            "swift": run(["swift", "--version"]).stdout.splitlines()[0]}


def begin(path, only):
    """The results a run adds its rows to: a fresh object for a full run; for a partial run
    (`only`, LAGMON_BENCH_ONLY) the existing file, its `partialRuns` saying which rows were
    measured again, when and where; the other rows stay as they were."""
    if not only:
        return {"date": today(), "machine": machine()}
    results = load(path)
    results.setdefault("partialRuns", []).append({"date": today(), "machine": machine(), "rows": only})
    return results


def saved_lines(path):
    """The rows of `path`, JSON lines an earlier run printed (`{"row": {…}}` each), as one object."""
    rows = {}
    with open(path) as f:
        for line in f:
            if line.strip():
                rows.update(json.loads(line))
    return rows
