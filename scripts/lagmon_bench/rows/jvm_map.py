"""The JVM's perf-map request: what asking a running JVM for its map costs (jvmMap)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from ..common import ROOT, run, spread
from ..tables import fmt

FIXTURE = os.path.join(ROOT, "Tests/Fixtures/lagmon-java-fixture/PauseProbe.java")


def check_java(k):
    """java, javac and lagmon-bench (which makes the requests) must be there before anything is measured."""
    if not (shutil.which("java") and shutil.which("javac")):
        sys.exit("bench: java/javac (Debian package openjdk-17-jdk-headless) not found; run scripts/install-deps first")
    if not os.access(os.path.join(k.bin, "lagmon-bench"), os.X_OK):
        sys.exit(f"bench: {k.bin}/lagmon-bench not found; the jvmMap row needs the whole release build (make build)")


def _gap(probe):
    """The probe's longest gap between two iterations since the previous call, in ms."""
    probe.stdin.write("\n")
    probe.stdin.flush()
    line = probe.stdout.readline()
    if not line.startswith("maxGapNs="):
        raise RuntimeError(f"PauseProbe: {line!r}")
    return int(line.split("=")[1]) / 1e6


def jvm_map(k):
    """A Java loop timing its own iterations (PauseProbe.java): its longest gap over a quiet window,
    then over `requests` perf-map requests a second apart (lagmon-bench jvmmap: JVMAttach as the
    sampler calls it; the first starts the JVM's attach listener), and each request's wall time."""
    requests, window_s = 5, 5
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as classes:
        run(["javac", "-d", classes, FIXTURE])
        probe = subprocess.Popen(["java", "-cp", classes, "PauseProbe"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
        try:
            pid = int(probe.stdout.readline().strip().split("=")[1])
            if probe.stdout.readline().strip() != "ready":
                raise RuntimeError("PauseProbe exited before ready")
            _gap(probe)
            time.sleep(window_s)
            quiet_ms = _gap(probe)
            out = run([f"{k.bin}/lagmon-bench", "jvmmap", str(pid), str(requests)]).stdout
            during_ms = _gap(probe)
        finally:
            probe.stdin.close()
            probe.wait()
            map_file = f"/tmp/perf-{pid}.map"
            if os.path.exists(map_file):
                os.unlink(map_file)
    figures = json.loads(out)
    wall = [ns / 1e6 for ns in figures["requestWallNs"]]
    return {"java": run(["java", "-version"]).stderr.splitlines()[0], "requests": requests,
            "loadAverage": [load, os.getloadavg()[0]], "entries": figures["entries"],
            "firstRequestMs": wall[0], "laterRequestMs": spread(wall[1:]),
            "quietMaxGapMs": quiet_ms, "requestsMaxGapMs": during_ms, "windowSeconds": window_s}


def jvm_map_row(jm):
    load = " to ".join(f"{value:.1f}" for value in jm["loadAverage"])
    return (f"| JVM perf-map request | {jm['java']}: a Java loop timing its own iterations "
            f"(Tests/Fixtures/lagmon-java-fixture/PauseProbe.java) while lagmon-bench jvmmap asks it for its perf map "
            f"{jm['requests']} times a second apart, as the sampler does (the first request starts the JVM's attach "
            f"listener); wall time of each request, and the loop's longest gap between iterations then and over a "
            f"quiet {jm['windowSeconds']} s before; load average {load} | {jm['entries']:,} entries: first request "
            f"{jm['firstRequestMs']:.1f} ms, later ones {fmt(jm['laterRequestMs'], 1)} ms; the loop's longest gap "
            f"{jm['requestsMaxGapMs']:.2f} ms during the requests, {jm['quietMaxGapMs']:.2f} ms when quiet | — |")
