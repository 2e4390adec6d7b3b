#!/usr/bin/env bash
# Host instructions of one UNIDIRECTIONAL_SEQUENCE_LSTM inference, utvm's runner against TFLM's
# reference kernels, on every LSTM case (shared/models/ops2 and tests/data/tflm). Prints a
# markdown table on stdout.
#
#   RUN_TFLM=/tmp/tflm_oracle/run_tflm bash bench/lstm_tflm.sh
#
# RUN_TFLM: TFLM's interpreter runner, built by tests/tools/tflm_oracle/build.sh (TFLM
# 90b983c2b3f1: kernels -O2, framework -Os, x86-64). utvm: build/host/bench/bench_model (preset
# host, RelWithDebInfo: -O2). Both under `valgrind --tool=callgrind`: utvm counts
# measured_invoke (one inference after a warm-up, bench/bench_model.c), TFLM counts
# tflite::MicroInterpreter::Invoke() (the first inference of a fresh interpreter; the LSTM
# kernel does no first-run work). Both outputs are checked against TFLM's golden output.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

: "${RUN_TFLM:?set RUN_TFLM to run_tflm (tests/tools/tflm_oracle/build.sh)}"
SHARED=${UTVM_SHARED_DIR:-$PWD/../shared}
OUT=build/bench
mkdir -p "$OUT"
for tool in valgrind cmake python3; do
  command -v "$tool" >/dev/null || { echo "lstm_tflm.sh: $tool not found" >&2; exit 1; }
done
cmake --preset host >"$OUT/lstm_build.log" 2>&1
cmake --build --preset host -j 2 --target bench_model >>"$OUT/lstm_build.log" 2>&1
BENCH=build/host/bench/bench_model

# instructions <out file> <command...>: callgrind's total of the toggled function.
instructions() {
  local out=$1
  shift
  valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>&1
  sed -n 's/^summary: //p' "$out"
}

echo "| case | utvm instructions | TFLM instructions | utvm / TFLM |"
echo "|---|---:|---:|---:|"
python3 - "$SHARED/models/ops2" tests/data/tflm <<'EOF' | while read -r dir name model input golden; do
import json, sys
for d in sys.argv[1:]:
    for c in json.load(open(d + "/cases.json"))["cases"]:
        if "UNIDIRECTIONAL_SEQUENCE_LSTM" in c["ops"]:
            i, o = c["pairs"][0]
            print(d, c["name"], c["model"], i, o)
EOF
  tflm_out=$OUT/lstm_tflm_out.bin
  tflm=$(instructions "$OUT/lstm_tflm.cg" --toggle-collect='tflite::MicroInterpreter::Invoke()' \
    "$RUN_TFLM" "$dir/$model" "$dir/$input" "$tflm_out")
  cmp -s "$tflm_out" "$dir/$golden" || { echo "lstm_tflm.sh: TFLM differs on $name" >&2; exit 1; }
  exact=$("$BENCH" "$dir/$model" "$dir/$input" "$dir/$golden" | sed -n 's/.*exact \([a-z-]*\).*/\1/p')
  [ "$exact" = yes ] || { echo "lstm_tflm.sh: utvm differs on $name" >&2; exit 1; }
  utvm=$(instructions "$OUT/lstm_utvm.cg" --toggle-collect=measured_invoke \
    "$BENCH" "$dir/$model" "$dir/$input" "$dir/$golden")
  echo "| $name | $utvm | $tflm | $(python3 -c "print('%.2f' % ($utvm / $tflm))") |"
done
