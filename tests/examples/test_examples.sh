#!/usr/bin/env bash
# Builds the examples (examples/) out of the source tree, as a user would, and runs them:
#   rpc_find_package       utvm built for the Cortex-M4 and installed (cmake --install) into a
#                          temporary prefix, the firmware configured with CMAKE_PREFIX_PATH
#   rpc_add_subdirectory   the firmware adding utvm's sources with add_subdirectory
#   posix                  the same function in a POSIX server (add_subdirectory)
# Each firmware runs in QEMU on mps2-an386, the POSIX server as a process; the utvm CLI calls
# my_dot_s8 with two int8 tensors, checks the int32 result against the dot product computed
# here, and times it.
#
#   bash tests/examples/test_examples.sh UTVM_CLI [WORK_DIR]
set -euo pipefail

[[ $# -ge 1 && $# -le 2 ]] || { echo "usage: $0 UTVM_CLI [WORK_DIR]" >&2; exit 2; }
cli=$(realpath "$1")
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=${2:-$(mktemp -d)}
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
build rpc_add_subdirectory "$src/examples/rpc_add_subdirectory" dot_firmware "${cross[@]}"
build posix "$src/examples/posix" dot_server

check rpc_find_package "qemu:mps2-an386:$work/rpc_find_package/dot_firmware.elf"
check rpc_add_subdirectory "qemu:mps2-an386:$work/rpc_add_subdirectory/dot_firmware.elf"
check posix "exec:$work/posix/dot_server"
say "examples: all built and checked"
