#!/usr/bin/python3
"""Checks the instruction classes of bench/qemu/thumb_classes.c against binutils: disassembles
each ELF with arm-none-eabi-objdump, classifies every instruction's encoding with the
thumb_classify command, and compares with the class the mnemonic and operands imply. Prints the
number of instructions checked per class and every disagreement; exit status 1 on any.

Usage: check_classes.py THUMB_CLASSIFY ELF...
"""

import collections
import re
import subprocess
import sys

LINE = re.compile(r"^\s*[0-9a-f]+:\s+([0-9a-f]{4}(?: [0-9a-f]{4})?)\s+(\S+)\s*(.*)$")

DSP = re.compile(r"^(?:[su]|q|sh|uq|uh)(?:add16|sub16|asx|sax|add8|sub8)$|"
                 r"^(?:sxtb16|sxtab16|uxtb16|uxtab16|pkhbt|pkhtb|usad8|usada8)$")
MUL = re.compile(r"^(?:muls?|smul[bt][bt]|smulw[bt]|smuadx?|smusdx?|smmulr?)$")
MAC = re.compile(r"^(?:mla|mls|smla[bt][bt]|smlaw[bt]|smladx?|smlsdx?|smmlar?|smmlsr?)$")
MULL = re.compile(r"^(?:smull|umull)$")
MLAL = re.compile(r"^(?:smlal|umlal|smlal[bt][bt]|smlaldx?|smlsldx?|umaal)$")
OTHER = re.compile(r"^(?:it[te]{0,3}|nop|dmb|dsb|isb|cpsi[de]|mrs|msr|bkpt|svc|udf|wfi|wfe|sev|"
                   r"yield|pld|pli|dls|dlstp(?:\.\d+)?|vctp(?:\.\d+)?|bf|bfx|bfl|bflx|bfcsel)$")
BRANCH = re.compile(r"^(?:b|bl|bx|blx|cbz|cbnz|tbb|tbh|le|letp|wls|wlstp(?:\.\d+)?)$")
MVE_MEM = re.compile(r"^(?:vldr[bhwd]|vstr[bhwd]|vld[24][0-3]|vst[24][0-3])")
CONDITIONS = ("eq", "ne", "cs", "cc", "hs", "lo", "mi", "pl", "vs", "vc", "hi", "ls", "ge", "lt",
              "gt", "le", "al")


def special(m):
    """Whether a scalar mnemonic belongs to a class other than alu."""
    return bool(BRANCH.match(m) or OTHER.match(m) or DSP.match(m) or MUL.match(m) or
                MAC.match(m) or MULL.match(m) or MLAL.match(m) or m in ("sdiv", "udiv") or
                m.startswith(("ldr", "str", "ldm", "stm", "pop", "push")) or
                m in ("mov", "add"))


def base_mnemonic(mnemonic):
    """ldr.w -> ldr; addeq -> add; bne.n -> b: width and condition suffixes dropped (objdump
    writes the condition of instructions in IT blocks into the mnemonic)."""
    if mnemonic.startswith("v"):
        return mnemonic
    m = mnemonic.split(".")[0]
    if m[-2:] in CONDITIONS and special(m[:-2]):
        return m[:-2]
    return m


def expected(mnemonic, operands):
    """The class the disassembly implies, or a tuple of acceptable classes."""
    m = base_mnemonic(mnemonic)
    regs = operands.replace(" ", "")
    if m.startswith("v"):
        name = m.split(".")[0]
        if MVE_MEM.match(name):
            return "mve_mem"
        uses_q = re.search(r"\bq\d", operands) is not None
        if name in ("vldr", "vstr", "vldm", "vstm", "vpush", "vpop", "vldmia", "vstmia",
                    "vldmdb", "vstmdb"):
            return "mve_mem" if uses_q else "fp_mem"
        if name == "vctp":
            return "other"
        if re.match(r"^vps?t[te]*$", name):
            return "mve_alu"  # VPST and VPT with their then/else masks (vpstt, vptte, ...)
        if uses_q or name in ("vpst", "vpt", "vaddv", "vaddva", "vmladav", "vmladava",
                              "vmlav", "vmlava", "vmlaldav", "vmlaldava", "vaddlv", "vaddlva",
                              "vminv", "vmaxv", "vminav", "vmaxav", "vpsel", "vpnot"):
            # moves between lanes and core registers sit in the FP register-transfer space
            return ("mve_alu", "fp_alu") if name == "vmov" else "mve_alu"
        if name in ("vmla", "vmls", "vnmla", "vnmls", "vfma", "vfms", "vfnma", "vfnms"):
            return "fp_mac"
        if name in ("vdiv", "vsqrt"):
            return "fp_div"
        return "fp_alu"
    if BRANCH.match(m):
        return "branch"
    if m in ("pop", "ldm", "ldmia", "ldmfd", "ldmdb", "ldmea"):
        return "branch" if "pc" in regs else "load_multi"
    if m in ("push", "stm", "stmia", "stmea", "stmdb", "stmfd", "strd"):
        return "store_multi"
    if m == "ldrd":
        return "load_multi"
    if m.startswith("ldr"):
        return "branch" if regs.startswith("pc,") else "load"
    if m.startswith("str"):
        return "store"
    if m in ("mov", "add") and regs.startswith("pc,"):
        return "branch"
    if OTHER.match(m):
        return "other"
    if m in ("sdiv", "udiv"):
        return "div"
    for cls, pattern in (("dsp", DSP), ("mul", MUL), ("mac", MAC), ("mull", MULL),
                         ("mlal", MLAL)):
        if pattern.match(m):
            return cls
    return "alu"


def main():
    tool, elves = sys.argv[1], sys.argv[2:]
    checked = collections.Counter()
    wrong = collections.Counter()
    for elf in elves:
        # the architecture from the image's attributes, so that MVE decodes as MVE
        attributes = subprocess.run(["arm-none-eabi-readelf", "-A", elf], capture_output=True,
                                    text=True, check=True).stdout
        arch = ["-m", "armv8.1-m.main"] if "v8.1-M" in attributes else []
        dump = subprocess.run(["arm-none-eabi-objdump", "-d"] + arch + [elf],
                              capture_output=True, text=True, check=True).stdout
        rows = []
        for line in dump.splitlines():
            match = LINE.match(line)
            # data objdump shows as code (strings in an executable section) has a hex word
            # where the mnemonic is, or a directive (.word)
            if match and re.match(r"^[a-z][a-z0-9]*(?:\.[a-z0-9]+)*$", match.group(2)) and \
                    not re.match(r"^[0-9a-f]{4}$", match.group(2)):
                rows.append((match.group(1).strip(), match.group(2), match.group(3)))
        got = subprocess.run([tool], input="\n".join(r[0] for r in rows) + "\n",
                             capture_output=True, text=True, check=True).stdout.split("\n")
        for (encoding, mnemonic, operands), result in zip(rows, got):
            cls = result.split()[0]
            want = expected(mnemonic, operands.split(";")[0].split("@")[0])
            ok = cls in want if isinstance(want, tuple) else cls == want
            checked[cls] += 1
            if not ok:
                wrong[(mnemonic, encoding.split()[0][:2], str(want), cls)] += 1
    total = sum(checked.values())
    print("checked %d instructions in %d images: %s" % (
        total, len(elves), ", ".join("%s %d" % kv for kv in sorted(checked.items()))))
    for (mnemonic, prefix, want, cls), n in sorted(wrong.items(), key=lambda kv: -kv[1]):
        print("MISMATCH %-12s (%s..) expected %-10s got %-10s x%d" % (mnemonic, prefix, want,
                                                                     cls, n))
    if wrong:
        print("FAIL: %d of %d instructions disagree" % (sum(wrong.values()), total))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
