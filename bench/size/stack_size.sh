#!/usr/bin/env bash
# Flash and static RAM of the whole device stack for one Cortex-M build (used by bench/run.sh).
#
#   bash bench/size/stack_size.sh <cmake build dir of a cortex-m preset> <work dir>
#
# Links bench/size/size_stack.c (init + feed + log of the RPC server) with the build's flags,
# newlib-nano and --gc-sections against the utvm libraries and the test system library, then
# prints on stdout:
#   stack <flash> <static RAM> <sizeof utvm_rpc_server_t> <bytes of the application's buffers>
#   lib <archive> <flash> <static RAM>           (one line per utvm library)
#   libgcc <flash> <static RAM>                  (compiler runtime the program pulls in, e.g.
#                                                 soft-float helpers; not in the total)
#   symbol <bytes> <name>                        (the 8 biggest utvm symbols in the image)
#   forbidden <symbol>                           (printf-family / allocator symbols, if any)
#   image <flash> <static RAM>                   (the whole program: arm-none-eabi-size)
#   cost <flash> <static RAM>                    (what the stack adds to the program: the
#                                                 image less the baseline, the same program
#                                                 built with -DSIZE_APP_ONLY: the application's
#                                                 hooks, the test system library and the C
#                                                 library's string functions, without the stack)
# UTVM_SIZE_FEATURES (environment, space-separated: sequence large_calls ndarrays
# time_evaluator) turns those opt-in features on in the program (default: none, a bare
# TVM-compatible server), e.g. to measure one:
#   UTVM_SIZE_FEATURES=sequence bash bench/size/stack_size.sh build/cortex-m4 /tmp/stk
# With UTVM_LTO=ON in the build, the program is linked with -flto too. Link-time optimisation
# merges the archives' code into new objects, so the map can no longer tell which archive a
# byte came from: the lib and stack lines then read 0, and the cost line is the stack's flash.
# flash = .text + .rodata (+ .ARM.exidx), static RAM = .data + .bss, counted from the linker
# map for the utvm archives only (framing, session, minrpc, crt, common).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

dir=$1
work=$2
mkdir -p "$work"
cache=$dir/CMakeCache.txt
read -r -a cflags <<<"$(sed -n 's/^CMAKE_C_FLAGS:STRING=//p' "$cache") -Os"
read -r -a ldflags <<<"$(sed -n 's/^CMAKE_EXE_LINKER_FLAGS:STRING=//p' "$cache")"
for feature in ${UTVM_SIZE_FEATURES:-}; do
  case $feature in
    sequence | large_calls | ndarrays | time_evaluator) cflags+=(-DSIZE_ENABLE_"${feature^^}") ;;
    *) echo "stack_size.sh: unknown feature '$feature' in UTVM_SIZE_FEATURES" >&2; exit 2 ;;
  esac
done
if grep -qx 'UTVM_LTO:BOOL=ON' "$cache"; then
  cflags+=(-flto)
  ldflags+=(-flto)
fi
dlpack=$dir/generated/dlpack-include
archives=(libutvm_minrpc.a libutvm_crt.a libutvm_session.a libutvm_framing.a libutvm_common.a)
libs=("$dir/src/minrpc/libutvm_minrpc.a" "$dir/tests/syslib/libutvm_test_syslib.a"
      "$dir/src/crt/libutvm_crt.a" "$dir/src/session/libutvm_session.a"
      "$dir/src/framing/libutvm_framing.a" "$dir/src/common/libutvm_common.a")
elf=$work/size_stack.elf

arm-none-eabi-gcc "${cflags[@]}" -Iinclude -I"$dlpack" -Itests/syslib bench/size/size_stack.c \
  -o "$elf" "${ldflags[@]}" --specs=nosys.specs -Wl,-Map="$work/size_stack.map" \
  -Wl,--start-group "${libs[@]}" -Wl,--end-group

flash=0
ram=0
while read -r name text rodata data bss; do
  echo "lib $name $((text + rodata)) $((data + bss))"
  flash=$((flash + text + rodata))
  ram=$((ram + data + bss))
done < <(python3 bench/size/map_sizes.py "$work/size_stack.map" "${archives[@]}")
read -r _ text rodata data bss < <(python3 bench/size/map_sizes.py "$work/size_stack.map" libgcc.a)
echo "libgcc $((text + rodata)) $((data + bss))"

# Application-owned memory: the server state and the buffers/arenas of size_stack.c.
server=$(arm-none-eabi-nm -S "$elf" | awk '$4 == "server" { print $2 }')
buffers=0
for sym in request_buffer tensor_arena workspace_arena; do
  hex=$(arm-none-eabi-nm -S "$elf" | awk -v s="$sym" '$4 == s { print $2 }')
  buffers=$((buffers + 16#$hex))
done
echo "stack $flash $ram $((16#$server)) $buffers"

# Biggest utvm symbols: defined in the image and in one of the utvm archives.
ours=$(arm-none-eabi-nm --defined-only "${libs[0]}" "${libs[@]:2}" 2>/dev/null |
  awk 'NF == 3 { print $3 }' | sort -u)
arm-none-eabi-nm -S --size-sort "$elf" | awk 'NF == 4 { print $2, $4 }' |
  while read -r size name; do
    if grep -qxF "$name" <<<"$ours"; then
      echo "symbol $((16#$size)) $name"
    fi
  done | sort -k2,2nr | awk 'NR <= 8'

arm-none-eabi-nm "$elf" | awk '{ print $NF }' |
  grep -E '^_*(v?[sf]?n?printf|v?asprintf|v?dprintf|puts|putchar|malloc|free|calloc|realloc|memalign|posix_memalign)(_r)?$' |
  sed 's/^/forbidden /' || true
# image_size <elf>: "<flash> <static RAM>" of a whole program (text, data + bss).
image_size() { arm-none-eabi-size "$1" | awk 'NR == 2 { print $1, $2 + $3 }'; }
read -r image_flash image_ram < <(image_size "$elf")
echo "image $image_flash $image_ram"

# The baseline: the application alone, with the test system library and the C library's
# string functions, and stubs for the three C runtime functions that library calls; the hooks
# are kept as the stack keeps them. The stack's cost is the difference of the images (the
# stubs make it a few bytes smaller).
keep=(size_app_uart_write size_app_random test_syslib_time_us TVMPlatformTimerStart
      TVMPlatformTimerStopNs TVMPlatformBeforeMeasurement TVMPlatformAfterMeasurement
      TVMPlatformAbort TVMSystemLibEntryPoint memcpy memmove memset memcmp)
arm-none-eabi-gcc "${cflags[@]}" -DSIZE_APP_ONLY -Iinclude -I"$dlpack" -Itests/syslib \
  bench/size/size_stack.c -o "$work/size_app.elf" "${ldflags[@]}" --specs=nosys.specs \
  "${keep[@]/#/-Wl,--undefined=}" "${libs[1]}"
read -r app_flash app_ram < <(image_size "$work/size_app.elf")
echo "cost $((image_flash - app_flash)) $((image_ram - app_ram))"
