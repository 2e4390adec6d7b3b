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

# flash_lib <elf> <map>: flash bytes of libtensorflow-microlite.a's input sections (the
# project's map reader, bench/size/map_sizes.py) plus the embedded model (bench_model to
# bench_model_end).
flash_lib() {
  lib=$(python3 "$(dirname "$0")/../size/map_sizes.py" "$2" libtensorflow-microlite.a |
        awk '{ print $2 + $3 + $4 }')
  begin=$(arm-none-eabi-nm "$1" | awk '$3 == "bench_model" { print $1 }')
  end=$(arm-none-eabi-nm "$1" | awk '$3 == "bench_model_end" { print $1 }')
  model=$((0x$end - 0x$begin))
  echo $((lib + model))
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
    lib=$(flash_lib "$elf" "$W/tflm-$c-$m.map")
    echo "| $c | $board | $m | ${instr:-failed: $line} | $arena | ${exact:--} | $flash | $lib |"
  done
done
