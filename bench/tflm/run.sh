#!/bin/sh
# Runs the TFLM images bench/tflm/build.sh linked ($W/tflm-<config>-<model>.elf) under QEMU, as
# tests/qemu/test_qemu_models.py runs utvm's images (-icount shift=0: one virtual ns per
# instruction), stops each at "models done" and prints a markdown table: instructions and arena
# bytes (the image's own line), bit-exact, flash (text+data, arm-none-eabi-size) and the part of
# it that is TFLM + CMSIS-NN code and the model (from the link map: input sections in flash from
# libtensorflow-microlite.a, plus the embedded model .rodata.bench_model).
#
#   W=/work/tflm-cm bench/tflm/run.sh [config...]
#
# QEMU_EXTRA: extra QEMU arguments appended to the command line (e.g. a -plugin option).
# TIMEOUT:    seconds per image (default 600).
set -eu
: "${W:?set W}"
CONFIGS=${*:-m4-ref m4-cmsis m55-cmsis}
MODELS="kws vww ic ad person micro_speech"

# flash_lib <map>: bytes of flash-resident input sections from libtensorflow-microlite.a plus the
# model's section.
flash_lib() {
  python3 - "$1" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
start = next(i for i, l in enumerate(lines) if l.startswith("Linker script and memory map"))
flash_out = (".text", ".ARM.exidx", ".data")
out, total, pending = None, 0, None
for l in lines[start:]:
    m = re.match(r"^(\.[\w.]+)\s", l) or re.match(r"^(\.[\w.]+)$", l)
    if m and not l.startswith(" "):
        out = m.group(1)
        continue
    if out not in flash_out:
        continue
    m = re.match(r"^ (\S+)\s*$", l)            # an input section name alone on its line
    if m:
        pending = m.group(1)
        continue
    m = re.match(r"^ (\S+)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S.*)$", l)
    if m:
        name = m.group(1) or pending
        pending = None
        size, src = int(m.group(3), 16), m.group(4)
        if "libtensorflow-microlite.a(" in src or (name or "").startswith(".rodata.bench_model"):
            total += size
print(total)
PY
}

echo "| config | board | model | instructions | arena B | bit-exact | flash B (text+data) | of which TFLM+CMSIS-NN+model B |"
echo "|---|---|---|---:|---:|---|---:|---:|"
for c in $CONFIGS; do
  case $c in
    m4-ref|m4-cmsis) board=mps2-an386 ;;
    m55-cmsis)       board=mps3-an547 ;;
    *) echo "unknown configuration $c" >&2; exit 2 ;;
  esac
  for m in $MODELS; do
    elf=$W/tflm-$c-$m.elf
    if [ ! -f "$elf" ]; then
      echo "| $c | $board | $m | not built | | | | |"
      continue
    fi
    # shellcheck disable=SC2086
    line=$(python3 - "${TIMEOUT:-600}" qemu-system-arm -M "$board" -nographic -monitor none \
             -serial stdio -icount shift=0 -semihosting -kernel "$elf" ${QEMU_EXTRA:-} <<'PY'
import subprocess, sys, time
deadline = time.time() + float(sys.argv[1])
proc = subprocess.Popen(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                        stderr=subprocess.DEVNULL, text=True)
found = ""
try:
    for line in proc.stdout:
        line = line.strip()
        sys.stderr.write(line + "\n")
        if line.startswith("model "):
            found = line
        if line.startswith("models done") or time.time() > deadline:
            break
finally:
    proc.kill()
    proc.wait()
print(found)
PY
)
    # model NAME: I instructions, arena A B, bit-exact yes|no
    instr=$(echo "$line" | sed -n 's/.*: \([0-9]*\) instructions.*/\1/p')
    arena=$(echo "$line" | sed -n 's/.*arena \([0-9]*\) B.*/\1/p')
    exact=$(echo "$line" | sed -n 's/.*bit-exact \(yes\|no\).*/\1/p')
    flash=$(arm-none-eabi-size "$elf" | awk 'NR == 2 { print $1 + $2 }')
    lib=$(flash_lib "$W/tflm-$c-$m.map")
    echo "| $c | $board | $m | ${instr:-failed: $line} | $arena | ${exact:--} | $flash | $lib |"
  done
done
