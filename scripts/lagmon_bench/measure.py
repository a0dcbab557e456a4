"""make bench, measuring step: every selected row measured into docs/benchmarks.json."""
import json
import os
import sys

from . import store
from .rows import ROWS, select


def main(k, out):
    only = [row for row in os.environ.get("LAGMON_BENCH_ONLY", "").split(",") if row]
    unknown = [row for row in only if row not in {r.key for r in ROWS}]
    if unknown:
        sys.exit(f"bench: LAGMON_BENCH_ONLY names unknown rows {', '.join(unknown)}; "
                 f"rows: {', '.join(r.key for r in ROWS)}")
    if os.environ.get("LAGMON_BENCH_FROM"):
        merge_saved(out, os.environ["LAGMON_BENCH_FROM"], os.environ.get("LAGMON_BENCH_MEASURED"))
        return
    rows = select(only)
    # Everything that could fail for want of a tool or a build fails here, before measuring.
    for prepare in dict.fromkeys(row.prepare for row in rows if row.prepare):
        prepare(k)
    results = store.begin(out, only)
    for row in rows:
        results[row.key] = row.measure(k)
        # A line a row, so that a run that fails later keeps what it measured (LAGMON_BENCH_FROM).
        print(json.dumps({row.key: results[row.key]}, sort_keys=True), flush=True)
    store.save(out, results)
    print(f"bench: wrote {out}")


def merge_saved(out, saved, measured):
    """Rows an earlier run printed (a row measured alone on a quiet machine, say) merged into
    `out`; `measured` (LAGMON_BENCH_MEASURED) says when, where the lines do not."""
    lines = store.saved_lines(saved)
    when = measured or lines.pop("measured", None)
    dated = {row.key for row in ROWS if row.dated}
    refused = [key for key in lines if key not in dated]
    if refused:
        sys.exit(f"bench: LAGMON_BENCH_FROM takes rows that say when they were measured ({', '.join(sorted(dated))}), "
                 f"not {', '.join(refused)}; measure those with LAGMON_BENCH_ONLY")
    results = store.load(out)
    for key, value in lines.items():
        if when:
            value["measured"] = when
        results[key] = value
    store.save(out, results)
    print(f"bench: wrote {', '.join(lines)} from {saved} into {out}")
