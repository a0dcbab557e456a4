"""`python3 -m lagmon_bench` (from scripts/): the same as scripts/bench."""
import sys

from .cli import main

sys.exit(main(sys.argv[1:]))
