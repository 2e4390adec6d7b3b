#!/usr/bin/python3
"""The utvm CLI against Cortex-M firmware in QEMU.

Usage: test_qemu_cli.py <utvm binary> <board> <bin dir of the board build>

readme: README.md's firmware main() (extracted at build time into utvm-readme.elf) boots,
  serves and times a function with a running timer; the same main() without its
  TVMPlatformInitialize call (utvm-readme-no-init.elf) makes timing an error, never 0 us.
image: qemu:BOARD without an ELF works from any working directory.
interrupt: SIGINT and SIGTERM during a call end utvm with 130 / 143 and leave no QEMU behind,
  without QEMU's "terminating on signal" notice.
"""

import json
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import orphans  # noqa: E402

UTVM, BOARD, BIN = sys.argv[1], sys.argv[2], sys.argv[3]


def check(cond, what, proc=None):
    if not cond:
        detail = ""
        if proc is not None:
            detail = "\n  rc=%d\n  stdout=%r\n  stderr=%r" % (proc.returncode, proc.stdout,
                                                            proc.stderr)
        raise AssertionError(what + detail)


def utvm(elf, *args):
    return subprocess.run([UTVM, "--connect", "qemu:%s:%s" % (BOARD, os.path.join(BIN, elf))] +
                          list(args), capture_output=True, text=True, timeout=120)


def case_readme():
    p = utvm("utvm-readme.elf", "--json", "time", "test_busy_wait_us", "i:1000", "--number", "3",
             "--repeat", "2")
    check(p.returncode == 0, "README main() times a function", p)
    d = json.loads(p.stdout)
    check(0.9e-3 < d["mean_s"] < 1.5e-3, "1000 us busy wait measured as %r s" % d["mean_s"])
    p = utvm("utvm-readme.elf", "--json", "info")
    check(p.returncode == 0 and "test_busy_wait_us" in json.loads(p.stdout)["functions"]
          ["system_lib"], "README main() answers info with its functions", p)
    p = utvm("utvm-readme-no-init.elf", "time", "test_sum_ints", "i:1", "--number", "3")
    check(p.returncode == 4 and "timer not running" in p.stderr,
          "without TVMPlatformInitialize timing is an error", p)


def case_image_from_any_directory():
    """qemu:BOARD without an ELF finds the board's image from another working directory (next
    to the tool's own build), and names the places it looked when there is none."""
    p = subprocess.run([UTVM, "--connect", "qemu:" + BOARD, "--json", "info"], cwd="/",
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0 and json.loads(p.stdout)["ok"], "qemu:%s from / works" % BOARD, p)
    p = subprocess.run([UTVM, "--connect", "qemu:no-such-board", "info"], cwd="/",
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 3 and "looked for" in p.stderr and
          "no-such-board/bin/utvm-server.elf" in p.stderr, "a missing image names where", p)


def case_interrupt():
    elf = os.path.join(BIN, "utvm-server.elf")
    for signum, rc in [(signal.SIGINT, 130), (signal.SIGTERM, 143)]:
        err = orphans.interrupt_leaves_no_child(
            [UTVM, "--connect", "qemu:%s:%s" % (BOARD, elf), "call", "test_busy_wait_us",
             "i:5000000"], signum, rc, settle=2.0)
        check("terminating on signal" not in err, "no QEMU signal notice: %r" % err)


def main():
    failed = 0
    for case in [case_readme, case_image_from_any_directory, case_interrupt]:
        try:
            case()
            print("PASS", case.__name__)
        except Exception as e:  # report every failure, not just the first
            failed += 1
            print("FAIL", case.__name__, e)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
