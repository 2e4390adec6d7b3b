#!/usr/bin/env bash
# Issue 16's table: instructions per inference of each MLPerf Tiny model, person detection and
# micro_speech on the three QEMU cores, as `utvm --json --connect qemu:BOARD:ELF time MODEL
# --repeat 1` reports them (the model uploaded to the standard RPC firmware and run by its graph
# executor; -icount shift=0: one virtual ns per instruction), next to TensorFlow Lite Micro's
# anchor figures (the issue's table: the same QEMU, compiler and measurement) and the ratios:
#   M3 (mps2-an385, blocked portable C)  vs TFLM reference on M4 (target: 3x fewer)
#   M4 (mps2-an386, DSP)                 vs TFLM + CMSIS-NN on M4 (target: <= 0.8x)
#   M55 (mps3-an547, MVE)                vs TFLM + CMSIS-NN on M55 (target: <= 0.8x)
# Prints a markdown table.
#
#   bash bench/anchor.sh [BUILD_DIR]     (default build; needs BUILD_DIR/host/bin/utvm and the
#                                         mps2-an385, mps2-an386, mps3-an547 images)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${1:-build}
UTVM=$BUILD/host/bin/utvm
MODELS=${UTVM_SHARED_DIR:-../shared}/models
NAMES=(kws vww ic ad person micro_speech)
declare -A FILE=([kws]=mlperf_tiny_kws_dscnn_int8.tflite [vww]=mlperf_tiny_vww_mobilenetv1_int8.tflite
                 [ic]=mlperf_tiny_ic_resnet8_int8.tflite [ad]=mlperf_tiny_ad_autoencoder_int8.tflite
                 [person]=person_detect_int8.tflite [micro_speech]=micro_speech_int8.tflite)
# The anchor (issue 16): TFLM reference M4, TFLM + CMSIS-NN M4, TFLM reference M55, + CMSIS-NN M55.
declare -A REF_M4=([kws]=43023820 [vww]=100141092 [ic]=107291592 [ad]=1952236 [person]=95592376
                   [micro_speech]=9309080)
declare -A CMSIS_M4=([kws]=7697752 [vww]=24102808 [ic]=29862460 [ad]=583220 [person]=22929280
                     [micro_speech]=1495520)
declare -A CMSIS_M55=([kws]=1814162 [vww]=6559618 [ic]=4914637 [ad]=285878 [person]=6508918
                      [micro_speech]=1018534)

# instructions <board> <model>: one inference, or "-" if the run failed.
instructions() {
  "$UTVM" --json --connect "qemu:$1:$BUILD/$1/bin/utvm-server.elf" --timeout 900 \
    time "$MODELS/${FILE[$2]}" --repeat 1 2>/dev/null |
    python3 -c 'import json, sys
d = json.load(sys.stdin)
print("%.0f" % (d["seconds"] * 1e9) if d.get("ok") else "-")' || echo -
}

ratio() { python3 -c "import sys; print('-' if sys.argv[1] == '-' else '%.2f' % (float(sys.argv[1]) / float(sys.argv[2])))" "$1" "$2"; }

echo "| model | M3 utvm | TFLM ref M4 | ref / M3 (target >= 3) | M4 utvm | CMSIS-NN M4 | M4 / CMSIS-NN (target <= 0.8) | M55 utvm | CMSIS-NN M55 | M55 / CMSIS-NN (target <= 0.8) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for net in "${NAMES[@]}"; do
  m3=$(instructions mps2-an385 "$net")
  m4=$(instructions mps2-an386 "$net")
  m55=$(instructions mps3-an547 "$net")
  ref_ratio=$(python3 -c "import sys; print('-' if sys.argv[1] == '-' else '%.2f' % (float(sys.argv[2]) / float(sys.argv[1])))" "$m3" "${REF_M4[$net]}")
  echo "| $net | $m3 | ${REF_M4[$net]} | $ref_ratio | $m4 | ${CMSIS_M4[$net]} | $(ratio "$m4" "${CMSIS_M4[$net]}") | $m55 | ${CMSIS_M55[$net]} | $(ratio "$m55" "${CMSIS_M55[$net]}") |"
done
