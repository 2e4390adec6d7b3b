#!/usr/bin/env python3
"""Splits the flash and RAM of Cortex-M firmware images by origin, from their linker maps.

usage: image_split.py BOARD=ELF [BOARD=ELF ...]

For each image, reads ELF's map (same path, .map instead of .elf, written by the port's
-Wl,-Map) and the ELF's section headers (arm-none-eabi-objdump -h), and prints one markdown
table row per board. Categories (by the input file of each linked input section):
  library       the utvm_* archives (libutvm_framing, _session, _crt, _minrpc, _common, ...)
  port          ports/cortex-m objects: core port, drivers, board, main.c with its buffers
  test library  libutvm_test_syslib.a
  C runtime     libc / libc_nano / libm / libnosys / libgcc and the compiler's crt objects
  other         linker fill (alignment padding)
Flash = sections loaded into a read-only memory region (code, constants, .data initial
values); RAM = allocated sections in a writable region (.data, .bss, .noinit, arenas, stack).
The tensor arena (.utvm_arena) and the stack reserve (.stack_reserve) get their own columns.
"""
import re
import subprocess
import sys

OBJDUMP = "arm-none-eabi-objdump"
CATEGORIES = ("library", "port", "test library", "C runtime", "other")
OUTPUT_SECTION = re.compile(r"^(\.\S+|COMMON)(?:\s+0x([0-9a-f]+)\s+0x([0-9a-f]+))?")
INPUT_SECTION = re.compile(r"^ (\S+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s*(\S*)")
INPUT_CONTINUED = re.compile(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)\s*$")
REGION = re.compile(r"^(\S+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s*(\S*)")
SEPARATE = {".utvm_arena": "tensor arena", ".stack_reserve": "stack"}


def category_of(path):
    """Category of the file an input section comes from ('' for linker fill)."""
    name = path.rsplit("/", 1)[-1]
    if name.startswith("libutvm_test_syslib.a("):
        return "test library"
    if name.startswith("libutvm_"):
        return "library"
    if "utvm_cortex_m_port.dir" in path or "utvm-server.dir" in path:
        return "port"
    if re.match(r"^(libc|libc_nano|libg|libg_nano|libm|libnosys|libgcc)\.a\(", name) or \
            re.match(r"^crt\w*\.o$", name):
        return "C runtime"
    return "other"


def memory_regions(lines):
    """(origin, end, writable) of each region in the map's Memory Configuration."""
    regions = []
    start = lines.index("Memory Configuration")
    for line in lines[start + 1:]:
        if line.startswith("Linker script and memory map"):
            break
        match = REGION.match(line)
        if match and match.group(1) not in ("Name", "*default*"):
            origin, length = int(match.group(2), 16), int(match.group(3), 16)
            regions.append((origin, origin + length, "w" in match.group(4)))
    return regions


def section_placement(elf, regions):
    """{output section: (in_flash, in_ram)} from the ELF's section headers."""
    out = subprocess.run([OBJDUMP, "-h", elf], check=True, capture_output=True, text=True).stdout
    lines = out.splitlines()
    placement = {}
    for i, line in enumerate(lines):
        fields = line.split()
        if len(fields) == 7 and fields[0].isdigit() and i + 1 < len(lines):
            name, vma, lma = fields[1], int(fields[3], 16), int(fields[4], 16)
            flags = lines[i + 1]
            alloc = "ALLOC" in flags
            load = "LOAD" in flags and "CONTENTS" in flags

            def writable(address):
                return next((w for lo, hi, w in regions if lo <= address < hi), None)

            placement[name] = (load and writable(lma) is False, alloc and writable(vma) is True)
    return placement


def split(elf):
    map_path = re.sub(r"\.elf$", "", elf) + ".map"
    lines = open(map_path, encoding="utf-8", errors="replace").read().splitlines()
    placement = section_placement(elf, memory_regions(lines))
    flash = dict.fromkeys(CATEGORIES, 0)
    ram = dict.fromkeys(CATEGORIES + tuple(SEPARATE.values()), 0)
    start = lines.index("Linker script and memory map")
    # Merged string sections: ld lists every merged input section at the blob's address with
    # the blob's size (see bench/size/map_sizes.py), so an entry counts at most up to the next
    # entry of its output section, and only the largest per address.
    entries = []  # (output section, address, size, path)
    largest = {}  # (output section, address) -> (size, path, output section)
    current = None
    pending = False
    for line in lines[start + 1:]:
        if line and not line[0].isspace():
            match = OUTPUT_SECTION.match(line)
            current = match.group(1) if match else None
            pending = False
            continue
        if current is None or current not in placement:
            continue
        match = INPUT_SECTION.match(line)
        if match and match.group(4):
            size, path = int(match.group(3), 16), match.group(4)
        elif match and match.group(1) == "*fill*":
            size, path = int(match.group(3), 16), ""
        else:
            cont = INPUT_CONTINUED.match(line) if pending else None
            stripped = line.strip()
            pending = bool(line.startswith(" ") and " " not in stripped and
                           stripped.startswith((".", "COMMON")))
            if not cont:
                continue
            size, path = int(cont.group(2), 16), cont.group(3)
        pending = False
        if any(placement[current]):
            entries.append((current, int((match or cont).group(2 if match else 1), 16), size,
                            path))
    for section in {entry[0] for entry in entries}:
        addresses = sorted({entry[1] for entry in entries if entry[0] == section})
        following = {a: b for a, b in zip(addresses, addresses[1:])}
        for _, address, size, path in (entry for entry in entries if entry[0] == section):
            if address in following:
                size = min(size, following[address] - address)
            if size > largest.get((section, address), (0,))[0]:
                largest[(section, address)] = (size, path, section)
    for size, path, section in largest.values():
        in_flash, in_ram = placement[section]
        category = category_of(path) if path else "other"
        if in_flash:
            flash[category] += size
        if in_ram:
            ram[SEPARATE.get(section, category)] += size
    totals = (sum(size for name, size in section_sizes(elf, placement, 0)),
              sum(size for name, size in section_sizes(elf, placement, 1)))
    return flash, ram, totals


def section_sizes(elf, placement, which):
    """(name, size) of the output sections in flash (which=0) or RAM (which=1)."""
    out = subprocess.run([OBJDUMP, "-h", elf], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 7 and fields[0].isdigit() and placement.get(fields[1], (0, 0))[which]:
            yield fields[1], int(fields[2], 16)


def main(argv):
    if len(argv) < 2 or any("=" not in arg for arg in argv[1:]):
        sys.stderr.write(__doc__)
        return 2
    print("| board | flash | library | port | test library | C runtime | other "
          "| RAM | library | port | test library | C runtime | tensor arena | stack | other |")
    print("|---|" + "---:|" * 14)
    status = 0
    for arg in argv[1:]:
        board, elf = arg.split("=", 1)
        flash, ram, (flash_total, ram_total) = split(elf)
        if sum(flash.values()) != flash_total or sum(ram.values()) != ram_total:
            sys.stderr.write("image_split.py: %s: categories sum to %d/%d B, sections to %d/%d B\n"
                             % (elf, sum(flash.values()), sum(ram.values()), flash_total,
                                ram_total))
            status = 1
        row = [board, flash_total] + [flash[c] for c in CATEGORIES] + [ram_total] + \
            [ram[c] for c in ("library", "port", "test library", "C runtime", "tensor arena",
                              "stack", "other")]
        print("| " + " | ".join(str(v) for v in row) + " |")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
