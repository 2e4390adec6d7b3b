#!/usr/bin/env python3
"""Sums the linked input sections of chosen archives in a GNU ld map file.

usage: map_sizes.py <map file> <archive>...

Prints one line per archive, "<archive> <text> <rodata> <data> <bss>" (bytes of the
sections that survived --gc-sections, read from the "Linker script and memory map" part of
the map). .ARM.exidx/.ARM.extab count as rodata.

Merged string sections (.rodata.*.str1.*) confuse the map: ld lists every input section
that was merged into one blob at the blob's address, each with the blob's size, and such a
phantom entry can share its address with the next real section. So an entry counts at most
up to the next entry's address, and at each address only one entry counts: a section that is
not a merged string section if there is one (the phantom may be larger than the real section
and come from another archive), else the largest.
"""
import re
import sys

INPUT_SECTION = re.compile(r"^ (\S+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)")
INPUT_CONTINUED = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)")
ARCHIVE_MEMBER = re.compile(r"^(\S+)\((\S+)\)$")


def kind_of(section):
    if section.startswith(".text"):
        return "text"
    if section.startswith((".rodata", ".ARM.exidx", ".ARM.extab")):
        return "rodata"
    if section.startswith(".data"):
        return "data"
    if section.startswith(".bss") or section == "COMMON":
        return "bss"
    return None


def is_merged_string(section):
    return ".str" in section


def archive_of(path):
    match = ARCHIVE_MEMBER.match(path)
    return (match.group(1).rsplit("/", 1)[-1], match.group(2)) if match else (None, None)


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    wanted = argv[2:]
    totals = {name: {"text": 0, "rodata": 0, "data": 0, "bss": 0} for name in wanted}
    lines = open(argv[1], encoding="utf-8", errors="replace").read().splitlines()

    start = next(i for i, line in enumerate(lines) if line.startswith("Linker script and memory map"))
    pending_section = None
    entries = []  # (address, size, section, path) of every counted input section
    largest = {}  # address -> (rank, size, section, path) of the entry that counts there
    for line in lines[start:]:
        match = INPUT_SECTION.match(line)
        if match:
            section, address, size, path = (match.group(1), int(match.group(2), 16),
                                            int(match.group(3), 16), match.group(4))
            pending_section = None
        else:
            cont = INPUT_CONTINUED.match(line)
            if cont and pending_section:
                section, address, size, path = (pending_section, int(cont.group(1), 16),
                                                int(cont.group(2), 16), cont.group(3))
                pending_section = None
            else:
                stripped = line.strip()
                pending_section = stripped if (line.startswith(" ") and " " not in stripped
                                               and stripped.startswith((".", "COMMON"))) else None
                continue
        if kind_of(section) and size > 0:
            entries.append((address, size, section, path))

    addresses = sorted({entry[0] for entry in entries})
    following = {a: b for a, b in zip(addresses, addresses[1:])}
    for address, size, section, path in entries:
        if address in following:
            size = min(size, following[address] - address)
        rank = (not is_merged_string(section), size)
        if address not in largest or rank > largest[address][0]:
            largest[address] = (rank, size, section, path)

    for _, size, section, path in largest.values():
        archive, _ = archive_of(path)
        if archive in totals:
            totals[archive][kind_of(section)] += size

    for name in wanted:
        t = totals[name]
        print(f"{name} {t['text']} {t['rodata']} {t['data']} {t['bss']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
