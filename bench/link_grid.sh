#!/usr/bin/env bash
# utvm run over a bad link (issue 27): for each fault specification x model x seed, runs
#   utvm --connect "fault:seed=S,SPEC/exec:SERVER" --timeout T run MODEL --input IN --output OUT
# on the POSIX server and counts the runs that give TFLite Micro's output bit-exact, that fail
# (exit non-zero) and that are wrong (exit 0 with another output: must never happen); a failure
# whose message has no cause after its last ": " is counted too (must never happen). Prints a
# markdown table with the median and largest wall seconds per run, then each failure's message.
# With qemu-system-arm and the mps2-an386 firmware image, the same for KWS on QEMU.
#
#   bash bench/link_grid.sh [BUILD_DIR]     (default build/host: its bin/utvm and
#                                            bin/utvm-posix-server)
# Environment:
#   SEEDS=N          seeds 1..N per cell (default 10)
#   SPECS="A B ..."  fault specifications (default: ber=1e-5 drop=1e-5 ber=1e-4 drop=1e-4
#                    ber=1e-5,drop=1e-5,split=1)
#   MODELS="kws ic"  models (default both)
#   TIMEOUT=S        utvm --timeout (default 0.2)
#   REQUIRE_EXACT=1  also fail when a run fails (default: only wrong outputs and empty causes)
#   QEMU_ELF=PATH    the mps2-an386 utvm-server.elf (default BUILD_DIR/../mps2-an386/bin/...;
#                    QEMU=0 skips the QEMU part), QEMU_SEEDS (default 3), QEMU_TIMEOUT (default 1)
#   QEMU_DEADLINE=S  utvm --deadline for the QEMU runs (default: utvm's own, from the bytes to
#                    send at the link's nominal speed; a loaded machine or a sanitized utvm can
#                    need more)
# Exit status: 0 when no run was wrong and every failure named its cause (and, with
# REQUIRE_EXACT=1, none failed); 1 otherwise.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${1:-build/host}
UTVM=$BUILD/bin/utvm
SERVER=$BUILD/bin/utvm-posix-server
SHARED_MODELS=${UTVM_SHARED_DIR:-../shared}/models
SEEDS=${SEEDS:-10}
read -r -a SPEC_LIST <<<"${SPECS:-ber=1e-5 drop=1e-5 ber=1e-4 drop=1e-4 ber=1e-5,drop=1e-5,split=1}"
read -r -a MODEL_LIST <<<"${MODELS:-kws ic}"
TIMEOUT=${TIMEOUT:-0.2}
REQUIRE_EXACT=${REQUIRE_EXACT:-0}
QEMU_ELF=${QEMU_ELF:-$BUILD/../mps2-an386/bin/utvm-server.elf}
QEMU_SEEDS=${QEMU_SEEDS:-3}
QEMU_TIMEOUT=${QEMU_TIMEOUT:-1}
QEMU_DEADLINE=${QEMU_DEADLINE:-}
REF=$SHARED_MODELS/refdata/mlperf_tiny
declare -A FILE=([kws]=mlperf_tiny_kws_dscnn_int8.tflite [ic]=mlperf_tiny_ic_resnet8_int8.tflite)

for f in "$UTVM" "$SERVER"; do
  [[ -x $f ]] || { echo "bench/link_grid.sh: $f not found (build the host preset)" >&2; exit 1; }
done
for name in "${MODEL_LIST[@]}"; do
  [[ -n ${FILE[$name]:-} ]] || { echo "bench/link_grid.sh: unknown model '$name' (kws, ic)" >&2
                                 exit 1; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
SERVER=$(cd "$(dirname "$SERVER")" && pwd)/$(basename "$SERVER")
bad=0
failures=()

# cell TRANSPORT_PREFIX LABEL SPEC MODEL SEEDS TIMEOUT [DEADLINE]: runs one cell, prints its
# table row.
cell() {
  local transport=$1 label=$2 spec=$3 name=$4 seeds=$5 timeout=$6 deadline=()
  if [[ -n ${7:-} ]]; then deadline=(--deadline "$7"); fi
  local exact=0 failed=0 wrong=0 empty=0 times=()
  for ((seed = 1; seed <= seeds; seed++)); do
    local out=$TMP/out.bin start end rc=0
    rm -f "$out"
    start=$(date +%s.%N)
    "$UTVM" --connect "fault:seed=$seed,$spec/$transport" --timeout "$timeout" "${deadline[@]}" \
      run "$SHARED_MODELS/${FILE[$name]}" --input "$REF/${name}_input0_int8.bin" \
      --output "$out" >/dev/null 2>"$TMP/err" || rc=$?
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc)")
    if [[ $rc -eq 0 ]] && cmp -s "$out" "$REF/${name}_input0_int8_tflm.out0.bin"; then
      exact=$((exact + 1))
    elif [[ $rc -eq 0 ]]; then
      wrong=$((wrong + 1))
      failures+=("$label $spec $name seed $seed: WRONG OUTPUT (exit 0)")
    else
      failed=$((failed + 1))
      local line cause
      line=$(grep -v '^utvm: hint:' "$TMP/err" | grep -m1 '^utvm: ' || true)
      line=${line#utvm: }
      line=${line/#model $SHARED_MODELS\/${FILE[$name]} on the device: /}
      cause=${line##*: }
      if [[ -z ${cause//[[:space:]]/} ]]; then
        empty=$((empty + 1))
        line="$line[EMPTY CAUSE]"
      fi
      failures+=("$label $spec $name seed $seed: exit $rc: $line")
    fi
  done
  local median max
  median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{v[NR] = $1} END {
    printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  max=$(printf '%s\n' "${times[@]}" | sort -g | tail -1)
  printf '| %s | %s | %s | %d | %d | %d | %d | %d | %s | %.2f |\n' "$label" "$spec" "$name" \
    "$seeds" "$exact" "$failed" "$wrong" "$empty" "$median" "$max"
  if [[ $wrong -gt 0 || $empty -gt 0 || ($REQUIRE_EXACT == 1 && $failed -gt 0) ]]; then
    bad=1
  fi
}

echo "## utvm run over a faulty link: bit-exact, failed and wrong runs"
echo
echo "utvm --connect \"fault:seed=S,SPEC/TRANSPORT\" --timeout T run MODEL; seeds 1..N;"
echo "wrong = exit 0 with an output that differs from TFLM's; empty = a failure with no cause."
echo
echo "| device | faults (SPEC) | model | runs | bit-exact | failed | wrong | empty cause | median s | max s |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
for spec in "${SPEC_LIST[@]}"; do
  for name in "${MODEL_LIST[@]}"; do
    cell "exec:$SERVER" "posix (T $TIMEOUT s)" "$spec" "$name" "$SEEDS" "$TIMEOUT"
  done
done
if [[ ${QEMU:-1} != 0 && -f $QEMU_ELF ]] && command -v qemu-system-arm >/dev/null; then
  for spec in "${SPEC_LIST[@]}"; do
    cell "qemu:mps2-an386:$QEMU_ELF" "QEMU mps2-an386 (T $QEMU_TIMEOUT s)" "$spec" kws \
      "$QEMU_SEEDS" "$QEMU_TIMEOUT" "$QEMU_DEADLINE"
  done
elif [[ ${QEMU:-1} == 0 ]]; then
  echo
  echo "(QEMU part off: QEMU=0)"
else
  echo
  echo "(QEMU part skipped: needs qemu-system-arm and $QEMU_ELF)"
fi
echo
if [[ ${#failures[@]} -gt 0 ]]; then
  echo "Failures:"
  echo
  for f in "${failures[@]}"; do
    echo "- $f"
  done
fi
exit "$bad"
