#!/usr/bin/env bash
# Builds the examples (examples/) out of the source tree, as a user would, and runs them:
#   rpc_find_package       utvm built for the Cortex-M4 and installed (cmake --install) into a
#                          temporary prefix, the firmware configured with CMAKE_PREFIX_PATH;
#                          once more with a toolchain file of one's own (no
#                          --no-enum-size-warning: the package brings it), and with
#                          -mfloat-abi=soft, which find_package must refuse naming the
#                          installed ABI (hard)
#   ai_find_package        the host build installed into the same prefix (bin/utvm), then a
#                          firmware that calls utvm_add_model on KWS with the installed
#                          package and toolchain file; QEMU runs it bit-exact with TFLM
#   rpc_add_subdirectory   the firmware adding utvm's sources with add_subdirectory
#   posix                  the same function in a POSIX server (add_subdirectory)
# Each firmware runs in QEMU on mps2-an386, the POSIX server as a process; the utvm CLI calls
# my_dot_s8 with two int8 tensors, checks the int32 result against the dot product computed
# here, and times it.
#
#   bash tests/examples/test_examples.sh UTVM_CLI WORK_DIR HOST_BUILD_DIR SHARED_DIR
set -euo pipefail

[[ $# -eq 4 ]] || { echo "usage: $0 UTVM_CLI WORK_DIR HOST_BUILD_DIR SHARED_DIR" >&2; exit 2; }
cli=$(realpath "$1")
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$2
host_build=$(realpath "$3")
shared=$(realpath "$4")
rm -rf "$work"
mkdir -p "$work"
toolchain=$src/cmake/arm-none-eabi.cmake
cross=(-DCMAKE_TOOLCHAIN_FILE="$toolchain" -DCMAKE_BUILD_TYPE=MinSizeRel
       -DUTVM_CPU_FLAGS="-mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16")

say() { printf '==> %s\n' "$*"; }

# build <name> <source dir> <target> <cmake args...>: configure and build out of the tree; no
# compiler or linker warning is accepted.
build() {
  local name=$1 dir=$2 target=$3
  shift 3
  say "build $name"
  if ! cmake -S "$dir" -B "$work/$name" "$@" >"$work/$name.log" 2>&1 ||
     ! cmake --build "$work/$name" -j 2 --target "$target" >>"$work/$name.log" 2>&1; then
    tail -n 30 "$work/$name.log"
    echo "test_examples: building $name failed (log $work/$name.log)" >&2
    exit 1
  fi
  if grep -i 'warning:' "$work/$name.log"; then
    echo "test_examples: warnings in the $name build" >&2
    exit 1
  fi
}

# check <name> <connect>: calls my_dot_s8 on random vectors, compares, times.
check() {
  local name=$1 connect=$2
  local a b expected out
  read -r a b expected < <(/usr/bin/python3 -c '
import random
r = random.Random(18)
a = [r.randint(-128, 127) for _ in range(256)]
b = [r.randint(-128, 127) for _ in range(256)]
print(str(a).replace(" ", ""), str(b).replace(" ", ""), sum(x * y for x, y in zip(a, b)))')
  say "call my_dot_s8 on $name (expected $expected)"
  out=$("$cli" --json --connect "$connect" call my_dot_s8 "t:int8:$a" "t:int8:$b" 't:int32:#1')
  /usr/bin/python3 -c '
import json, sys
got = json.loads(sys.argv[1])["tensors"][2]["data"]
if got != [int(sys.argv[2])]:
    sys.exit("test_examples: %s: my_dot_s8 returned %s, expected [%s]" % (sys.argv[3], got, sys.argv[2]))
print("result", got[0], "ok")' "$out" "$expected" "$name"
  "$cli" --connect "$connect" time my_dot_s8 "t:int8:$a" "t:int8:$b" 't:int32:#1' --number 10 --repeat 3
}

build utvm-cortex-m4 "$src" all "${cross[@]}" -DUTVM_BUILD_IMAGES=OFF
say "install utvm into $work/prefix"
cmake --install "$work/utvm-cortex-m4" --prefix "$work/prefix" >"$work/install.log"
build rpc_find_package "$src/examples/rpc_find_package" dot_firmware "${cross[@]}" \
  -DCMAKE_PREFIX_PATH="$work/prefix"

# A toolchain file of one's own, without --no-enum-size-warning: the package's link options bring
# it (build() refuses any warning).
cat >"$work/own-toolchain.cmake" <<'TOOLCHAIN'
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16 -mthumb -fno-short-enums")
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nano.specs -Wl,--gc-sections")
TOOLCHAIN
build rpc_find_package_own_toolchain "$src/examples/rpc_find_package" dot_firmware \
  -DCMAKE_TOOLCHAIN_FILE="$work/own-toolchain.cmake" -DCMAKE_BUILD_TYPE=MinSizeRel \
  -DCMAKE_PREFIX_PATH="$work/prefix"

say "configure rpc_find_package with -mfloat-abi=soft against the hard-float install"
if cmake -S "$src/examples/rpc_find_package" -B "$work/soft" -DCMAKE_PREFIX_PATH="$work/prefix" \
     -DCMAKE_TOOLCHAIN_FILE="$toolchain" -DUTVM_CPU_FLAGS="-mcpu=cortex-m4 -mfloat-abi=soft" \
     >"$work/soft.log" 2>&1; then
  echo "test_examples: a soft-float project configured against the hard-float install" >&2
  exit 1
fi
soft_log=$(tr -s '\n ' '  ' <"$work/soft.log")
if [[ $soft_log != *"installed with -mfloat-abi=hard"* ||
      $soft_log != *"compiles with -mfloat-abi=soft"* ]]; then
  tail -n 20 "$work/soft.log"
  echo "test_examples: the float-ABI error does not name the installed ABI" >&2
  exit 1
fi
grep -A3 "installed with" "$work/soft.log" | head -n 4

say "install the host build (bin/utvm) into $work/prefix"
cmake --install "$host_build" --prefix "$work/prefix" >"$work/install-host.log"
[[ -x $work/prefix/bin/utvm && -f $work/prefix/share/utvm/arm-none-eabi.cmake &&
   -f $work/prefix/lib/cmake/utvm/utvm_ai.cmake ]] ||
  { echo "test_examples: bin/utvm, the toolchain file or utvm_ai.cmake not installed" >&2; exit 1; }
build ai_find_package "$src/examples/ai_find_package" kws_firmware \
  -DCMAKE_TOOLCHAIN_FILE="$work/prefix/share/utvm/arm-none-eabi.cmake" \
  -DCMAKE_BUILD_TYPE=MinSizeRel \
  -DUTVM_CPU_FLAGS="-mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16" \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DUTVM_SHARED_DIR="$shared"
grep -qx "UTVM_HOST_TOOL:FILEPATH=$work/prefix/bin/utvm" "$work/ai_find_package/CMakeCache.txt" ||
  { echo "test_examples: find_package(utvm) did not take the installed bin/utvm" >&2; exit 1; }

build rpc_add_subdirectory "$src/examples/rpc_add_subdirectory" dot_firmware "${cross[@]}"
build posix "$src/examples/posix" dot_server

check rpc_find_package "qemu:mps2-an386:$work/rpc_find_package/dot_firmware.elf"
check rpc_add_subdirectory "qemu:mps2-an386:$work/rpc_add_subdirectory/dot_firmware.elf"
check posix "exec:$work/posix/dot_server"
say "run ai_find_package in QEMU"
/usr/bin/python3 "$src/tests/qemu/test_qemu_models.py" mps2-an386 \
  "$work/ai_find_package/kws_firmware.elf" 1 --whole-only
say "examples: all built and checked"
