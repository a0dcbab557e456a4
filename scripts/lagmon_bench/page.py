"""docs/benchmarks.md's generated parts: sections between `<!-- begin NAME -->` and
`<!-- end NAME -->`, the current tables, ahead of the hand-written `## Method notes`."""
import re
import sys

NOTES = "## Method notes"


def _pattern(name):
    return re.compile(rf"(<!-- begin {re.escape(name)} -->\n)(.*?)(\n<!-- end {re.escape(name)} -->)", re.DOTALL)


def _the_one(text, name):
    matches = list(_pattern(name).finditer(text))
    if len(matches) != 1:
        sys.exit(f"bench: the page needs exactly one <!-- begin {name} --> … <!-- end {name} --> pair")
    return matches[0]


def section_body(text, name):
    """What lies between the markers of section `name` now."""
    return _the_one(text, name).group(2)


def replace_section(text, name, body):
    """`text` with what lies between the markers of section `name` replaced by `body`."""
    match = _the_one(text, name)
    return text[:match.start(2)] + body + text[match.end(2):]


def check_layout(text, names):
    """The current tables first, the method notes after: every section ends before `## Method notes`."""
    notes = text.find(f"\n{NOTES}\n")
    last_end = max(text.index(f"<!-- end {name} -->") for name in names)
    if notes < last_end:
        sys.exit(f"bench: the page needs a `{NOTES}` heading after its last generated section")


def table_rows(body, names):
    """The lines of the table in `body` whose first cell is one of `names`, by name."""
    kept = {}
    for line in body.splitlines():
        cells = line.split(" | ")
        if line.startswith("| ") and len(cells) >= 3 and cells[0][2:] in names:
            kept[cells[0][2:]] = line
    return kept
