#!/usr/bin/env bash
# Boots a utvm Cortex-M firmware image under QEMU with the board's console UART on this
# script's stdin/stdout, for a host tool to spawn (e.g. `exec:scripts/qemu-run.sh mps2-an385`).
#
#   scripts/qemu-run.sh BOARD [ELF]
#
# BOARD: mps2-an385 | mps2-an386 | mps3-an547 | netduinoplus2.
# ELF defaults to build/BOARD/bin/utvm-server.elf (relative to the repository root).
#
# Byte transparency: -serial stdio puts a terminal stdin into raw mode, and a pipe carries
# bytes unchanged in both directions; QEMU's chardev does no translation either way (the
# tests/qemu serial test checks all 256 byte values). -icount shift=0 makes the guest clock
# advance exactly 1 ns per instruction, so timings are deterministic.
# Stopping: QEMU does not exit when its stdin reaches end of file, so this script watches
# stdin itself: when the host closes it (or on SIGTERM/SIGINT/SIGHUP), QEMU is killed and the
# script exits 0. QEMU's own exit status is returned if it ends first.
set -euo pipefail

usage() {
  echo "usage: $0 BOARD [ELF]   (BOARD: mps2-an385 mps2-an386 mps3-an547 netduinoplus2)" >&2
  exit 2
}

[[ $# -ge 1 && $# -le 2 ]] || usage
board=$1
case "$board" in
  mps2-an385 | mps2-an386 | mps3-an547 | netduinoplus2) machine=$board ;;
  *) usage ;;
esac
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
elf=${2:-$root/build/$board/bin/utvm-server.elf}
if [[ ! -f $elf ]]; then
  echo "$0: no firmware image at $elf (build it with: cmake --preset $board && cmake --build --preset $board)" >&2
  exit 2
fi
qemu=${QEMU_SYSTEM_ARM:-qemu-system-arm}

# QEMU reads the serial input from a FIFO that this script feeds from its own stdin, so the
# script sees end of input and can stop QEMU.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/utvm-qemu.XXXXXX")
fifo=$tmp/serial-in
mkfifo "$fifo"
qemu_pid=
cleanup() {
  if [[ -n $qemu_pid ]]; then
    kill "$qemu_pid" 2>/dev/null || true
    wait "$qemu_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 0' TERM INT HUP

"$qemu" -M "$machine" -nographic -monitor none -serial stdio -icount shift=0 \
  -kernel "$elf" <"$fifo" &
qemu_pid=$!

# Copy stdin to the FIFO unbuffered until end of input; holding the FIFO open keeps QEMU's
# input alive while the host is silent.
# (stdin goes through fd 4: a background command's own stdin would be /dev/null.)
exec 3>"$fifo" 4<&0
cat <&4 >&3 &
cat_pid=$!

# Whichever ends first: QEMU (return its status) or the input (stop QEMU, status 0).
status=0
wait -n "$qemu_pid" "$cat_pid" || status=$?
if kill -0 "$qemu_pid" 2>/dev/null; then
  exit 0
fi
qemu_pid=
kill "$cat_pid" 2>/dev/null || true
exit "$status"
