"""make bench, rendering step: docs/benchmarks.json into the sections of docs/benchmarks.md. It
measures nothing: every figure it writes comes from the JSON, and only what lies between a
section's markers is replaced; the current tables come first, the method notes after."""
import os

from . import page, store
from .rows import BENCH_TABLE, SECTIONS


def bench_section(r, _body=None):
    """The section `bench`: the run's header and the table of every row measured."""
    m = r["machine"]
    lines = [
        f"Measured {r['date']} by `make bench` on {m['cpu']}, {m['cores']} cores, Linux {m['kernel']}, {m['swift']}.",
        ("The machine is shared and noisy: every row compares runs interleaved in one session; medians with "
         "(min–max, n)."),
        ("Raw numbers: [benchmarks.json](benchmarks.json). Reproduce: `make bench` (`LAGMON_BENCH_ROUNDS`, "
         "`LAGMON_BENCH_SECONDS`)."),
        "",
        "| Row | What was run | Result | Goal |",
        "| --- | --- | --- | --- |",
    ]
    lines[1:1] = reversed(partial_run_lines(r))  # the latest partial run first
    for render, *keys in BENCH_TABLE:
        if all(key in r for key in keys):
            rows = render(*(r[key] for key in keys))
            lines.extend([rows] if isinstance(rows, str) else rows)
    return "\n".join(lines)


def partial_run_lines(r):
    """One line per day and kernel of partial runs, naming each row measured again then once."""
    again = {}
    for partial in r.get("partialRuns", []):
        rows = again.setdefault((partial["date"], partial["machine"]["kernel"]), [])
        rows.extend(row for row in partial["rows"] if row not in rows)
    return [(f"Rows {', '.join(f'`{row}`' for row in rows)} measured again {date} by scripts/bench with "
             f"`LAGMON_BENCH_ONLY` (Linux {kernel}); the other rows are from the run above.")
            for (date, kernel), rows in again.items()]


def render_page(results, text):
    """`text` (the page) with every generated section rendered from `results`."""
    sections = dict({"bench": bench_section}, **SECTIONS)
    for name, section in sections.items():
        text = page.replace_section(text, name, section(results, page.section_body(text, name)))
    page.check_layout(text, sections)
    return text


def main(source, path):
    results = store.load(source)
    with open(path) as f:
        text = render_page(results, f.read())
    with open(path + ".tmp", "w") as f:
        f.write(text)
    os.replace(path + ".tmp", path)
    print(f"bench: wrote {path} from {source}")
