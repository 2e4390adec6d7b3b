#!/usr/bin/env bash
# Measures the TFLM images bench/tflm/build.sh linked ($W/tflm-<config>-<model>.elf) under QEMU
# with the instruction-class plugin (bench/qemu/insn_plugin.c: instructions and estimated
# cycles between the harness's bench_begin and bench_end, one inference) and writes the figures
# bench/anchor.sh reads, one line per image, tab-separated:
#   config model instructions cycles library_flash arena bit_exact
# library_flash: flash bytes of TFLM + CMSIS-NN code the image links (input sections from
# libtensorflow-microlite.a in its link map; the model array is not counted).
#
#   W=/work/tflm-cm PLUGIN=build/host/bench/libinsn_plugin.so bash bench/tflm/figures.sh \
#       > bench/tflm/figures.tsv
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
: "${W:?set W to the scratch folder of build.sh}" "${PLUGIN:?set PLUGIN to libinsn_plugin.so}"
PLUGIN=$(realpath "$PLUGIN")

# library_flash <map>: flash bytes (text + rodata + data) of the input sections from
# libtensorflow-microlite.a, by the project's map reader.
library_flash() {
  python3 bench/size/map_sizes.py "$1" libtensorflow-microlite.a | awk '{ print $2 + $3 + $4 }'
}

for config in m4-ref m4-cmsis m55-cmsis; do
  case $config in
    m4-ref | m4-cmsis) board=mps2-an386 core=m4 ;;
    m55-cmsis) board=mps3-an547 core=m55 ;;
  esac
  for model in kws vww ic ad person micro_speech; do
    elf=$W/tflm-$config-$model.elf
    out=$(python3 bench/qemu/plugin_run.py "$PLUGIN" "$board" "$core" "$elf" bench_begin bench_end)
    line=$(grep "^model " <<<"$out")
    read -r instructions cycles < <(awk '$1 == "region" { print $4, $6; exit }' <<<"$out")
    arena=$(sed -n 's/.*arena \([0-9]*\) B.*/\1/p' <<<"$line")
    exact=$(sed -n 's/.*bit-exact \(yes\|no\).*/\1/p' <<<"$line")
    flash=$(library_flash "$W/tflm-$config-$model.map")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$config" "$model" "$instructions" "$cycles" "$flash" \
      "$arena" "$exact"
  done
done
