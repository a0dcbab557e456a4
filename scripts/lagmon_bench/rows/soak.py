"""A compressed-time soak of `lagmon attach --metrics-listen` (soak): LAGMON_SOAK_STALLS stalls of
scripts/soak-target, lagmon's RSS over time, the final counts against the target's own, and every
listed stall lined up against the target's log of its busy periods."""
import bisect
import json
import os
import statistics
import subprocess
import threading
import time
import urllib.request

from ..common import ROOT
from .metrics import (
    free_port,
    is_up,
    measured_when,
    rss_bytes,
    scrape_or_empty,
    stalls_in,
    wait_for,
)


def soak(k):
    """attach --metrics-listen, with no duration, to scripts/soak-target (busy LAGMON_SOAK_STALL_MS
    over a LAGMON_SOAK_THRESHOLD_MS threshold, then waiting LAGMON_SOAK_GAP_MS, LAGMON_SOAK_STALLS
    times; watched every 500 µs): lagmon's RSS every 5 s, then the counts: the target's own, the
    endpoint's once it settled, the report's."""
    stalls = k.soak_stalls
    port, gateway_port = free_port(), free_port()
    # The final metrics (with the stalls counted only at the end) go to a real Pushgateway.
    gateway = subprocess.Popen(["/usr/bin/prometheus-pushgateway", f"--web.listen-address=127.0.0.1:{gateway_port}",
                                "--persistence.file="],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    truth = f"/tmp/lagmon-soak-{os.getpid()}.log"
    target = subprocess.Popen([f"{ROOT}/scripts/soak-target", str(stalls), str(k.soak_stall_ms), str(k.soak_gap_ms),
                               truth], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    target.stdout.readline()
    report = f"/tmp/lagmon-soak-{os.getpid()}.json"
    attach = subprocess.Popen([f"{k.bin}/lagmon", "attach", str(target.pid), "--threshold",
                               f"{k.soak_threshold_ms}ms", "--probe-interval", "500us", "--metrics-listen",
                               f"127.0.0.1:{port}", "--push-gateway", f"http://127.0.0.1:{gateway_port}", "--json",
                               report, "--quiet"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: rss_bytes(attach.pid) > 0 and is_up(port), 30)
    target.stdin.write("go\n")
    target.stdin.flush()
    started, samples, done = time.time(), [], []

    def read_done():
        done.append(target.stdout.readline())
    reader = threading.Thread(target=read_done, daemon=True)
    reader.start()
    while reader.is_alive():
        reader.join(5)
        samples.append((round(time.time() - started), rss_bytes(attach.pid), stalls_in(scrape_or_empty(port))))
    words = done[0].split() if done and done[0].startswith("injected") else []
    injected = int(words[1]) if words else None
    offcpu = int(words[3]) if len(words) > 3 else None
    metrics = settled_stalls(port)
    samples.append((round(time.time() - started), rss_bytes(attach.pid), metrics))
    seconds = round(time.time() - started)
    target.stdin.write("exit\n")
    target.stdin.flush()
    target.wait()
    attach.wait()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{gateway_port}/metrics", timeout=10) as answer:
            pushed = stalls_in(answer.read())
    except OSError:
        pushed = None
    gateway.terminate()
    gateway.wait()
    with open(report) as f:
        counted = json.load(f)
    matched = match_stalls(counted, truth)
    if k.soak_keep:
        # To look into the stalls behind the figures: the report and the target's log stay.
        print(json.dumps({"soakReport": report + ".kept", "soakLog": truth}), flush=True)
        os.replace(report, report + ".kept")
    else:
        os.unlink(truth)
        os.unlink(report)
    return {"stalls": stalls, "injected": injected, "offcpu": offcpu, "seconds": seconds, "pushedStalls": pushed,
            "listedAgainstTruth": matched,
            "watchdog": {key: counted.get("watchdog", {}).get(key) for key in ("lateWakeups", "latenessMaxNs")},
            "rssMB": [(t, r / 1e6, n) for t, r, n in samples], "metricsStalls": metrics,
            "reportStallCount": counted["summary"]["stallCount"], "reportStallsListed": len(counted["stalls"]),
            "reportLoopStallCount": counted["loops"][0]["stallCount"] if counted["loops"] else None,
            "peakRssMB": counted["overhead"]["peakRssBytes"] / 1e6 if "overhead" in counted else None,
            "thresholdMs": k.soak_threshold_ms, "stallMs": k.soak_stall_ms, "gapMs": k.soak_gap_ms,
            "measured": measured_when(k)}


def settled_stalls(port):
    """The endpoint's stall count once it settled: the last stalls reach the metrics once their
    samples are in, so wait until two scrapes 2 s apart agree (at most a minute)."""
    metrics, deadline = stalls_in(scrape_or_empty(port)), time.time() + 60
    while time.time() < deadline:
        time.sleep(2)
        now = stalls_in(scrape_or_empty(port))
        if now == metrics:
            break
        metrics = now
    return metrics


def match_stalls(report, truth):
    """Lines up the report's listed stalls against the target's own log of its busy periods (one
    line each: monotonic begin and end, in ns): a listed stall overlapping exactly one busy period
    is `matched` (with how far its start and its length are from that period's), one overlapping
    none is a `phantom` (lagmon saw a stall the target did not have), one overlapping several
    `spans` them (a wait between them unseen). Only the listed stalls can be checked one by one;
    the totals are compared by the caller. Stalls wholly before the first logged period or after
    the last are the program's start-up or ending (`before`, `after`): busy, but not injected."""
    with open(truth) as f:
        periods = [tuple(int(word) for word in line.split()[:2]) for line in f if line.strip()]
    begins = [begin for begin, _ in periods]
    zero = report["target"]["monotonicStartNs"]
    first_begin, last_end = periods[0][0], periods[-1][1]
    result = {"listed": len(report["stalls"]), "matched": 0, "phantoms": 0, "spans": 0, "before": 0, "after": 0,
              "startErrorMsP50": None, "lengthErrorPctP50": None, "lengthErrorPctMax": None}
    start_errors, length_errors = [], []
    for stall in report["stalls"]:
        start = zero + stall["startNs"]
        end = start + stall["durationNs"]
        # The program's own start and ending (its bookkeeping, the interpreter's exit) are
        # busy periods of their own, outside the logged ones.
        if end <= first_begin:
            result["before"] += 1
            continue
        if start >= last_end:
            result["after"] += 1
            continue
        # Busy periods that begin before the stall's end and end after its start.
        first = max(bisect.bisect_right(begins, start) - 1, 0)
        hits = []
        for index in range(first, len(periods)):
            begin, finish = periods[index]
            if begin >= end:
                break
            if finish > start:
                hits.append(index)
        if not hits:
            result["phantoms"] += 1
        elif len(hits) > 1:
            result["spans"] += 1
        else:
            result["matched"] += 1
            begin, finish = periods[hits[0]]
            start_errors.append(abs(start - begin) / 1e6)
            length_errors.append(abs(stall["durationNs"] - (finish - begin)) / (finish - begin) * 100)
    if start_errors:
        result["startErrorMsP50"] = round(statistics.median(start_errors), 3)
        result["lengthErrorPctP50"] = round(statistics.median(length_errors), 2)
        result["lengthErrorPctMax"] = round(max(length_errors), 2)
    return result


def soak_row(soaked):
    """The table row of soak: (name, what was run, result)."""
    return "Attach soak", _soak_run(soaked), _soak_result(soaked)


def _soak_run(soaked):
    threshold, stall, gap = soaked.get("thresholdMs", 2), soaked.get("stallMs", 4), soaked.get("gapMs", 4)
    return (f"`lagmon attach --threshold {threshold:g}ms --probe-interval 500us --metrics-listen "
            f"--push-gateway` (no duration) on `scripts/soak-target {soaked['stalls']} {stall:g} "
            f"{gap:g} LOG` (a Python loop busy {stall:g} ms on the CPU, then waiting "
            f"{gap:g} ms in select, logging every busy period on CLOCK_MONOTONIC), RSS every 5 s, the "
            f"final metrics from a real Pushgateway, the listed stalls lined up against the log "
            f"({soaked.get('measured', '')})")


def _soak_result(soaked):
    series = [r for _, r, _ in soaked["rssMB"]] or [0]
    truth, watchdog = soaked["listedAgainstTruth"], soaked["watchdog"]
    return (f"{soaked['seconds']} s; **RSS first {series[0]:.1f} MB, {_rss_after(soaked, 10_000)} at 10,000 "
            f"stalls, last {series[-1]:.1f} MB, peak sampled {max(series):.1f} MB** (report's peak "
            f"{soaked['peakRssMB'] or 0:.1f} MB). **Stalls: target {soaked['injected']}, report "
            f"{soaked['reportStallCount']} ({_percent(soaked['reportStallCount'], soaked['injected'])})**, "
            f"{soaked['reportStallsListed']} listed; metrics {soaked['metricsStalls']:.0f} live once settled, "
            f"{soaked['pushedStalls'] or 0:.0f} pushed at the end; the target was off the CPU mid-spin in "
            f"{soaked['offcpu']} busy periods. The {truth['listed']} listed stalls against the target's log: "
            f"{truth['matched']} matched one busy period (start off by {truth['startErrorMsP50']} ms p50, length "
            f"by {truth['lengthErrorPctP50']} % p50 and {truth['lengthErrorPctMax']} % at most: readings every "
            f"500 µs), {truth['phantoms']} lay inside a wait, {truth['spans']} spanned two busy periods"
            + (f", {truth['after']} came after the last (the program's bookkeeping and exit) and {truth['before']} "
               "before the first" if "after" in truth else "") + "; "
            f"watchdog wake-ups past 2 ms: {watchdog['lateWakeups']} (latest "
            f"{(watchdog['latenessMaxNs'] or 0) / 1e6:.1f} ms)")


def _rss_after(soaked, stalls):
    """lagmon's RSS at the first reading once the endpoint counted `stalls` stalls."""
    for _, rss, counted in soaked["rssMB"]:
        if counted >= stalls:
            return f"{rss:.1f} MB"
    return "n/a"


def _percent(count, truth):
    if not count or not truth:
        return "n/a"
    return f"{(count - truth) / truth * 100:+.2f} %"
