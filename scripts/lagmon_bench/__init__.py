"""lagmon's benchmarks (`make bench`): one data flow, measure -> docs/benchmarks.json -> the tables
of docs/benchmarks.md.

    scripts/bench measure BIN_DIR [OUT.json]     measure every row into OUT.json (docs/benchmarks.json)
    scripts/bench render [JSON [PAGE.md]]        render JSON into PAGE's marked sections
    python3 -m lagmon_bench …                    the same, from scripts/

`measure` compares lagmon side by side with its baselines: every row is a ratio (or a difference)
measured in one run, interleaved, because the machine is shared and noisy (absolute times drift,
interleaved ratios much less). It installs nothing but py-spy's venv: scripts/install-deps --bench
installs the peers it compares with, and one missing stops it before anything is measured.
`render` measures nothing: every figure it writes comes from the JSON, between the page's markers
(`<!-- begin NAME -->` … `<!-- end NAME -->`); the rest of the page stays as written.

Layout: `cli` (the two commands), `measure` and `render` (the two steps), `store` (the JSON, partial
runs merged), `page` (the marked sections), `knobs` (the environment), `common` (run, percentiles,
spreads, interleaved pairs), `processes` (targets started for a row), `micro` and `callgrind` (tools
several rows read), `tables` (cell formatting), and `rows/`, one module per group of rows, each with
its measurements and its table rows; `rows/__init__.py` lists them in measuring and table order.

Environment (all optional):
    LAGMON_BENCH_ONLY=row,row…     measure only these rows (the JSON's keys; `scripts/bench measure`
                                   with an unknown one lists them) into the existing OUT.json,
                                   leaving every other row as it was; `partialRuns` records it.
                                   scrapeScaling (the scrape cost at 16-100 loops) runs only so.
    LAGMON_BENCH_FROM=FILE         measure nothing: merge the JSON lines an earlier `measure`
                                   printed (one `{"row": {…}}` a line) into OUT.json;
                                   LAGMON_BENCH_MEASURED says when they were measured.
    LAGMON_BENCH_ROUNDS (9)        interleaved pairs of the side-by-side rows
    LAGMON_BENCH_SECONDS (2)       seconds per lagmon-hotloop run
    LAGMON_BENCH_SAMPLES (200)     stack samples per pause row
    LAGMON_BENCH_PEER_RUNS (10)    eu-stack runs (gdb: a third as many)
    LAGMON_BENCH_JIT_FUNCTIONS (10000)  functions node compiles for jitMap
    LAGMON_BENCH_WRK_SECONDS (5)   seconds per wrk run (nioWrk, nioWrkKeepAlive)
    LAGMON_BENCH_SCRAPES (300)     back-to-back scrapes per round (scrapeCost)
    LAGMON_FIXTURE_BIN (BIN_DIR)   where lagmon-loop-fixture is (scrapeCost)
    LAGMON_SOAK_STALLS (100000), LAGMON_SOAK_STALL_MS (4), LAGMON_SOAK_GAP_MS (4),
    LAGMON_SOAK_THRESHOLD_MS (2)   the attach soak's target and threshold
    LAGMON_SOAK_KEEP               keep the soak's report and the target's log
    LAGMON_BENCH_PYTHON (/usr/bin/python3)  the Python py-spy's venv and programs use
    LAGMON_BENCH_PYSPY_RUNS (3)    runs per py-spy side-by-side row
    LAGMON_BENCH_DYNAMIC (.build/dynamic/release/lagmon)  the dynamically linked lagmon of `startup`
"""
