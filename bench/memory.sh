#!/usr/bin/env bash
# Issue 29's table: working memory (activations, kernel scratch and IO, inputs and outputs inside
# the arena) and instructions per inference of the seven shipped models on one QEMU core, each
# run whole and patch by patch (utvm-model-test.elf: the runner with patches off, then auto),
# next to TFLM's arena (shared/models/README.md) and the ratios. -icount shift=0: one virtual ns
# per instruction. Prints a markdown table.
#
#   bash bench/memory.sh [BOARD] [BUILD_DIR]   (default mps2-an386 and build; needs
#                                              BUILD_DIR/BOARD/bin/utvm-model-test.elf, and
#                                              utvm-model-test-ad.elf where AD has its own image)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BOARD=${1:-mps2-an386}
BUILD=${2:-build}
declare -A TFLM=([hello_world]=1184 [micro_speech]=7312 [kws_dscnn]=24000 [ad_autoencoder]=3424
                 [ic_resnet8]=55712 [person_detect]=85024 [vww_mobilenetv1]=103392)
lines=""
for elf in "$BUILD/$BOARD/bin/utvm-model-test.elf" "$BUILD/$BOARD/bin/utvm-model-test-ad.elf"; do
  [ -f "$elf" ] || continue
  # the QEMU run of tests/qemu (stopped at "models done"; it also checks every run bit-exact)
  lines+=$(python3 tests/qemu/test_qemu_models.py "$BOARD" "$elf" 1 | grep '^model ' || true)
  lines+=$'\n'
done
echo "| model | TFLM arena (B) | whole (B) | with patches (B) | ratio to TFLM | stage | instructions whole | with patches | change |"
echo "|---|---:|---:|---:|---:|---|---:|---:|---:|"
for name in hello_world micro_speech kws_dscnn ad_autoencoder ic_resnet8 person_detect vww_mobilenetv1; do
  whole=$(grep "^model $name: " <<<"$lines" | head -1 || true)
  patched=$(grep "^model $name patches: " <<<"$lines" | head -1 || true)
  [ -n "$whole" ] && [ -n "$patched" ] || continue
  for l in "$whole" "$patched"; do
    [[ $l == *"bit-exact yes" ]] || { echo "not bit-exact: $l" >&2; exit 1; }
  done
  aw=$(sed -E 's/.*arena ([0-9]+) B.*/\1/' <<<"$whole")
  ap=$(sed -E 's/.*arena ([0-9]+) B.*/\1/' <<<"$patched")
  iw=$(sed -E 's/.* ([0-9]+) instructions.*/\1/' <<<"$whole")
  ip=$(sed -E 's/.* ([0-9]+) instructions.*/\1/' <<<"$patched")
  stage=$(grep -oE 'stage of [0-9]+ layers in [0-9]+ patches' <<<"$patched" || echo "none")
  awk -v n="$name" -v t="${TFLM[$name]}" -v aw="$aw" -v ap="$ap" -v s="$stage" -v iw="$iw" \
      -v ip="$ip" 'BEGIN { printf "| %s | %d | %d | %d | %.3fx | %s | %d | %d | %+.1f %% |\n",
                           n, t, aw, ap, ap / t, s, iw, ip, (ip - iw) * 100.0 / iw }'
done
