"""--metrics-listen: CPU per scrape at 100 loops (scrapeCost; at 16-100 loops: scrapeScaling) and
what the endpoint adds to lagmon attach's idle memory (idleRSS); the helpers the attach soak
(rows/soak.py) shares. rows/metrics_section.py renders the three rows."""
import os
import re
import socket
import statistics
import subprocess
import time
import urllib.request

from ..common import percentile

TICK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def scrape(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        return answer.read()


def scrape_or_empty(port):
    try:
        return scrape(port)
    except OSError:
        return b""


def is_up(port):
    try:
        scrape(port)
        return True
    except OSError:
        return False


def stalls_in(body):
    """The sum of every lagmon_stalls_total series in a scrape."""
    return sum(float(m) for m in re.findall(rb"^lagmon_stalls_total\{[^}]*\} (\S+)$", body, re.MULTILINE))


def wait_for(condition, seconds):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def measured_when(k):
    """When and how a row was measured: the date, the build, the machine's load at the end."""
    build = "release" if "release" in k.bin else "debug" if "debug" in k.bin else k.bin
    return f"{time.strftime('%Y-%m-%d %H:%M')} UTC, {build} build, load average {os.getloadavg()[0]:.1f} at the end"


def scrape_cost(k, loops=100, rounds=3):
    """CPU lagmon spends per scrape: its CPU over LAGMON_BENCH_SCRAPES back-to-back scrapes minus
    its CPU over an equally long quiet window, interleaved `rounds` times."""
    port = free_port()
    run = subprocess.Popen([f"{k.bin}/lagmon", "run", "--quiet", "--loops", "all", "--metrics-listen",
                            f"127.0.0.1:{port}", "--", f"{k.fixture_bin}/lagmon-loop-fixture", "loops", str(loops),
                            "--seconds", "600"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        run.stdout.readline()  # loops ready
        series = re.compile(rb"^lagmon_loop_iterations_total\{", re.MULTILINE)
        wait_for(lambda: len(series.findall(scrape(port))) >= loops, 60)
        body = scrape(port)
        per_scrape, latencies = [], []
        for _ in range(rounds):
            start = time.time()
            before = cpu_seconds(run.pid)
            for _ in range(k.scrapes):
                t = time.perf_counter()
                scrape(port)
                latencies.append(time.perf_counter() - t)
            busy = cpu_seconds(run.pid) - before
            window = time.time() - start
            before = cpu_seconds(run.pid)
            time.sleep(window)
            quiet = cpu_seconds(run.pid) - before
            per_scrape.append((busy - quiet) / k.scrapes)
        return {"loops": len(series.findall(body)), "bytes": len(body), "scrapes": k.scrapes,
                "cpuMsPerScrape": statistics.median(per_scrape) * 1e3,
                "cpuMsPerScrapeRange": [min(per_scrape) * 1e3, max(per_scrape) * 1e3],
                "latencyMsP50": statistics.median(latencies) * 1e3,
                "latencyMsP99": percentile(latencies, 99) * 1e3, "measured": measured_when(k)}
    finally:
        run.kill()
        run.wait()


def scrape_scaling(k):
    """How the scrape cost grows with the loops watched (the channel holds 256 since version 4)."""
    return {"rows": [scrape_cost(k, loops) for loops in (16, 32, 64, 100)], "loadAverage": os.getloadavg()[0],
            "measured": measured_when(k)}


def idle_rss(k, rounds=3, seconds=10):
    """lagmon attach's RSS after `seconds` on an idle demo, without and with --metrics-listen."""
    results = {"without": [], "with": []}
    for _ in range(rounds):
        for mode in ("without", "with"):
            demo = subprocess.Popen([f"{k.bin}/lagmon-demo", "--scenario", "idle", "--seconds", str(seconds + 5)],
                                    stdout=subprocess.PIPE, text=True)
            demo.stdout.readline()
            extra = ["--metrics-listen", f"127.0.0.1:{free_port()}"] if mode == "with" else []
            attach = subprocess.Popen([f"{k.bin}/lagmon", "attach", str(demo.pid), "--quiet"] + extra,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(seconds)
            results[mode].append(rss_bytes(attach.pid))
            attach.send_signal(2)
            attach.wait()
            demo.kill()
            demo.wait()
    return dict({mode: statistics.median(values) / 1e6 for mode, values in results.items()}, measured=measured_when(k))


def scrape_cost_row(cost):
    when = cost.get("measured", "")
    return ("Scrape cost", (f"`lagmon run --loops all --metrics-listen` on `lagmon-loop-fixture loops 100` "
            f"({cost['loops']} loops watched), {cost.get('scrapes', 300)} back-to-back scrapes minus an "
            f"equally long quiet window, 3 rounds ({when})"),
            (f"**{cost['cpuMsPerScrape']:.2f} ms CPU per scrape** (rounds {cost['cpuMsPerScrapeRange'][0]:.2f}–"
             f"{cost['cpuMsPerScrapeRange'][1]:.2f}); answer {cost['bytes'] / 1e3:.1f} KB; latency p50 "
             f"{cost['latencyMsP50']:.2f} ms, p99 {cost['latencyMsP99']:.2f} ms"))


def idle_rss_row(rss):
    return ("Idle RSS", (f"`lagmon attach` on `lagmon-demo --scenario idle`, RSS after 10 s, median of 3 "
                         f"({rss.get('measured', '')})"),
            f"{rss['without']:.1f} MB without `--metrics-listen`, {rss['with']:.1f} MB with it")
