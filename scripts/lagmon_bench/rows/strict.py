"""StrictMode: the preload shim's wrapper off a loop thread and the record of a counted call (strictCost)."""
from .. import micro
from ..common import today
from ..tables import micro_mallocs, micro_result, micro_runs


def strict_cost(k):
    """An intercepted call off a loop thread (the preload shim's getaddrinfo wrapper with arguments
    libc rejects at once), beside the same call straight to libc; and the record a counted call on
    a loop thread makes."""
    wrapper = micro.benchmark(k, "Strict wrapper off the loop thread")
    alone = micro.benchmark(k, "getaddrinfo alone")
    record = micro.benchmark(k, "Strict record")
    return {"addedNsPerCall": wrapper["p50"] - alone["p50"], "wrapper": wrapper, "alone": alone, "record": record,
            "date": today()}


def strict_rows(s):
    return [
        (f"| StrictMode wrapper off the loop thread | Benchmarks/Micro `Strict wrapper off the loop thread`: the preload "
        "shim's getaddrinfo wrapper (dlopened) on a thread that runs no loop, with arguments libc rejects at once, "
        f"beside `getaddrinfo alone` (straight to libc); {micro_runs(s['wrapper'])}; measured {s['date']} | "
        f"+{s['addedNsPerCall']:.1f} ns per call ({micro_result(s['wrapper'])} wrapped, {micro_result(s['alone'])} "
        f"alone); {micro_mallocs(s['wrapper'])} | <= 30 ns per call |"),
        ("| StrictMode record | Benchmarks/Micro `Strict record`: lagmon_strict_record into a slot, 8 call sites in "
        f"turn (a counted call on a loop thread also reads the counter clock twice); {micro_runs(s['record'])}; "
        f"measured {s['date']} | {micro_result(s['record'])} per call; {micro_mallocs(s['record'])} | — |"),
    ]
