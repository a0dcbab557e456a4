"""Start-up: the release binary (Swift runtime linked in) beside one loading the toolchain's Swift
libraries (startup)."""
import os
import subprocess
import sys
import tempfile
import time

from ..common import ROOT, run, spread
from ..tables import fmt


def dynamic_binary():
    """The dynamically linked lagmon: LAGMON_BENCH_DYNAMIC, or where make bench builds it."""
    return os.environ.get("LAGMON_BENCH_DYNAMIC", os.path.join(ROOT, ".build/dynamic/release/lagmon"))


def prepare(k):
    """The dynamic build must be there before anything is measured."""
    if not os.access(dynamic_binary(), os.X_OK):
        sys.exit(f"bench: no dynamically linked lagmon at {dynamic_binary()}; make bench builds it "
                 "(or set LAGMON_BENCH_DYNAMIC)")


def startup(k):
    """Size, and wall time of `lagmon --version` and of `lagmon run -- true` (start, spawn, probe
    load, report), static and dynamic in interleaved pairs; both use the release build's probe."""
    dynamic = dynamic_binary()
    pairs = k.rounds * 5
    with tempfile.TemporaryDirectory() as tmp:
        static = os.path.join(tmp, "lagmon")
        run(["objcopy", "--strip-all", f"{k.bin}/lagmon", static])
        env = dict(os.environ, LAGMON_PRELOAD_LIBRARY=os.path.abspath(f"{k.bin}/libLagmonPreload.so"))
        builds = {"static": static, "dynamic": dynamic}
        commands = {"version": ["--version"], "runTrue": ["run", "--quiet", "--", "/bin/true"]}
        walls = {(b, c): [] for b in builds for c in commands}
        for _ in range(pairs):
            for command, arguments in commands.items():
                for build, path in builds.items():
                    start = time.monotonic()
                    subprocess.run([path, *arguments], env=env, capture_output=True, timeout=60, check=True)
                    walls[(build, command)].append((time.monotonic() - start) * 1e3)
        libraries = len([line for line in run(["ldd", dynamic]).stdout.splitlines() if "swift" in line.lower()])
        stripped_bytes = os.path.getsize(static)  # the stripped copy goes with the temporary folder
    return {"pairs": pairs, "swiftLibrariesLoadedByDynamic": libraries,
            "staticBytes": os.path.getsize(f"{k.bin}/lagmon"), "staticStrippedBytes": stripped_bytes,
            "dynamicBytes": os.path.getsize(dynamic),
            **{f"{b}{c[0].upper()}{c[1:]}Ms": spread(v) for (b, c), v in walls.items()}}


def startup_row(st):
    mb = 1024 * 1024
    return (f"| Start-up, static vs dynamic | the release binary (Swift runtime linked in, stripped as installed) "
            f"and a build loading the toolchain's {st['swiftLibrariesLoadedByDynamic']} Swift libraries; "
            f"`lagmon --version` and `lagmon run --quiet -- /bin/true`, {st['pairs']} interleaved pairs (ms) | "
            f"size {st['staticStrippedBytes'] / mb:.1f} MB stripped ({st['staticBytes'] / mb:.1f} MB unstripped) vs "
            f"{st['dynamicBytes'] / mb:.1f} MB; --version {fmt(st['staticVersionMs'], 1)} vs "
            f"{fmt(st['dynamicVersionMs'], 1)}; run -- true {fmt(st['staticRunTrueMs'], 1)} vs "
            f"{fmt(st['dynamicRunTrueMs'], 1)} | no slower to start |")
