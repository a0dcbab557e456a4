"""JIT-map symbolization: reading node's perf map as the sampler does (jitMap)."""
import json
import os
import shutil
import subprocess
import sys

from ..common import ROOT, run, spread
from ..tables import fmt


def check_node(k):
    """node must be there before anything is measured."""
    if not shutil.which("node"):
        sys.exit("bench: node (Debian package nodejs) not found; run scripts/install-deps first")


def jit_map(k):
    """node compiles LAGMON_BENCH_JIT_FUNCTIONS (10,000) functions with the perf map lagmon turns
    on (JITMaps.nodeOptions); lagmon-bench jitmap reads that map as the sampler does (first read, a
    read with nothing appended, the index, 100,000 lookups of addresses inside its entries), in
    fresh rounds; thread CPU time, medians."""
    functions, rounds = k.jit_functions, 5
    script = os.path.join(ROOT, "Tests/Fixtures/lagmon-node-jit-fixture/many.js")
    env = dict(os.environ, NODE_OPTIONS="--perf-basic-prof-only-functions --interpreted-frames-native-stack")
    load = os.getloadavg()[0]
    node = subprocess.Popen(["node", script, str(functions)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env)
    outs = []
    try:
        line = node.stdout.readline()
        if not line.startswith("ready"):
            raise RuntimeError(f"node many.js exited before ready: {line!r}")
        for _ in range(rounds):
            outs.append(json.loads(run([f"{k.bin}/lagmon-bench", "jitmap", str(node.pid), "100000"]).stdout))
    finally:
        node.kill()
        node.wait()
        map_file = f"/tmp/perf-{node.pid}.map"
        if os.path.exists(map_file):
            os.unlink(map_file)
    return {"node": run(["node", "--version"]).stdout.strip(), "functions": functions, "rounds": rounds,
            "loadAverage": [load, os.getloadavg()[0]], "entries": outs[0]["entries"], "bytes": outs[0]["bytes"],
            "hits": min(o["hits"] for o in outs), "lookups": outs[0]["lookups"],
            "firstReadMs": spread([o["firstReadCpuNs"] / 1e6 for o in outs]),
            "firstReadNsPerEntry": spread([o["firstReadCpuNs"] / o["entries"] for o in outs]),
            "rereadUs": spread([o["rereadCpuNs"] / 1e3 for o in outs]),
            "indexMs": spread([o["indexCpuNs"] / 1e6 for o in outs]),
            "lookupNs": spread([o["lookupCpuNs"] for o in outs])}


def jit_map_row(jm):
    load = " to ".join(f"{value:.1f}" for value in jm["loadAverage"])
    return (f"| JIT-map symbolization | node {jm['node']} compiling {jm['functions']:,} functions "
            f"(Tests/Fixtures/lagmon-node-jit-fixture/many.js) with the perf map lagmon turns on; lagmon-bench jitmap "
            f"reads its map as the sampler does: the whole file, again with nothing appended (what a sample of "
            f"JIT code costs once the map is read), the index built for symbolizing, {jm['lookups']:,} lookups of "
            f"addresses inside its entries; thread CPU time, {jm['rounds']} rounds, load average {load} | "
            f"{jm['entries']:,} entries ({jm['bytes'] / 1e6:.2f} MB): first read {fmt(jm['firstReadMs'], 1)} ms "
            f"({fmt(jm['firstReadNsPerEntry'], 0)} ns an entry); read with nothing appended {fmt(jm['rereadUs'], 1)} µs; "
            f"index {fmt(jm['indexMs'], 1)} ms; lookup {fmt(jm['lookupNs'], 0)} ns ({jm['hits']:,} of "
            f"{jm['lookups']:,} found) | — |")
