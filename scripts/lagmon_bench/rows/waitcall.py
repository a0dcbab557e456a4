"""The wait-call probe: an epoll loop alone and watched (waitcallOverhead), the probe's work per
wait alone (waitcallCost)."""
import json
import os
import tempfile

from .. import micro
from ..common import read_json, run, side_by_side, spread
from ..tables import count, fmt, micro_mallocs, micro_result, micro_runs


def waitcall_overhead(k):
    """Wait-call probe, side by side: a C loop calling epoll_wait with timeout 0 in a tight loop
    (lagmon-loop-fixture bench), alone and under lagmon run (its main thread is then a watched
    loop: every call is a before-waiting and an after-waiting transition), interleaved."""
    calls = 1000000
    bare, probed, added = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        report_path = os.path.join(tmp, "w.json")

        def ns_per_call(under):
            command = [f"{k.bin}/lagmon-loop-fixture", "bench", str(calls)]
            if under:
                command = [f"{k.bin}/lagmon", "run", "--quiet", "--no-cpu", "--json", report_path, "--"] + command
            return json.loads(run(command).stdout.splitlines()[0])["nsPerCall"]

        for ns in side_by_side(k.rounds, ns_per_call):
            loop = read_json(report_path)["loops"][0]
            assert loop["observer"] == "waitcall" and loop["iterations"] >= 5 * calls - 10, loop
            bare.append(ns[False])
            probed.append(ns[True])
            added.append(ns[True] - ns[False])
    return {"rounds": k.rounds, "calls": calls, "bareNsPerCall": spread(bare), "probedNsPerCall": spread(probed),
            "addedNsPerCall": spread(added)}


def waitcall_cost(k):
    """The probe's work per wait alone, in-process: counter clock and both records, beside the
    counter clock read alone (two of them per wait)."""
    wait, clock = micro.benchmark(k, "Wait-call probe per wait"), micro.benchmark(k, "Counter clock read")
    return {"nsPerWait": wait["p50"], "wait": wait, "clock": clock}


def waitcall_rows(w, wc):
    return [
        (f"| Wait-call probe overhead | lagmon-loop-fixture bench: {count(w['calls'])} epoll_wait(timeout 0) calls, best "
        f"of 5 passes; alone vs a watched loop, {w['rounds']} interleaved pairs | +{fmt(w['addedNsPerCall'], 1)} ns "
        f"per wait (bare {w['bareNsPerCall']['median']:.0f} ns, watched {w['probedNsPerCall']['median']:.0f} ns) | "
        "<= 50 ns per wait |"),
        ("| Wait-call probe alone | Benchmarks/Micro `Wait-call probe per wait`: counter clock + before-waiting record "
        "+ counter clock + after-waiting record; beside it `Counter clock read` alone; "
        f"{micro_runs(wc['wait'], 'waits')} | {micro_result(wc['wait'])} per wait; counter clock alone "
        f"{micro_result(wc['clock'])}; {micro_mallocs(wc['wait'], 'waits')} | — |"),
    ]
