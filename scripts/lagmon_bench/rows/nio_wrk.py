"""SwiftNIO under load: the NIO fixture server driven by wrk alone and under lagmon run, closing
each connection (nioWrk) or keeping it alive (nioWrkKeepAlive)."""
import functools
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

from ..common import run, side_by_side, spread
from ..processes import realtime
from ..tables import fmt, realtime_note
from .swift_jobs import SWIFT_FIXTURES


@functools.cache
def nio_fixture_bin():
    """Builds the release SwiftNIO fixture server (before measuring starts) and returns its bin dir."""
    run(["swift", "build", "-c", "release", "--package-path", SWIFT_FIXTURES, "--product", "lagmon-nio-fixture"])
    return run(["swift", "build", "-c", "release", "--package-path", SWIFT_FIXTURES, "--show-bin-path"]).stdout.strip()


def prepare(k):
    """wrk must be there, and the fixture built, before anything is measured."""
    if not shutil.which("wrk"):
        sys.exit("bench: wrk (Debian package wrk) not found; run scripts/install-deps --bench first")
    nio_fixture_bin()


def wrk_latency_us(text):
    """wrk's `--latency` figure (`812.00us`, `1.20ms`, `2.01s`) in microseconds."""
    for unit, scale in (("us", 1), ("ms", 1e3), ("s", 1e6)):
        if text.endswith(unit):
            return float(text[:-len(unit)]) * scale
    raise ValueError(f"wrk latency {text!r}")


def nio_wrk(k, path="/"):
    """SwiftNIO under load: the NIO fixture server (2 event loops; its answers on `path` close
    their connection, so each request is also a TCP connection, except on /keep, which keeps it
    open: HTTP/1.1 keep-alive, wrk's default) driven by wrk (1 thread, 16 connections,
    LAGMON_BENCH_WRK_SECONDS) alone and under `lagmon run` with default options, interleaved;
    requests/s and p99 latency, each side's and their ratio per round."""
    fixture, seconds = nio_fixture_bin(), k.wrk_seconds
    # Round robin, so that wrk, the server's loops and lagmon share the CPUs among themselves.
    prefix, load = realtime("-r"), os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        def serve(under):
            command = [f"{fixture}/lagmon-nio-fixture"]
            if under:
                command = [f"{k.bin}/lagmon", "run", "--quiet", "--json", os.path.join(tmp, "r.json"), "--"] + command
            server = subprocess.Popen(prefix + command, stdout=subprocess.PIPE, text=True)
            try:
                port = int(server.stdout.readline().strip().split("port=")[1])
                out = run(prefix + ["wrk", "-t1", "-c16", f"-d{seconds}s", "--latency",
                                    f"http://127.0.0.1:{port}{path}"]).stdout
                urllib.request.urlopen(f"http://127.0.0.1:{port}/quit", timeout=30).read()
                server.wait(timeout=60)
            finally:
                server.kill()
                server.wait()
            p99 = next(line.split()[1] for line in out.splitlines() if line.strip().startswith("99%"))
            rps = next(float(line.split()[1]) for line in out.splitlines() if line.startswith("Requests/sec:"))
            return {"rps": rps, "p99Us": wrk_latency_us(p99)}

        rounds = list(side_by_side(k.rounds, serve))
    return {"rounds": len(rounds), "seconds": float(seconds), "realtime": bool(prefix), "path": path,
            "loadAverage": [load, os.getloadavg()[0]],
            "bareRps": spread([r[False]["rps"] for r in rounds]),
            "lagmonRps": spread([r[True]["rps"] for r in rounds]),
            "bareP99Us": spread([r[False]["p99Us"] for r in rounds]),
            "lagmonP99Us": spread([r[True]["p99Us"] for r in rounds]),
            "rpsRatio": spread([r[True]["rps"] / r[False]["rps"] for r in rounds]),
            "p99Ratio": spread([r[True]["p99Us"] / r[False]["p99Us"] for r in rounds])}


def nio_wrk_keep_alive(k):
    """nio_wrk over kept-alive connections: wrk's 16 connections carry every request."""
    return nio_wrk(k, "/keep")


def nio_wrk_row(nw):
    keep = nw.get("path") == "/keep"
    title = "SwiftNIO server under wrk, keep-alive" if keep else "SwiftNIO server under wrk"
    connections = ("`GET /keep`, whose answers keep the connection open (HTTP/1.1 keep-alive, wrk's default), so "
                   "wrk's 16 connections carry every request" if keep else
                   "every answer closes its connection, so each request is a new TCP connection")
    return (f"| {title} | lagmon-nio-fixture (release; 2 event loops; {connections}) under "
            f"`wrk -t1 -c16 -d{nw['seconds']:g}s --latency`, "
            f"alone and under `lagmon run` (default options), {nw['rounds']} interleaved pairs"
            f"{realtime_note(nw).replace('target and both samplers', 'server, lagmon and wrk').replace('-f', '-r')} | requests/s under lagmon over alone {fmt(nw['rpsRatio'])}× (alone "
            f"{fmt(nw['bareRps'], 0)}, under lagmon {fmt(nw['lagmonRps'], 0)}); p99 latency ratio "
            f"{fmt(nw['p99Ratio'])}× (alone {fmt(nw['bareP99Us'], 0)} µs, under lagmon {fmt(nw['lagmonP99Us'], 0)} µs) "
            f"| — |")
