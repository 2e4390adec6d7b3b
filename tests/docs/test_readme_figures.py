#!/usr/bin/python3
"""README.md keeps no measured figure by hand: every instruction count, per-model byte table or
before/after size comes from a bench script (bench/*.sh) or a test that prints it, and README
points there. Fails on an instruction count ("11871800 instructions", "76.9 to 44.0 million
instructions"), a table whose header has a byte or instruction column ("arena (B)", "(instr.)"),
a size change written as "N -> M B", or "about N KB".

Usage: test_readme_figures.py README.md
"""

import re
import sys

PATTERNS = [
    (re.compile(r"\d[\d,.]*\s+(?:million\s+|M\s+)?instructions", re.I), "an instruction count"),
    (re.compile(r"\d[\d,.]*\s+to\s+\d[\d,.]*\s+million", re.I), "a before/after count"),
    (re.compile(r"\d[\d,]*\s*->\s*\d[\d,]*\s*B\b"), "a before/after size"),
    (re.compile(r"about\s+\d[\d.]*\s*[KM]i?B", re.I), "an approximate size"),
]
MEASURED_COLUMN = re.compile(r"\((?:B|KB|KiB|instr\.?|instructions)\)", re.I)
SEPARATOR = re.compile(r"^\|[\s:|-]+\|\s*$")


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().splitlines()
    found = []
    text = "\n".join(lines)
    for pattern, what in PATTERNS:
        for m in pattern.finditer(re.sub(r"\s+", " ", text)):
            found.append("%s: %r" % (what, m.group(0)))
    for n, (line, below) in enumerate(zip(lines, lines[1:] + [""]), 1):
        if line.startswith("|") and SEPARATOR.match(below) and MEASURED_COLUMN.search(line):
            found.append("line %d: a table of measured figures: %r" % (n, line[:100]))
    for f in found:
        print("FAIL", f)
    if found:
        print("README.md keeps %d hand-kept figure(s): generate them from bench/ or point to the "
              "script that prints them" % len(found))
        return 1
    print("README.md keeps no measured figure by hand")
    return 0


if __name__ == "__main__":
    sys.exit(main())
