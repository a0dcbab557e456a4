"""The two commands of `make bench`: measure and render."""
import os
import sys

from . import measure, render
from .common import ROOT
from .knobs import Knobs

USAGE = "usage: scripts/bench measure BIN_DIR [OUT.json] | scripts/bench render [JSON [PAGE.md]]"


def main(argv):
    if not argv or argv[0] not in ("measure", "render"):
        sys.exit(f"bench: {USAGE}")
    command, args = argv[0], argv[1:]
    if command == "measure":
        bin_dir = args[0] if args else ".build/release"
        out = args[1] if len(args) > 1 else os.path.join(ROOT, "docs/benchmarks.json")
        measure.main(Knobs.from_env(bin_dir), out)
    else:
        source = args[0] if args else os.path.join(ROOT, "docs/benchmarks.json")
        page = args[1] if len(args) > 1 else os.path.join(ROOT, "docs/benchmarks.md")
        render.main(source, page)
    return 0
