#!/usr/bin/env bash
# Issue 28's table: one inference of each MLPerf Tiny model, person detection and micro_speech
# on the three QEMU cores (-icount shift=0), instructions and estimated cycles
# (bench/qemu/insn_plugin.c and its cycle model, bench/qemu/README.md), for
#   - utvm's graph executor over RPC: the model uploaded to the standard firmware
#     (utvm-server.elf) and timed by `utvm time MODEL --repeat 1`; the plugin counts between
#     the time evaluator's TVMPlatformTimerStart and TVMPlatformTimerStopNs;
#   - utvm's standalone image (utvm-ai-NET.elf: generated C + ai_ API), counted between the
#     two SysTick reads around the inference;
#   - TensorFlow Lite Micro, measured once with the same QEMU, compiler and plugin and kept in
#     bench/tflm/figures.tsv (bench/tflm/README.md has the recipe): reference kernels on M4,
#     + CMSIS-NN on M4 and M55;
# and the ratios against the targets:
#   M3 (mps2-an385, blocked portable C)  vs TFLM reference on M4: >= 3x fewer instructions
#   M4 (mps2-an386, DSP), M55 (mps3-an547, MVE) vs TFLM + CMSIS-NN: <= 0.7x instructions and
#   estimated cycles no higher than CMSIS-NN's.
# Also the flash of kernels + network code of each standalone image (its link map) against
# TFLM + CMSIS-NN's library code for the same model (figures.tsv). Prints markdown tables.
#
#   bash bench/anchor.sh [BUILD_DIR]   (default build: needs BUILD_DIR/host/bin/utvm,
#                                       BUILD_DIR/host/bench/libinsn_plugin.so and the
#                                       mps2-an385, mps2-an386, mps3-an547 images)
# ANCHOR_MODELS and ANCHOR_BOARDS (space-separated) take a subset of the models and boards.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${1:-build}
UTVM=$BUILD/host/bin/utvm
PLUGIN=$PWD/$BUILD/host/bench/libinsn_plugin.so
MODELS=${UTVM_SHARED_DIR:-../shared}/models
FIGURES=bench/tflm/figures.tsv
NAMES=(${ANCHOR_MODELS:-kws vww ic ad person micro_speech})
declare -A FILE=([kws]=mlperf_tiny_kws_dscnn_int8.tflite [vww]=mlperf_tiny_vww_mobilenetv1_int8.tflite
                 [ic]=mlperf_tiny_ic_resnet8_int8.tflite [ad]=mlperf_tiny_ad_autoencoder_int8.tflite
                 [person]=person_detect_int8.tflite [micro_speech]=micro_speech_int8.tflite)
declare -A AI=([kws]=kws [vww]=vww [ic]=ic [ad]=ad [person]=person [micro_speech]=speech)
declare -A CORE=([mps2-an385]=m3 [mps2-an386]=m4 [mps3-an547]=m55)
for f in "$UTVM" "$PLUGIN" "$FIGURES"; do
  [[ -f $f ]] || { echo "bench/anchor.sh: $f not found" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

symbol() { arm-none-eabi-nm "$1" | awk -v s="$2" '$3 == s { print "0x" $1 }'; }

# region_counts <file>: "instructions cycles" of the first region line, or "- -".
region_counts() {
  awk '$1 == "region" { print $4, $6; found = 1; exit } END { if (!found) print "- -" }' "$1"
}

# graph <board> <model>: "instructions cycles" through the RPC firmware's graph executor.
graph() {
  local elf=$BUILD/$1/bin/utvm-server.elf out=$work/graph-$1-$2.txt
  rm -f "$out"
  local begin end
  begin=$(symbol "$elf" TVMPlatformTimerStart)
  end=$(symbol "$elf" TVMPlatformTimerStopNs)
  "$UTVM" --connect "exec:qemu-system-arm -M $1 -nographic -monitor none -serial stdio \
-icount shift=0 -kernel $elf -plugin $PLUGIN,core=${CORE[$1]},begin=$begin,end=$end,out=$out" \
    --timeout 900 time "$MODELS/${FILE[$2]}" --repeat 1 >/dev/null 2>&1 || true
  if [[ -f $out ]]; then region_counts "$out"; else echo "- -"; fi
}

# standalone <board> <model>: "instructions cycles" of the standalone image.
standalone() {
  local elf=$BUILD/$1/bin/utvm-ai-${AI[$2]}.elf out=$work/ai-$1-$2.txt
  python3 bench/qemu/plugin_run.py "$PLUGIN" "$1" "${CORE[$1]}" "$elf" utvm_port_ticks \
    >"$out" 2>/dev/null || true
  region_counts "$out"
}

# flash <board> <model>: kernels + network code of the standalone image: text + rodata of
# libutvm_kernels.a as linked (its map) and of the generated network's code object NET.c
# (parameters, NET_data.c, excluded) (as bench/models_ai.sh).
flash() {
  local net=${AI[$2]}
  local map=$BUILD/$1/bin/utvm-ai-$net.map
  local obj=$BUILD/$1/ports/cortex-m/CMakeFiles/utvm-ai-${net}_ai_${net}.dir/ai/utvm-ai-${net}_${net}/$net.c.obj
  local kernels code
  kernels=$(python3 bench/size/map_sizes.py "$map" libutvm_kernels.a | awk '{ print $2 + $3 }')
  code=$(arm-none-eabi-size "$obj" | awk 'NR > 1 { s += $1 + $2 } END { print s + 0 }')
  echo $((kernels + code))
}

# tflm <config> <model> <column>: a figure of bench/tflm/figures.tsv (columns: config model
# instructions cycles library_flash arena bit_exact).
tflm() { awk -v c="$1" -v m="$2" -v k="$3" '$1 == c && $2 == m { print $k }' "$FIGURES"; }

ratio() {
  python3 -c "import sys; a, b = sys.argv[1:]; print('-' if '-' in (a, b) or not a or not b else '%.2f' % (float(a) / float(b)))" "$1" "$2"
}

for board in ${ANCHOR_BOARDS:-mps2-an385 mps2-an386 mps3-an547}; do
  core=${CORE[$board]}
  case $core in
    m3) ref=m4-ref; target="TFLM reference on M4 / utvm (target >= 3)" ;;
    m4) ref=m4-cmsis; target="utvm / TFLM + CMSIS-NN (target <= 0.7)" ;;
    m55) ref=m55-cmsis; target="utvm / TFLM + CMSIS-NN (target <= 0.7)" ;;
  esac
  echo "### $board ($core): $target"
  echo
  echo "| model | graph executor instr. | cycles | standalone instr. | cycles | TFLM ($ref) instr. | cycles | ratio instr. (graph, standalone) | ratio cycles (graph, standalone) |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  for net in "${NAMES[@]}"; do
    read -r g_i g_c < <(graph "$board" "$net")
    read -r s_i s_c < <(standalone "$board" "$net")
    t_i=$(tflm "$ref" "$net" 3)
    t_c=$(tflm "$ref" "$net" 4)
    if [[ $core == m3 ]]; then
      ri="$(ratio "$t_i" "$g_i"), $(ratio "$t_i" "$s_i")"
      rc="$(ratio "$t_c" "$g_c"), $(ratio "$t_c" "$s_c")"
    else
      ri="$(ratio "$g_i" "$t_i"), $(ratio "$s_i" "$t_i")"
      rc="$(ratio "$g_c" "$t_c"), $(ratio "$s_c" "$t_c")"
    fi
    echo "| $net | $g_i | $g_c | $s_i | $s_c | ${t_i:--} | ${t_c:--} | $ri | $rc |"
  done
  echo
done

echo "### Flash: kernels + network code of the standalone image vs TFLM + CMSIS-NN's library code"
echo
echo "| model | M4 utvm (B) | TFLM + CMSIS-NN M4 (B) | ratio | M55 utvm (B) | TFLM + CMSIS-NN M55 (B) | ratio |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for net in "${NAMES[@]}"; do
  u4=$(flash mps2-an386 "$net")
  u55=$(flash mps3-an547 "$net")
  t4=$(tflm m4-cmsis "$net" 5)
  t55=$(tflm m55-cmsis "$net" 5)
  echo "| $net | $u4 | ${t4:--} | $(ratio "$u4" "$t4") | $u55 | ${t55:--} | $(ratio "$u55" "$t55") |"
done
