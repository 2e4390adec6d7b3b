#!/usr/bin/env bash
# The test command of utvm: installs missing Debian packages (when root), then builds and
# tests every configuration and prints a summary. Exits non-zero if any step failed.
#
#   bash scripts/test.sh
#
# Steps: the host tool (utvm, for the boards' AOT image), every Cortex-M preset of
# CMakePresets.json (warning-free build; before the host tests, so that they
# can use the firmware images), the size budgets (scripts/size_budget.sh), the aarch64 Linux
# port (preset aarch64-linux: warning-free cross build, its test preset's ctest subset under
# qemu-aarch64), the Arm Compute Library backend (preset aarch64-linux-acl: test_acl and
# test_acl_runner under qemu-aarch64), host build + ctest, host-asan build + ctest, a host build
# without device error texts (-DUTVM_ERROR_TEXTS=OFF) + its crt, rpc and host unit tests and
# the posix server's reset-at-every-byte and system tests, the libFuzzer targets for
# UTVM_FUZZ_SECONDS each (default 60), the MISRA check (scripts/misra.sh).
# Logs: build/test-logs/<step>.log. Fuzzer crash inputs: fuzz-artifacts/<target>/.
# Environment: UTVM_FUZZ_SECONDS (per fuzz target), UTVM_SKIP_APT=1 (never run apt-get),
# UTVM_SHARED_DIR (the shared/ folder with the protocol vectors; default ../shared).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD

FUZZ_SECONDS=${UTVM_FUZZ_SECONDS:-60}
JOBS=2
LOGS=build/test-logs
# make: the presets use the "Unix Makefiles" generator, and cmake only recommends make.
PACKAGES=(cmake make gcc clang libclang-rt-14-dev gcc-arm-none-eabi libnewlib-arm-none-eabi
          libcmocka-dev libdlpack-dev python3 python3-numpy qemu-system-arm valgrind cppcheck
          gcc-aarch64-linux-gnu qemu-user libcmocka-dev:arm64 g++-aarch64-linux-gnu
          libarm-compute-dev:arm64)
# The :arm64 packages come from Debian's multiarch: dpkg's foreign architectures.
FOREIGN_ARCHS=(arm64)

mkdir -p "$LOGS"
SUMMARY=()
FAILED=0
START=$SECONDS

# ------------------------------------------------------------------ helpers
say() { printf '==> %s\n' "$*"; }

# record <step> <PASS|FAIL> <detail>
record() {
  SUMMARY+=("$(printf '%-4s  %-28s %s' "$2" "$1" "$3")")
  if [[ $2 == FAIL ]]; then
    FAILED=1
    say "$1: FAILED ($3)"
  else
    say "$1: ok ($3)"
  fi
}

# step <name> <command...>: runs the command (stdin from /dev/null, output to
# $LOGS/<name>.log) and records the outcome; on failure prints the log's last lines.
step() {
  local name=$1
  shift
  local log=$LOGS/$name.log t0=$SECONDS
  say "$name"
  if "$@" </dev/null >"$log" 2>&1; then
    record "$name" PASS "$((SECONDS - t0)) s"
    return 0
  fi
  record "$name" FAIL "$((SECONDS - t0)) s, log $log"
  tail -n 40 "$log" | sed 's/^/    /'
  return 1
}

# ------------------------------------------------------------------ packages
install_packages() {
  local missing=() archs=()
  for arch in "${FOREIGN_ARCHS[@]}"; do
    dpkg --print-foreign-architectures | grep -qx "$arch" || archs+=("$arch")
  done
  for pkg in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$pkg")
    fi
  done
  if ((${#missing[@]} == 0 && ${#archs[@]} == 0)); then
    say "packages: all present"
    return 0
  fi
  local what="${missing[*]}" add_archs=""
  for arch in "${archs[@]}"; do
    what+=" (architecture $arch)"
    add_archs+="dpkg --add-architecture $arch && "
  done
  if [[ ${UTVM_SKIP_APT:-0} == 1 || $(id -u) != 0 ]]; then
    say "packages: missing $what (not root or UTVM_SKIP_APT=1: not installing)"
    return 0
  fi
  say "packages: installing $what"
  export DEBIAN_FRONTEND=noninteractive
  step apt-install bash -c "${add_archs}apt-get update && apt-get install -y ${missing[*]}"
}

# ------------------------------------------------------------------ steps
configure_build() {
  cmake --preset "$1" && cmake --build --preset "$1" -j "$JOBS"
}

# Cross (Cortex-M or aarch64 Linux) build from scratch: -Werror already rejects compiler
# warnings; this also rejects any other "warning:" line (linker, archiver).
cross_build() {
  rm -rf "build/$1"
  local out
  out=$(configure_build "$1" 2>&1)
  local rc=$?
  printf '%s\n' "$out"
  ((rc == 0)) || return "$rc"
  if grep -qi 'warning:' <<<"$out"; then
    echo "test.sh: warnings in the $1 build"
    return 1
  fi
}

# The aarch64 Linux port (preset aarch64-linux, cmake/aarch64-linux-gnu.cmake): the cross build
# (it compiles its models with the host tool, build/host/bin/utvm) and its test preset's subset
# (crt, rpc, session, framing, host link, kernels, models, the CLI and the system test against
# the aarch64 server, also driven by the host's CLI) under qemu-aarch64.
aarch64_linux() {
  cross_build aarch64-linux && ctest --preset aarch64-linux
}

# The Arm Compute Library backend (preset aarch64-linux-acl: UTVM_WITH_ACL against Debian's
# ACL 20.08, libarm-compute-dev:arm64): its library, test_acl and test_acl_runner (the
# runner's offload on every tflm_float case), warning-free, under qemu-aarch64.
aarch64_acl() {
  local out
  cmake --preset aarch64-linux-acl || return 1
  out=$(cmake --build --preset aarch64-linux-acl -j "$JOBS" --target test_acl test_acl_runner 2>&1) || {
    echo "$out"
    return 1
  }
  echo "$out"
  if grep -qi 'warning:' <<<"$out"; then
    echo "test.sh: warnings in the aarch64-linux-acl build"
    return 1
  fi
  ctest --preset aarch64-linux-acl
}

# The host preset without device error texts: the devices write "#<id>" tokens, the host and
# the tests expand them (include/utvm/error_texts.h). Built in build/host-no-texts.
NO_TEXTS_DIR=build/host-no-texts
NO_TEXTS_TESTS='^(test_(crt|rpc|host)_|test_reset_every_byte$|system_posix$|bench_link_grid_reduced$)'
no_texts_build() {
  cmake --preset host -B "$NO_TEXTS_DIR" -DUTVM_ERROR_TEXTS=OFF && cmake --build "$NO_TEXTS_DIR" -j "$JOBS"
}

# build_fuzz_targets: builds only the fuzz_* targets of the host-fuzz build.
build_fuzz_targets() {
  local targets
  targets=$(cmake --build --preset host-fuzz --target help | sed -n 's/^\.\.\. \(fuzz_[A-Za-z0-9_]*\).*/\1/p')
  [[ -n $targets ]] || return 1
  # shellcheck disable=SC2086 # one word per target
  cmake --build --preset host-fuzz -j "$JOBS" --target $targets
}

# run_fuzzer <executable>: runs fuzz_<x> for FUZZ_SECONDS on its working corpus (new inputs
# go there), the seeds generated from the vectors, its own seeds in
# build/host-fuzz/tests/fuzz/seeds-<x>/ if the build made some (fuzz_tflite: the shipped models)
# and the committed inputs in tests/fuzz/corpus/<x>/ (past crashes).
run_fuzzer() {
  local exe=$1 name
  name=$(basename "$exe")
  local corpus=build/host-fuzz/corpus/$name artifacts=fuzz-artifacts/$name
  mkdir -p "$corpus" "$artifacts"
  local dirs=("$corpus" build/host-fuzz/tests/fuzz/seeds)
  [[ -d build/host-fuzz/tests/fuzz/seeds-${name#fuzz_} ]] && dirs+=("build/host-fuzz/tests/fuzz/seeds-${name#fuzz_}")
  [[ -d tests/fuzz/corpus/${name#fuzz_} ]] && dirs+=("tests/fuzz/corpus/${name#fuzz_}")
  "$exe" -max_total_time="$FUZZ_SECONDS" -timeout=60 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${dirs[@]}"
}

# ------------------------------------------------------------------ main
say "utvm test run in $ROOT (fuzz ${FUZZ_SECONDS} s per target)"
install_packages

cortex_presets=$(cmake --list-presets=build 2>/dev/null | sed -n 's/^ *"\([^"]*\)".*/\1/p' |
                 grep -v -e '^host' -e '^aarch64-linux')
if [[ -z $cortex_presets ]]; then
  record cortex-presets FAIL "no Cortex-M build presets found (cmake --list-presets=build)"
fi
# The host tool first: the board presets compile an AOT model archive with it at build time
# (utvm-server-aot.elf, UTVM_HOST_TOOL = build/host/bin/utvm).
step host-tool bash -c "cmake --preset host && cmake --build --preset host -j $JOBS --target utvm"
for preset in $cortex_presets; do
  step "$preset-build" cross_build "$preset"
done
# Flash budgets of the RPC stack and the kernels (scripts/size_budget.sh; log lists each figure).
step size-budget bash scripts/size_budget.sh
step aarch64 aarch64_linux
step aarch64-acl aarch64_acl

for preset in host host-asan; do
  if step "$preset-build" configure_build "$preset"; then
    step "$preset-ctest" ctest --preset "$preset"
  else
    record "$preset-ctest" FAIL "not run: build failed"
  fi
done

if step host-no-texts-build no_texts_build; then
  step host-no-texts-ctest ctest --test-dir "$NO_TEXTS_DIR" -R "$NO_TEXTS_TESTS" --output-on-failure
else
  record host-no-texts-ctest FAIL "not run: build failed"
fi

# host-fuzz builds everything with clang (a second compiler's warnings); if some other target
# fails there, the fuzz targets are still built on their own and run.
if ! step host-fuzz-build configure_build host-fuzz && [[ -f build/host-fuzz/Makefile ]]; then
  step fuzz-targets-build build_fuzz_targets
fi
fuzzers=$(find build/host-fuzz/tests/fuzz -maxdepth 1 -type f -name 'fuzz_*' -perm -u+x 2>/dev/null | sort)
if [[ -z $fuzzers ]]; then
  record fuzz FAIL "no fuzz_* executables in build/host-fuzz/tests/fuzz"
fi
for exe in $fuzzers; do
  name=$(basename "$exe")
  if step "$name" run_fuzzer "$exe"; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$LOGS/$name.log")
    SUMMARY[-1]+=", ${runs:-?} inputs, no crash"
  fi
done

step misra bash scripts/misra.sh

echo
echo "==================== utvm test summary ($((SECONDS - START)) s) ===================="
printf '%s\n' "${SUMMARY[@]}"
# Test totals of every ctest run ("N% tests passed, F tests failed out of T"), as one line.
total=0
failed=0
for log in "$LOGS"/*-ctest.log "$LOGS"/aarch64.log "$LOGS"/aarch64-acl.log; do
  [[ -f $log ]] || continue
  line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -n 1)
  [[ -n $line ]] || continue
  read -r f t <<<"$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1 \2/' <<<"$line")"
  failed=$((failed + f))
  total=$((total + t))
done
echo "ctest: $((total - failed)) passed, $failed failed"
# The last lines of each failed test's output (ctest prints it after the test's result line),
# so that the end of this log says why.
for log in "$LOGS"/*-ctest.log "$LOGS"/aarch64.log "$LOGS"/aarch64-acl.log; do
  [[ -f $log ]] || continue
  awk -v lf="$log" '
    / Test +#[0-9]+: .*(\*\*\*|Failed|Timeout|Exception)/ { on = 1; n = 0; head = $0; next }
    on && (/ Test +#[0-9]+: / || /^ *Start +[0-9]+: / || /tests passed, /) {
      print "---- " lf ": " head; for (i = (n > 40 ? n - 40 : 0); i < n; i++) print buf[i % 40]
      on = 0
    }
    on { buf[n % 40] = $0; n++ }
    END { if (on) { print "---- " lf ": " head; for (i = (n > 40 ? n - 40 : 0); i < n; i++) print buf[i % 40] } }
  ' "$log"
done
if ((FAILED)); then
  echo "RESULT: FAIL"
  exit 1
fi
echo "RESULT: PASS"
