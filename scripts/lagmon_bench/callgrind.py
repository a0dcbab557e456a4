"""callgrind: instructions counted whatever the machine's load (the *Instructions rows)."""
import os
import shutil

from .common import run


def function_name(text):
    """`???:name [object]` or `file:name [object]`, as callgrind_annotate prints it: the name."""
    return text.strip().split(" [")[0].split(":", 1)[-1]


def _number(text):
    return int(text.replace(",", ""))


def counts(out_file):
    """From a callgrind profile: the program's instructions, per function its own (self)
    instructions, and per (caller, callee) the calls and the callee's inclusive instructions."""
    flat = run(["callgrind_annotate", "--inclusive=no", "--threshold=100", out_file]).stdout
    tree = run(["callgrind_annotate", "--inclusive=yes", "--tree=calling", "--threshold=100", out_file]).stdout
    total, own = 0, {}
    for line in flat.splitlines():
        fields = line.split()
        if len(fields) < 3 or not fields[0].replace(",", "").isdigit():
            continue
        if "PROGRAM TOTALS" in line:
            total = _number(fields[0])
        else:
            own[function_name(line.split(")", 1)[1])] = _number(fields[0])
    calls, caller = {}, None
    for line in tree.splitlines():
        if "*  " in line:
            caller = function_name(line.split("*  ", 1)[1])
        elif ">   " in line and caller is not None:
            callee, rest = line.split(">   ", 1)[1].split(" (", 1)
            count = rest.split("x)", 1)[0].replace(",", "")
            if count.isdigit():
                calls[(caller, function_name(callee))] = (int(count), _number(line.split()[0]))
    return total, own, calls


def lagmon_without_debug_info(k, tmp):
    """lagmon copied into `tmp` beside a copy of its probe without debug information (the code is
    the same): valgrind 3.19 cannot read the DWARF 5 that clang writes. Returns that lagmon."""
    shutil.copy(f"{k.bin}/lagmon", tmp)
    run(["strip", "--strip-debug", "-o", os.path.join(tmp, "libLagmonPreload.so"), f"{k.bin}/libLagmonPreload.so"])
    return os.path.join(tmp, "lagmon")


def object_instructions(out_file, name):
    """From a callgrind profile: the instructions of the functions of the object file `name` (their
    own, not what they call), lagmon's preload say."""
    flat = run(["callgrind_annotate", "--inclusive=no", "--threshold=100", out_file]).stdout
    return sum(_number(line.split()[0]) for line in flat.splitlines()
               if line.rstrip().endswith(f"/{name}]") and line.split()[0].replace(",", "").isdigit())


def under_lagmon(lagmon, command, report=None):
    """`command` under `lagmon run` with nothing to report (threshold 60 s, no CPU sampler); with
    `report`, its JSON report there (which loops it watched)."""
    json = ["--json", report] if report else []
    return [lagmon, "run", "--quiet", "--no-cpu", "--threshold", "60s"] + json + ["--"] + command
