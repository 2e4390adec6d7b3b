#!/usr/bin/env bash
# Standalone models (issue 15): the generated-C images utvm-ai-<NET>.elf (ai_main.c) per board,
# instructions per inference under qemu-system-arm -icount shift=0 (the image prints SysTick
# ticks of one ai_run), flash split into the ai_ runtime, the kernels, the network code and the
# parameters, activations against TFLM's arena, and the graph-executor path on the same board
# (`utvm --json --connect qemu:BOARD:utvm-server.elf time MODEL`). Prints a markdown table.
#
#   bash bench/models_ai.sh [BUILD_DIR]     (default build; needs the board presets' images and
#                                            BUILD_DIR/host/bin/utvm)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${1:-build}
UTVM=$BUILD/host/bin/utvm
MODELS=${UTVM_SHARED_DIR:-../shared}/models
declare -A FILE=([kws]=mlperf_tiny_kws_dscnn_int8.tflite [ic]=mlperf_tiny_ic_resnet8_int8.tflite
                 [person]=person_detect_int8.tflite)
# TFLM's arena for each model (shared/models/README.md).
declare -A TFLM=([kws]=24000 [ic]=55712 [person]=85024)

# text + rodata (+ data) bytes of one object file or archive member set.
object_bytes() { arm-none-eabi-size "$@" | awk 'NR > 1 { s += $1 + $2 } END { print s + 0 }'; }

echo "## Standalone models (generated C + ai_ API) on QEMU boards"
echo
echo "| board | model | bit-exact | standalone (instr.) | graph executor (instr.) | image flash (B) | ai_ runtime (B) | kernels (B) | network code (B) | params (B) | activations (B) | IO (B) | TFLM arena (B) | (activations + IO) / TFLM |"
echo "|---|---|:---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for board in mps2-an386 mps3-an547; do
  bin=$BUILD/$board/bin
  for net in kws ic person; do
    elf=$bin/utvm-ai-$net.elf
    [[ -f $elf ]] || { echo "| $board | $net | (no $elf) |"; continue; }
    line=$(timeout 600 python3 tests/qemu/test_qemu_models.py "$board" "$elf" 1 2>/dev/null |
           grep "^model " || true)
    graph=$("$UTVM" --json --connect "qemu:$board:$bin/utvm-server.elf" --timeout 900 \
            time "$MODELS/${FILE[$net]}" --repeat 1 2>/dev/null || true)
    read -r _ ai_text ai_ro _ _ < <(python3 bench/size/map_sizes.py "$bin/utvm-ai-$net.map" \
                                    libutvm_ai.a)
    read -r _ k_text k_ro _ _ < <(python3 bench/size/map_sizes.py "$bin/utvm-ai-$net.map" \
                                  libutvm_kernels.a)
    objdir=$BUILD/$board/ports/cortex-m/CMakeFiles/utvm-ai-${net}_ai_${net}.dir/ai/utvm-ai-${net}_${net}
    code=$(object_bytes "$objdir/$net.c.obj")
    params=$(object_bytes "$objdir/${net}_data.c.obj")
    flash=$(arm-none-eabi-size "$elf" | awk 'NR == 2 { print $1 + $2 }')
    cpu=cortex-m4
    [[ $board == mps3-an547 ]] && cpu=cortex-m55
    report=$("$UTVM" --json compile "$MODELS/${FILE[$net]}" --report --cpu $cpu)
    python3 - "$board" "$net" "$line" "$graph" "$flash" "$((ai_text + ai_ro))" \
        "$((k_text + k_ro))" "$code" "$params" "${TFLM[$net]}" "$report" <<'EOF'
import json, re, sys
board, net, line, graph, flash, ai, kernels, code, params, tflm, report = sys.argv[1:12]
io = json.loads(report)["io_bytes"]
m = re.search(r"activations (\d+) B, params \d+ B, (\d+) instructions, bit-exact (\w+)", line)
try:
    g = json.loads(graph)
except ValueError:
    g = {"ok": False}
act = int(m.group(1)) if m else 0
print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d | %d | %s | %.2f |" % (
    board, net, m.group(3) if m else "failed", m.group(2) if m else "-",
    "%.0f" % (g["seconds"] * 1e9) if g.get("ok") else "-", flash, ai, kernels, code, params, act,
    io, tflm, (act + io) / int(tflm)))
EOF
  done
done
echo
echo "Standalone: utvm-ai-NET.elf prints the SysTick ticks of one ai_run converted to guest"
echo "instructions (-icount shift=0, SysTick resolution). Graph executor: the same model uploaded to"
echo "the standard RPC firmware (bench/models_rpc.sh). Flash: arm-none-eabi-size of the image (text +"
echo "data), the ai_ runtime and kernels as linked (bench/size/map_sizes.py on the map), the network"
echo "code and parameters as the generated objects NET.c and NET_data.c. Activations: the buffer the"
echo "model needs (kernel scratch for the board's core inside; inputs and outputs apart, the default:"
echo "IO is their bytes, in the application's buffers). TFLM's arena holds its inputs and outputs."
