#!/usr/bin/env bash
# Models over RPC on QEMU boards (issue 14). For each board and model:
#   - graph executor: the standard RPC firmware (build/<board>/bin/utvm-server.elf) runs the
#     model compiled for its kernel functions, timed by the device's time evaluator on the
#     executor's run (`utvm --json --connect qemu:BOARD:ELF time MODEL --repeat 1`);
#   - AOT (KWS only): utvm-server-aot.elf, the firmware with KWS's AOT archive built in
#     (`... time MODEL --executor aot`);
#   - standalone: utvm-model-test.elf, the model runner in firmware with no link at all
#     (tests/qemu/test_qemu_models.py prints its instruction counts).
# Under qemu-system-arm -icount shift=0 one virtual nanosecond is one instruction, so the time
# per inference in ns is the instruction count. Also: the parameters uploaded (bytes and host
# wall time over the emulated UART), the device tensor memory the graph executor used against
# the planner's arena + runner workspace for the same model, and the flash the executors and
# kernel functions add (arm-none-eabi-size of their archives). Prints markdown tables.
#
#   bash bench/models_rpc.sh [BUILD_DIR]      (default build; needs BUILD_DIR/host/bin/utvm and
#                                              the board presets' images)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${1:-build}
UTVM=$BUILD/host/bin/utvm
MODELS=${UTVM_SHARED_DIR:-../shared}/models
BOARDS=(mps2-an386 mps3-an547)
NAMES=(hello ad micro_speech kws ic person vww)
declare -A FILE=(
  [person]=person_detect_int8.tflite [kws]=mlperf_tiny_kws_dscnn_int8.tflite
  [vww]=mlperf_tiny_vww_mobilenetv1_int8.tflite [ic]=mlperf_tiny_ic_resnet8_int8.tflite
  [ad]=mlperf_tiny_ad_autoencoder_int8.tflite [micro_speech]=micro_speech_int8.tflite
  [hello]=hello_world_int8.tflite)
# Names of the models in utvm-model-test.elf's output.
declare -A STANDALONE=(
  [person]=person_detect [kws]=kws_dscnn [vww]=vww_mobilenetv1 [ic]=ic_resnet8
  [ad]=ad_autoencoder [micro_speech]=micro_speech [hello]=hello_world)

echo "## Models over RPC on QEMU boards: instructions per inference and memory"
echo
echo "| board | model | graph executor (instr.) | AOT (instr.) | standalone (instr.) | parameters uploaded (B) | upload (s, host wall) | graph executor tensor memory (B) | planner arena + workspace (B) |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for board in "${BOARDS[@]}"; do
  bin=$BUILD/$board/bin
  standalone=$(timeout 900 python3 tests/qemu/test_qemu_models.py "$board" \
               "$bin/utvm-model-test.elf" 1 2>/dev/null || true)
  for name in "${NAMES[@]}"; do
    model=$MODELS/${FILE[$name]}
    graph_json=$("$UTVM" --json --connect "qemu:$board:$bin/utvm-server.elf" --timeout 900 \
                 time "$model" --repeat 1 2>/dev/null || true)
    aot_json=""
    if [[ $name == kws && -f $bin/utvm-server-aot.elf ]]; then
      aot_json=$("$UTVM" --json --connect "qemu:$board:$bin/utvm-server-aot.elf" --timeout 900 \
                 time "$model" --executor aot --repeat 1 2>/dev/null || true)
    fi
    python3 - "$board" "$name" "${STANDALONE[$name]}" "$graph_json" "$aot_json" \
        "$standalone" <<'EOF'
import json, re, sys
board, name, standalone_name, graph_text, aot_text, standalone_text = sys.argv[1:7]

def load(text):
    try:
        return json.loads(text)
    except ValueError:
        return {"ok": False}

g, a = load(graph_text), load(aot_text)
m = re.search(r"model %s: .*?arena (\d+) B, workspace (\d+) B, (\d+) instructions, bit-exact (\w+)"
              % re.escape(standalone_name), standalone_text)
standalone = "%s%s" % (m.group(3), "" if m.group(4) == "yes" else " (NOT bit-exact)") if m else "-"
planner = "%d" % (int(m.group(1)) + int(m.group(2))) if m else "-"
aot = "%.0f" % (a["seconds"] * 1e9) if a.get("ok") else "-"
if not g.get("ok"):
    print("| %s | %s | failed: %s | %s | %s | | | | %s |" % (
        board, name, g.get("error", "?")[:60], aot, standalone, planner))
else:
    d = g["device"]
    print("| %s | %s | %.0f | %s | %s | %d | %.2f | %d | %s |" % (
        board, name, g["seconds"] * 1e9, aot, standalone, d["upload_bytes"], d["upload_seconds"],
        d["device_bytes"], planner))
EOF
  done
done
echo
echo "Graph executor and AOT: \`utvm --json --connect qemu:BOARD:ELF time MODEL --repeat 1 [--executor aot]\`"
echo "(the time evaluator on the executor's run; -icount shift=0, so ns = instructions). Standalone:"
echo "utvm-model-test.elf's SysTick count per inference. Uploaded bytes include the graph JSON when it"
echo "travels as a tensor. Graph executor tensor memory: what tvm.graph_executor.create allocates"
echo "(the executor, its tables, the parameters and its planned storage block, sized by the"
echo "device's own code run on the host, whose tables are at least a 32-bit device's) plus the JSON,"
echo "page-rounded, as \`utvm run\` checks it against the device's free memory; planner arena +"
echo "workspace: what the standalone runner needs for the same model (its constants stay in flash)."
echo
echo "## Flash of the model path (cortex-m4, arm-none-eabi-gcc, archive totals before --gc-sections)"
echo
echo "| library | text + data (B) |"
echo "|---|---:|"
for lib in graph aot kfuncs kernels runner model; do
  a=$BUILD/cortex-m4/src/$lib/libutvm_$lib.a
  if [[ -f $a ]]; then
    total=$(arm-none-eabi-size -t "$a" | awk 'END {print $1 + $2}')
    echo "| utvm_$lib | $total |"
  fi
done
echo
echo "utvm_runner holds the op-params format the kernel functions decode (src/runner/op_params.c)"
echo "besides the runner; a firmware links only the objects it uses."
