#!/usr/bin/env bash
# Models over RPC on QEMU boards (issue 14): for each board and model, the standard RPC
# firmware (build/<board>/bin/utvm-server.elf) runs the model compiled for its kernel functions
# through the graph executor, timed by the device's time evaluator on the executor's run. Under
# qemu-system-arm -icount shift=0 one virtual nanosecond is one instruction, so the time per
# inference in ns is the instruction count per inference. Also: the parameter upload (bytes,
# host wall time over the emulated UART), the device tensor memory the run used against the
# planner's arena for the same model (utvm run on the host), and the AOT image where built.
# Prints a markdown table on stdout.
#
#   bash bench/models_rpc.sh [BUILD_DIR]      (default build; needs build/host/bin/utvm and
#                                              the board presets' utvm-server.elf)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${1:-build}
UTVM=$BUILD/host/bin/utvm
MODELS=${UTVM_SHARED_DIR:-../shared}/models
BOARDS=(mps2-an386 mps3-an547)
NAMES=(kws ic ad micro_speech hello person vww)
declare -A FILE=(
  [person]=person_detect_int8.tflite [kws]=mlperf_tiny_kws_dscnn_int8.tflite
  [vww]=mlperf_tiny_vww_mobilenetv1_int8.tflite [ic]=mlperf_tiny_ic_resnet8_int8.tflite
  [ad]=mlperf_tiny_ad_autoencoder_int8.tflite [micro_speech]=micro_speech_int8.tflite
  [hello]=hello_world_int8.tflite)

echo "## Models over RPC on QEMU boards (graph executor, standard firmware, no reflash)"
echo
echo "| board | model | instructions per inference | parameters uploaded (bytes) | upload time (s, host wall) | device tensor memory (bytes) | planner arena (bytes) |"
echo "|---|---|---:|---:|---:|---:|---:|"
for board in "${BOARDS[@]}"; do
  elf=$BUILD/$board/bin/utvm-server.elf
  [[ -f $elf ]] || { echo "| $board | (no $elf) | | | | | |"; continue; }
  for name in "${NAMES[@]}"; do
    model=$MODELS/${FILE[$name]}
    host_json=$("$UTVM" --json time "$model" --connect "qemu:$board:$elf" --timeout 600 \
                --repeat 1 2>/dev/null || true)
    python3 - "$board" "$name" "$host_json" <<'EOF'
import json, sys
board, name, text = sys.argv[1:4]
try:
    r = json.loads(text)
except ValueError:
    r = {"ok": False}
if not r.get("ok"):
    print("| %s | %s | failed: %s | | | | |" % (board, name, r.get("error", "?")[:80]))
    sys.exit(0)
d = r["device"]
print("| %s | %s | %.0f | %d | %.2f | %d | %d |" % (
    board, name, r["seconds"] * 1e9, d["upload_bytes"], d["upload_seconds"], d["device_bytes"],
    r["arena_bytes"]))
EOF
  done
done
echo
echo "Measured with: utvm --json --connect qemu:BOARD:ELF time MODEL --repeat 1 (time evaluator"
echo "on the graph executor's run; -icount shift=0, so ns = instructions). planner arena = the"
echo "model runner's arena for the same model (what a standalone build needs for activations)."
