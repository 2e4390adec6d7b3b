#!/usr/bin/env bash
# The utvm demo (README command 1): builds the host tools and the mps2-an385 (Cortex-M3)
# firmware, boots the firmware in qemu-system-arm and drives it over its emulated UART with
# the `utvm` CLI: device info, echo, a tensor round trip, test_add_f32 checked against the
# host's own sum, a time evaluation and a link benchmark; then runs the shipped int8 models on
# the board's core (utvm-model-test.elf), KWS on the host with `utvm run`, and KWS on the
# board's standard RPC firmware (`utvm --connect ... run`: graph executor, no reflash), each
# checked against TensorFlow Lite Micro's outputs.
#
#   bash scripts/demo.sh            (UTVM_DEMO_BOARD=mps3-an547 etc. for another board)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BOARD=${UTVM_DEMO_BOARD:-mps2-an385}
PACKAGES=(cmake make gcc gcc-arm-none-eabi libnewlib-arm-none-eabi libdlpack-dev libcmocka-dev python3
          qemu-system-arm)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "demo: missing Debian packages: ${missing[*]} (run as root, or apt-get install them)" >&2
    exit 1
  fi
  echo "==> installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "==> building the $BOARD firmware and the host tools"
cmake --preset "$BOARD" >/dev/null
cmake --build --preset "$BOARD" -j 2 2>&1 | grep -E "flash .* RAM" || true
cmake --preset host >/dev/null
cmake --build --preset host -j 2 --target utvm >/dev/null

UTVM=build/host/bin/utvm
ELF=build/$BOARD/bin/utvm-server.elf
export UTVM_CONNECT="qemu:$BOARD:$ELF"

# Runs the CLI against a freshly booted QEMU (the host kills QEMU at the end of each command).
utvm() {
  "$UTVM" "$@"
}

step() { printf '\n==> %s\n' "$*"; }

step "device info ($UTVM_CONNECT)"
utvm info

step "echo: an int, a float, a string and bytes round-trip through the device"
utvm call test_echo i:42
utvm call test_echo f:2.5
utvm call test_echo s:hello-from-the-host
utvm call test_echo x:00ff7f80fffe

step "tensor round trip: test_add_f32(a, b, out) on device tensors, checked on the host"
json=$(utvm --json call test_add_f32 "t:float32:[1.5,-2,3.25,1000]" "t:float32:[10,20,30,-0.5]" \
             "t:float32:#4")
python3 - "$json" <<'EOF'
import json, sys
r = json.loads(sys.argv[1])
a, b, out = (t["data"] for t in r["tensors"])
expected = [x + y for x, y in zip(a, b)]
print("a        ", a)
print("b        ", b)
print("device   ", out)
print("host a+b ", expected)
if out != expected:
    sys.exit("demo: the device's sum differs from the host's")
print("device result matches the host's sum")
EOF

step "time evaluator: test_busy_wait_us(1000), 10 calls per measurement, 3 measurements"
utvm time test_busy_wait_us i:1000 --number 10 --repeat 3

step "link benchmark over the emulated UART"
utvm bench --max-size 65536

MODELS=${UTVM_SHARED_DIR:-../shared}/models
step "int8 models on the $BOARD's core: shared/models built into utvm-model-test.elf, run with the portable kernels and compared with TensorFlow Lite Micro's outputs (instructions under -icount)"
python3 tests/qemu/test_qemu_models.py "$BOARD" "build/$BOARD/bin/utvm-model-test.elf" 5

step "the same KWS model on the host: utvm run, output checked against TFLM's"
"$UTVM" run "$MODELS/mlperf_tiny_kws_dscnn_int8.tflite" \
  --input "$MODELS/refdata/mlperf_tiny/kws_input0_int8.bin" --output build/demo-kws.out.bin
cmp build/demo-kws.out.bin "$MODELS/refdata/mlperf_tiny/kws_input0_int8_tflm.out0.bin"
echo "utvm run output is bit-exact with TFLM's"

step "keyword spotting on the emulated $BOARD with no new firmware: the model compiled for the device's kernel functions, run by its graph executor over the UART; the answer and the time per inference (-icount virtual time)"
utvm --connect "$UTVM_CONNECT" run "$MODELS/mlperf_tiny_kws_dscnn_int8.tflite" \
  --input "$MODELS/refdata/mlperf_tiny/kws_input0_int8.bin" --output build/demo-kws-board.out.bin \
  --labels down,go,left,no,off,on,right,stop,up,yes,silence,unknown
cmp build/demo-kws-board.out.bin "$MODELS/refdata/mlperf_tiny/kws_input0_int8_tflm.out0.bin"
echo "the board's output is bit-exact with TFLM's"

printf '\n==> demo finished\n'
