"""How the tables write a figure: spreads, micro-benchmark results, counts, row orders."""


def fmt(s, digits=3):
    return f"{s['median']:.{digits}f} ({s['min']:.{digits}f}–{s['max']:.{digits}f}, n={s['n']})"


def fmt99(s, digits=3):
    return f"p50 {s['median']:.{digits}f}, p99 {s['p99']:.{digits}f} (min {s['min']:.{digits}f}, n={s['n']})"


def micro_runs(m, calls="calls"):
    return f"ordo-one/benchmark, {m['iterations']} iterations of {m['callsPerIteration']} {calls}, p50 (p25–p99)"


def micro_result(m):
    return f"{m['p50']:.1f} ns ({m['p25']:.1f}–{m['p99']:.1f})"


def micro_mallocs(m, calls="calls"):
    return f"{m['mallocs']} mallocs in {m['iterations'] * m['callsPerIteration'] / 1e6:g}M {calls}"


def count(n):
    """1000000 as 1M, 200000 as 200k."""
    if n % 1000000 == 0:
        return f"{n // 1000000}M"
    if n % 1000 == 0:
        return f"{n // 1000}k"
    return str(n)


def injected(i):
    """The stalls the demo's truth log says it injected."""
    return f"{i['stalls']} stalls of {i['minMs']:.0f}-{i['maxMs']:.0f} ms"


def ordered(rows, order):
    """`rows` (a JSON object, so its keys come back sorted) in the table's order: `order` first."""
    return sorted(rows.items(), key=lambda item: order.index(item[0]) if item[0] in order else len(order))


def by_number(rows):
    """`rows` keyed by numbers with a unit (`100`, `5ms`), smallest first."""
    return sorted(rows.items(), key=lambda item: float(item[0].rstrip("ms")))


def realtime_note(pf):
    """At what priority a row's processes ran, and the load average from its start to its end."""
    if "realtime" not in pf:
        return ""
    how = "under `chrt -f 20` (target and both samplers)" if pf["realtime"] else "at normal priority"
    load = " to ".join(f"{value:.1f}" for value in pf["loadAverage"])
    return f", {how}, load average {load}"
