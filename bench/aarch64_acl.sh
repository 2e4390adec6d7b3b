#!/usr/bin/env bash
# Instructions per inference on aarch64 under qemu-user, the runner's float32 kernels against
# the runner with the Arm Compute Library offload (issue 30 item 6), for kws_dscnn_f32 and
# hello_world_float (tests/data/tflm_float). `utvm run` built with ACL (preset
# aarch64-linux-acl) runs under qemu-aarch64 with the instruction-count TCG plugin
# (bench/qemu/insn_plugin.c: without markers it counts every instruction of the process; its
# Thumb classes mean nothing for A64, only the total is used). One inference is isolated as
# (count of --number N+1 inferences - count of --number 1) / N, so reading the model,
# planning, ACL's configure and the first run's one-time work cancel out. ACL runs
# single-threaded (--acl-threads 1: every instruction is on one vCPU).
#
#   bash bench/aarch64_acl.sh [N]   (default N 10; needs build/aarch64-linux-acl/bin/utvm and
#                                    build/host/bench/libinsn_plugin.so, built if missing)
#
# qemu-user instruction counts are not hardware speed: they count guest instructions, not
# cycles, and say nothing of NEON throughput, caches or memory on a real Cortex-A.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
N=${1:-10}
UTVM=build/aarch64-linux-acl/bin/utvm
PLUGIN=$PWD/build/host/bench/libinsn_plugin.so
DATA=tests/data/tflm_float
if [[ ! -x $UTVM ]]; then
  cmake --preset aarch64-linux-acl >/dev/null
  nice -n 10 cmake --build build/aarch64-linux-acl -j1 --target utvm >/dev/null
fi
if [[ ! -f $PLUGIN ]]; then
  cmake --preset host >/dev/null
  nice -n 10 cmake --build build/host -j1 --target insn_plugin >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# count MODEL NUMBER [OPTIONS...]: instructions of one `utvm run` of NUMBER inferences.
count() {
  local model=$1 number=$2
  shift 2
  qemu-aarch64 -L / -plugin "$PLUGIN,out=$tmp/count" "$UTVM" run "$DATA/$model.tflite" \
    --input "$DATA/${model}_in0.bin" --number "$number" "$@" >"$tmp/run" 2>&1 || {
    cat "$tmp/run"
    exit 1
  }
  awk '$1 == "region" { print $4 }' "$tmp/count"
}

# per_inference MODEL [OPTIONS...]: instructions of one inference.
per_inference() {
  local model=$1
  shift
  local one many
  one=$(count "$model" 1 "$@")
  many=$(count "$model" $((N + 1)) "$@")
  echo $(((many - one) / N))
}

echo "Instructions per inference under qemu-aarch64 (TCG plugin count, (N+1 - 1 inferences) / N,"
echo "N = $N; ACL v20.08 single-threaded). qemu-user instruction counts are not hardware speed."
echo
printf '| %-18s | %-25s | %-18s | %-9s | %-9s |\n' model "runner kernels (--no-acl)" "runner + ACL" "ACL ops" ratio
printf '|%s|%s|%s|%s|%s|\n' "--------------------" "---------------------------" "--------------------" "-----------" "-----------"
for model in kws_dscnn_f32 hello_world_float; do
  plain=$(per_inference "$model" --no-acl)
  acl=$(per_inference "$model" --acl-threads 1)
  taken=$(awk '$1 == "acl" { print $4 " of " $6 }' "$tmp/run")
  ratio=$(awk -v a="$acl" -v p="$plain" 'BEGIN { printf "%.2fx", p / a }')
  printf '| %-18s | %25s | %18s | %-9s | %-9s |\n' "$model" "$plain" "$acl" "$taken" "$ratio"
done
echo
echo "ratio: runner-kernel instructions / ACL instructions per inference (> 1: ACL runs fewer)."
echo "These are guest instruction counts under qemu-user, not hardware speed: no cycles,"
echo "no NEON issue width, caches or memory system of a real Cortex-A."
