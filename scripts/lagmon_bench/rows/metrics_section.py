"""The section `metrics` of docs/benchmarks.md: scrapeCost, idleRSS and soak."""
from .. import page
from .metrics import idle_rss_row, scrape_cost_row
from .soak import soak_row


def section(results, body):
    """The section `metrics`: a row for each of scrapeCost, idleRSS and soak in `results`; a row
    the results lack stays as the page has it (measured by an earlier run, or by hand)."""
    renders = (("Scrape cost", "scrapeCost", scrape_cost_row), ("Idle RSS", "idleRSS", idle_rss_row),
               ("Attach soak", "soak", soak_row))
    kept = page.table_rows(body, [name for name, _, _ in renders])
    for name, key, render in renders:
        if key in results:
            _, run, result = render(results[key])
            kept[name] = f"| {name} | {run} | {result} |"
    header = ("Measured by `make bench` (rows `scrapeCost`, `idleRSS`, `soak`); each row says when, with which "
              "build and at what load.")
    return "\n".join([header, "", "| Row | What was run | Result |", "| --- | --- | --- |"]
                     + [kept[name] for name, _, _ in renders if name in kept])
