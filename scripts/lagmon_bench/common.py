"""Helpers every row uses: the repository's root, running a command, statistics, interleaving."""
import json
import os
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(command, **kwargs):
    """Runs `command` to its end and returns the finished process; a failure raises."""
    return subprocess.run(command, capture_output=True, text=True, check=True, **kwargs)


def read_json(path):
    with open(path) as f:
        return json.load(f)


def today():
    return time.strftime("%Y-%m-%d")


def build_dir(name):
    """A directory of .build/ for what a row compiles itself (made if missing)."""
    path = os.path.join(ROOT, ".build", name)
    os.makedirs(path, exist_ok=True)
    return path


def percentile(values, p, empty=0):
    """The nearest-rank `p`th percentile (0–100) of `values`; `empty` when there are none."""
    ordered = sorted(values)
    if not ordered:
        return empty
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def spread(values):
    """Median, p99, min, max and count: how a row's figures are stored."""
    return {"median": statistics.median(values), "p99": percentile(values, 99), "min": min(values),
            "max": max(values), "n": len(values)}


def pair_order(round_index, first, second):
    """The two sides of a comparison in the order of round `round_index`: alternating, so that
    neither side always runs first."""
    return [first, second] if round_index % 2 == 0 else [second, first]


def side_by_side(rounds, measure):
    """Each round's `measure(under_lagmon)` alone and under lagmon, interleaved (`pair_order`):
    a {False: bare, True: under lagmon} per round."""
    for round_index in range(rounds):
        yield {under: measure(under) for under in pair_order(round_index, False, True)}
