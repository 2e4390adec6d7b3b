#!/usr/bin/env bash
# Benchmarks of the framing and session layers. Prints markdown tables on stdout, and how
# each number was measured; build output goes to build/bench/build.log.
#
#   bash bench/run.sh
#
# Needs: cmake, gcc, valgrind, arm-none-eabi-gcc with newlib, python3. Builds the presets
# host, cortex-m3, cortex-m4, cortex-m55, cortex-m4-crc-table and cortex-m4-crc-bitwise
# (targets it needs only), and the host preset once per CRC implementation in build/bench/.
# With qemu-system-arm: also the board presets mps2-an385, mps2-an386, mps3-an547, netduinoplus2
# (firmware images, measured under QEMU by bench/qemu/), and models over RPC on mps2-an386 and
# mps3-an547 (bench/models_rpc.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

OUT=build/bench
LOG=$OUT/build.log
PAYLOAD_BYTES=65536
CORTEX_PRESETS=(cortex-m3 cortex-m4 cortex-m55 cortex-m4-crc-table cortex-m4-crc-bitwise)
CRC_VARIANTS=(table nibble bitwise)
mkdir -p "$OUT"
: >"$LOG"

fail() {
  echo "bench/run.sh: $*" >&2
  exit 1
}

# build <preset> <target>...: configure and build the targets of one preset.
build() {
  local preset=$1
  shift
  { cmake --preset "$preset" && cmake --build --preset "$preset" -j 2 --target "$@"; } \
    >>"$LOG" 2>&1 || fail "building $* for preset $preset failed, see $LOG"
}

for tool in valgrind arm-none-eabi-gcc arm-none-eabi-nm python3; do
  command -v "$tool" >/dev/null || fail "$tool not found"
done

# ------------------------------------------------------------------ host: instructions
# build_crc_variant <table|nibble|bitwise>: bench_framing of the host preset with that CRC
# implementation, in build/bench/host-crc-<variant>.
build_crc_variant() {
  local dir=$OUT/host-crc-$1
  { cmake --preset host -B "$dir" -DUTVM_CRC16="$1" && cmake --build "$dir" -j 2 --target bench_framing; } \
    >>"$LOG" 2>&1 || fail "building bench_framing with UTVM_CRC16=$1 failed, see $LOG"
}

# callgrind_ir <encode|decode> <random|ff> <bytes>: instructions executed inside
# utvm_framer_send (encode) or utvm_unframer_feed (decode), callees included.
callgrind_ir() {
  local fn=utvm_unframer_feed
  [[ $1 == encode ]] && fn=utvm_framer_send
  valgrind --tool=callgrind --toggle-collect="$fn" --callgrind-out-file="$OUT/callgrind.out" \
    "$BENCH" "$1" "$2" "$3" >"$OUT/bench.stdout" 2>>"$LOG" || fail "$BENCH $* failed, see $LOG"
  sed -n 's/^summary: //p' "$OUT/callgrind.out"
}

# wire_bytes <random|ff> <bytes>: bytes the encoder emits for one packet.
wire_bytes() {
  "$BENCH" encode "$1" "$2" | sed -n 's/.*, \([0-9]*\) wire bytes/\1/p'
}

echo "## Framing throughput (host)"
echo
echo "| CRC | operation | payload | instructions per payload byte | instructions per packet (fixed) | wire bytes per payload byte |"
echo "|---|---|---|---:|---:|---:|"
for crc in "${CRC_VARIANTS[@]}"; do
  build_crc_variant "$crc"
  BENCH=$OUT/host-crc-$crc/bench/bench_framing
  for op in decode encode; do
    for content in random ff; do
      fixed=$(callgrind_ir "$op" "$content" 0)
      total=$(callgrind_ir "$op" "$content" "$PAYLOAD_BYTES")
      wire0=$(wire_bytes "$content" 0)
      wire=$(wire_bytes "$content" "$PAYLOAD_BYTES")
      label=$([[ $content == ff ]] && echo "all 0xFF" || echo "random")
      awk -v crc="$crc" -v op="$op" -v label="$label" -v f="$fixed" -v t="$total" -v w0="$wire0" \
        -v w="$wire" -v n="$PAYLOAD_BYTES" \
        'BEGIN { printf "| %s | %s | %s | %.2f | %d | %.3f |\n", crc, op, label, (t - f) / n, f, (w - w0) / n }'
    done
  done
done
cat <<EOF

Measured with \`valgrind --tool=callgrind --toggle-collect=<function>\` on \`bench/bench_framing\`
(preset host: gcc $(gcc -dumpfullversion 2>/dev/null || gcc -dumpversion), $(uname -m), RelWithDebInfo = -O2, with each
\`UTVM_CRC16\` implementation: table = 512-byte table, nibble = 32-byte table (the default),
bitwise = no table).
Only instructions inside \`utvm_unframer_feed\` (decode, fed in 256-byte chunks, trivial
callbacks) or \`utvm_framer_send\` (encode, into a byte-counting write callback) are counted.
Per-byte cost = (instructions for one ${PAYLOAD_BYTES}-byte packet - instructions for one empty
packet) / ${PAYLOAD_BYTES}; the fixed column is the empty packet. These are host (x86-64)
instruction counts, a relative measure: Cortex-M cycle counts differ.

EOF

# ------------------------------------------------------------------ cortex-m: sizes
# Size programs are compiled with the preset's own C flags and linked with
# --gc-sections; map_sizes.py then sums the sections kept from each utvm archive.
declare -A ROW
EXTERNALS=""
for preset in "${CORTEX_PRESETS[@]}"; do
  build "$preset" utvm_framing utvm_session
  dir=build/$preset
  cache=$dir/CMakeCache.txt
  read -r -a cflags <<<"$(sed -n 's/^CMAKE_C_FLAGS:STRING=//p' "$cache") -Os"
  read -r -a ldflags <<<"$(sed -n 's/^CMAKE_EXE_LINKER_FLAGS:STRING=//p' "$cache")"
  crc=$(sed -n 's/^UTVM_CRC16:STRING=//p' "$cache")
  libs=("$dir/src/session/libutvm_session.a" "$dir/src/framing/libutvm_framing.a"
        "$dir/src/common/libutvm_common.a")
  work=$OUT/$preset
  mkdir -p "$work"
  for layer in framing session; do
    arm-none-eabi-gcc "${cflags[@]}" -Iinclude "bench/size/size_$layer.c" -o "$work/size_$layer.elf" \
      "${ldflags[@]}" --specs=nosys.specs -Wl,-Map="$work/size_$layer.map" "${libs[@]}" \
      >>"$LOG" 2>&1 || fail "linking bench/size/size_$layer.c for $preset failed, see $LOG"
  done
  arm-none-eabi-gcc "${cflags[@]}" -Iinclude -c bench/size/state_sizes.c -o "$work/state_sizes.o" \
    >>"$LOG" 2>&1 || fail "compiling bench/size/state_sizes.c for $preset failed, see $LOG"

  # framing: framing objects in the framing program; session: session objects in the
  # session program; stack: session + framing + common objects in the session program.
  read -r _ ft fr fd fb < <(python3 bench/size/map_sizes.py "$work/size_framing.map" libutvm_framing.a)
  mapfile -t s < <(python3 bench/size/map_sizes.py "$work/size_session.map" \
    libutvm_session.a libutvm_framing.a libutvm_common.a)
  read -r _ st sr sd sb <<<"${s[0]}"
  stack_flash=0
  for line in "${s[@]}"; do
    read -r _ t r _ _ <<<"$line"
    stack_flash=$((stack_flash + t + r))
  done
  state=""
  for type in utvm_framer_t utvm_unframer_t utvm_session_t; do
    hex=$(arm-none-eabi-nm -S "$work/state_sizes.o" | awk -v s="sizeof_$type" '$4 == s { print $2 }')
    state+=" $((16#$hex)) |"
  done
  ROW[$preset]="| $preset | $crc | $((ft + fr)) | $((fd + fb)) | $((st + sr)) | $((sd + sb)) | $stack_flash |$state"

  undefined=$(arm-none-eabi-nm -u "${libs[@]}" 2>/dev/null | awk 'NF == 2 { print $2 }' | sort -u)
  defined=$(arm-none-eabi-nm --defined-only "${libs[@]}" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u)
  EXTERNALS=$(comm -23 <(echo "$undefined") <(echo "$defined") | paste -sd, -)
done

echo "## Code size and static RAM (Cortex-M, arm-none-eabi-gcc -Os)"
echo
echo "| preset | CRC | framing flash | framing static RAM | session flash | session static RAM | session + framing flash | sizeof utvm_framer_t | sizeof utvm_unframer_t | sizeof utvm_session_t |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for preset in "${CORTEX_PRESETS[@]}"; do
  echo "${ROW[$preset]}"
done
cat <<EOF

All sizes in bytes; compiler: arm-none-eabi-gcc $(arm-none-eabi-gcc -dumpversion), each preset's own
flags (MinSizeRel, -Os, -ffunction-sections -fdata-sections). Measured by linking
\`bench/size/size_framing.c\` and \`bench/size/size_session.c\` (bare-metal programs that call
every public function of their layer) against the preset's libraries with newlib-nano and
\`-Wl,--gc-sections\`, then summing from the linker map the input sections kept from each
archive (\`bench/size/map_sizes.py\`): flash = .text + .rodata, static RAM = .data + .bss.
"framing" counts libutvm_framing objects in the framing program; "session" counts
libutvm_session objects in the session program; "session + framing" counts all utvm objects
in the session program (what a firmware using sessions links). Startup code, the C library
and the programs' own code are excluded. The state structs (sizeof columns, from
\`bench/size/state_sizes.c\`) live in caller-owned memory: one framer + one unframer per
framing endpoint; utvm_session_t contains both. C library symbols the layers reference:
${EXTERNALS:-none}.
EOF

# ------------------------------------------------------------------ whole stack (issue 3)
# Framing + session + MinRPC server + C runtime: host instructions per request and per copied
# byte (bench/bench_rpc.c), and flash / static RAM per Cortex-M preset (bench/size/stack_size.sh).
STACK_PRESETS=(cortex-m3 cortex-m4 cortex-m55)
RPC_CALLS=100
build host bench_rpc
RPC_BENCH=build/host/bench/bench_rpc

# rpc_ir <workload> <amount>: instructions inside measured_feed() (the server handling the
# prepared requests, replies included) for one bench_rpc run.
rpc_ir() {
  valgrind --tool=callgrind --toggle-collect=measured_feed \
    --callgrind-out-file="$OUT/callgrind_rpc.out" "$RPC_BENCH" "$1" "$2" \
    >"$OUT/bench_rpc.stdout" 2>>"$LOG" || fail "$RPC_BENCH $* failed, see $LOG"
  sed -n 's/^summary: //p' "$OUT/callgrind_rpc.out"
}

echo
echo "## Whole stack: host instructions per RPC request"
echo
echo "| request | instructions per payload byte | instructions per request (fixed) |"
echo "|---|---:|---:|"
one=$(rpc_ir call 1)
many=$(rpc_ir call $((RPC_CALLS + 1)))
awk -v a="$one" -v b="$many" -v n="$RPC_CALLS" \
  'BEGIN { printf "| null CallFunc (GetCRTMaxPacketSize, Int result) | - | %.0f |\n", (b - a) / n }'
for op in copy_to copy_from; do
  small=$(rpc_ir "$op" 64)
  large=$(rpc_ir "$op" $((PAYLOAD_BYTES + 64)))
  label=$([[ $op == copy_to ]] && echo "CopyToRemote" || echo "CopyFromRemote")
  awk -v op="$label" -v s="$small" -v l="$large" -v n="$PAYLOAD_BYTES" \
    'BEGIN { p = (l - s) / n; printf "| %s | %.2f | %.0f |\n", op, p, s - 64 * p }'
done
cat <<EOF

Measured with \`valgrind --tool=callgrind --toggle-collect=measured_feed\` on \`bench/bench_rpc\`
(preset host, gcc -O2, $(uname -m)): an in-process server ($(sed -n 's/^UTVM_CRC16:STRING=//p' build/host/CMakeCache.txt) CRC, 2048-byte request buffer,
test system library) after handshake and setup; only the server's handling of the prepared
request frames (fed in 256-byte chunks) is counted, including unframing, CRC, dispatch and
framing the reply into a byte-counting write callback. Null call = (${RPC_CALLS} + 1 calls - 1
call) / ${RPC_CALLS}. Copies: per byte = (copy of $((PAYLOAD_BYTES + 64)) bytes - copy of 64 bytes) /
${PAYLOAD_BYTES}, fixed = the 64-byte copy minus 64 x per byte. CopyToRemote streams the payload
into the tensor as it is unframed; CopyFromRemote frames its CopyAck (one message, allowed after
utvm.rpc.server.GetMaxTransferSize) straight from the tensor.

EOF

declare -A STACK_ROW
STACK_LIBS=""
STACK_SYMBOLS=""
STACK_FORBIDDEN=""
for preset in "${STACK_PRESETS[@]}"; do
  build "$preset" utvm_minrpc utvm_test_syslib
  stack_out=$(bash bench/size/stack_size.sh "build/$preset" "$OUT/$preset/stack" 2>>"$LOG") ||
    fail "bench/size/stack_size.sh failed for $preset, see $LOG"
  libs_row=""
  symbols=""
  forbidden=""
  while read -r kind a b c d; do
    case $kind in
      stack) STACK_ROW[$preset]="| $preset | $a | $b | $c | $((b + c)) | $d |" ;;
      lib) libs_row+=" ${a#lib} $b B flash / $c B RAM," ;;
      libgcc) libs_row+=" (libgcc pulled in: $a B flash, not counted)," ;;
      symbol) symbols+=" \`$b\` $a B," ;;
      forbidden) forbidden+=" $a" ;;
    esac
  done <<<"$stack_out"
  STACK_LIBS+="- $preset:${libs_row%,}"$'\n'
  if [[ $preset == cortex-m4 ]]; then
    STACK_SYMBOLS=${symbols%,}
    read -r _ m4_flash m4_ram m4_state _ <<<"$(grep '^stack ' <<<"$stack_out")"
  fi
  STACK_FORBIDDEN+="- $preset:${forbidden:- none}"$'\n'
done

# The cortex-m4 stack without device error texts ("#<id>" tokens the host expands), in
# build/bench/cortex-m4-no-texts.
no_texts_dir=$OUT/cortex-m4-no-texts
{ cmake --preset cortex-m4 -B "$no_texts_dir" -DUTVM_ERROR_TEXTS=OFF &&
  cmake --build "$no_texts_dir" -j 2 --target utvm_minrpc utvm_test_syslib; } >>"$LOG" 2>&1 ||
  fail "building cortex-m4 with UTVM_ERROR_TEXTS=OFF failed, see $LOG"
no_texts_out=$(bash bench/size/stack_size.sh "$no_texts_dir" "$OUT/cortex-m4-no-texts-stack" 2>>"$LOG") ||
  fail "bench/size/stack_size.sh failed for cortex-m4 with UTVM_ERROR_TEXTS=OFF, see $LOG"
read -r _ nt_flash nt_ram nt_state nt_buffers <<<"$(grep '^stack ' <<<"$no_texts_out")"
NO_TEXTS_ROW="| cortex-m4, -DUTVM_ERROR_TEXTS=OFF | $nt_flash | $nt_ram | $nt_state | $((nt_ram + nt_state)) | $nt_buffers |"

echo "## Whole stack: code size and static RAM (Cortex-M, arm-none-eabi-gcc -Os)"
echo
echo "| preset | flash (.text + .rodata) | static RAM (.data + .bss) | sizeof utvm_rpc_server_t | RAM beyond buffers (static + server state) | buffers of the size program (not counted) |"
echo "|---|---:|---:|---:|---:|---:|"
for preset in "${STACK_PRESETS[@]}"; do
  echo "${STACK_ROW[$preset]}"
done
echo "$NO_TEXTS_ROW"
verdict() { (($1 <= $2)) && echo "meets" || echo "does NOT meet"; }
cat <<EOF

Issue 3 target on cortex-m4 -Os: at most 6144 B of flash and 1024 B of static RAM beyond the
configured buffers. Measured on cortex-m4: ${m4_flash} B of flash ($(verdict "$m4_flash" 6144) the
flash target) and $((m4_ram + m4_state)) B of RAM counting the server state, ${m4_ram} B without it
($(verdict $((m4_ram + m4_state)) 1024) the RAM target).

The last row is cortex-m4 built without device error texts (\`-DUTVM_ERROR_TEXTS=OFF\`): the
device writes each text of \`include/utvm/error_texts.h\` as a "#<id>" token, which the host
library expands back (\`utvm_host_expand_error\`), so no information is lost.

Per library (flash = .text + .rodata, RAM = .data + .bss):
${STACK_LIBS}
Biggest symbols on cortex-m4:${STACK_SYMBOLS}.

Measured by \`bench/size/stack_size.sh\`: \`bench/size/size_stack.c\` (a bare-metal firmware
that calls utvm_rpc_server_init, utvm_rpc_server_log and utvm_rpc_server_feed in its main
loop) is linked with each preset's flags, newlib-nano and \`-Wl,--gc-sections\` against the
utvm libraries and the test system library; \`bench/size/map_sizes.py\` sums from the map the
input sections kept from libutvm_minrpc, libutvm_crt (allocators, registry, the workspace calls
of generated operators; the server's opt-in features, the time evaluator, the sequence extension,
large calls and NDArray results, are not enabled, so none of their code is linked),
libutvm_session, libutvm_framing and libutvm_common. Excluded: the application's request
buffer and arenas, its platform hooks, the test system library, the C library and libgcc
(libgcc is listed separately: the runtime does integer arithmetic only, so on cortex-m4 and
m55 it is empty; on cortex-m3 it is the float addition of the test library's test_add_f32). The server
state (utvm_rpc_server_t: session, runtime tables, last-error text) is application memory and
has its own column.

No printf family and no allocator in the image: \`arm-none-eabi-nm size_stack.elf\` searched for
printf, sprintf, snprintf, vsnprintf, fprintf, puts, putchar, malloc, free, calloc, realloc,
memalign and their _r variants; symbols found:
${STACK_FORBIDDEN}
EOF

# ------------------------------------------------------------------ link-time optimisation
# The cortex-m4 size program and the mps2-an386 firmware, each built once without and once
# with UTVM_LTO=ON. LTO leaves no per-archive attribution, so the stack is counted as what it
# adds to the size program (stack_size.sh's cost line: the image less the same application
# without the stack), next to the whole images.
# size_program <build dir>: "<stack cost> <image flash>" of the size program.
size_program() {
  local out cost image
  out=$(bash bench/size/stack_size.sh "$1" "$1/stack-image" 2>>"$LOG")
  cost=$(sed -n 's/^cost \([0-9]*\) .*/\1/p' <<<"$out")
  image=$(sed -n 's/^image \([0-9]*\) .*/\1/p' <<<"$out")
  [[ -n $cost && -n $image ]] || fail "bench/size/stack_size.sh gave no cost or image size for $1, see $LOG"
  echo "$cost $image"
}
lto_dir=$OUT/cortex-m4-lto
lto_no_texts_dir=$OUT/cortex-m4-no-texts-lto
{ cmake --preset cortex-m4 -B "$lto_dir" -DUTVM_LTO=ON &&
  cmake --build "$lto_dir" -j 2 --target utvm_minrpc utvm_test_syslib &&
  cmake --preset cortex-m4 -B "$lto_no_texts_dir" -DUTVM_LTO=ON -DUTVM_ERROR_TEXTS=OFF &&
  cmake --build "$lto_no_texts_dir" -j 2 --target utvm_minrpc utvm_test_syslib; } >>"$LOG" 2>&1 ||
  fail "building the cortex-m4 libraries with UTVM_LTO=ON failed, see $LOG"
read -r plain_cost plain_image <<<"$(size_program build/cortex-m4)"
read -r lto_cost lto_image <<<"$(size_program "$lto_dir")"
read -r no_texts_cost no_texts_image <<<"$(size_program "$no_texts_dir")"
read -r lto_no_texts_cost lto_no_texts_image <<<"$(size_program "$lto_no_texts_dir")"
build mps2-an386 utvm-server
build mps2-an386-lto utvm-server
firmware_text() { arm-none-eabi-size "build/$1/bin/utvm-server.elf" | awk 'NR == 2 { print $1 }'; }
plain_fw=$(firmware_text mps2-an386)
lto_fw=$(firmware_text mps2-an386-lto)
echo
echo "## Link-time optimisation (UTVM_LTO=ON), Cortex-M4"
echo
echo "| flash (arm-none-eabi-size text) | without LTO | with LTO | difference |"
echo "|---|---:|---:|---:|"
echo "| stack cost in the size program | $plain_cost | $lto_cost | $((lto_cost - plain_cost)) |"
echo "| stack cost, -DUTVM_ERROR_TEXTS=OFF | $no_texts_cost | $lto_no_texts_cost | $((lto_no_texts_cost - no_texts_cost)) |"
echo "| size program (bench/size/size_stack.c), whole image | $plain_image | $lto_image | $((lto_image - plain_image)) |"
echo "| size program, -DUTVM_ERROR_TEXTS=OFF, whole image | $no_texts_image | $lto_no_texts_image | $((lto_no_texts_image - no_texts_image)) |"
echo "| mps2-an386 firmware (utvm-server.elf), whole image | $plain_fw | $lto_fw | $((lto_fw - plain_fw)) |"
cat <<EOF

With link-time optimisation the linker map no longer tells which archive a byte came from, so
the layers cannot be counted apart. The stack cost is what the stack adds to the size
program: \`bench/size/stack_size.sh\` also links a baseline (\`size_stack.c\` built with
-DSIZE_APP_ONLY: the application's platform hooks, the test system library and the C
library's string functions, but no stack) with the same flags and subtracts its text from the
size program's. Without LTO this is the per-library flash of the table above plus main()'s
calls into the stack (about 130 B), less the baseline's stubs of the three C runtime
functions the test library calls. The programs come from the preset cortex-m4 and from the
same preset with -DUTVM_LTO=ON (libraries with -flto -ffat-lto-objects, programs compiled and
linked with -flto), and likewise with -DUTVM_ERROR_TEXTS=OFF (the smallest configuration);
the firmware images are the presets mps2-an386 and mps2-an386-lto (whole images, with the C
library, startup code and the test system library).
EOF

# ------------------------------------------------------------------ boards under QEMU (issue 4)
# Per board: flash / RAM of the firmware image split by origin (bench/qemu/image_split.py), and
# guest instructions per request under qemu-system-arm -icount shift=0 (bench/qemu/bench_qemu.c).
QEMU_BOARDS=(mps2-an385 mps2-an386 mps3-an547 netduinoplus2)
if ! command -v qemu-system-arm >/dev/null; then
  echo
  echo "## Boards under QEMU: skipped (qemu-system-arm not found)"
else
  split_args=()
  for board in "${QEMU_BOARDS[@]}"; do
    build "$board" utvm-server
    split_args+=("$board=build/$board/bin/utvm-server.elf")
  done
  build host bench_qemu
  echo
  echo "## Boards: firmware image size by origin (utvm-server.elf)"
  echo
  python3 bench/qemu/image_split.py "${split_args[@]}" 2>>"$LOG" ||
    fail "bench/qemu/image_split.py failed, see $LOG"
  cat <<EOF

Bytes, from each board's linker map \`build/<board>/bin/utvm-server.map\` and section headers
(\`bench/qemu/image_split.py\`), preset MinSizeRel (-Os, --gc-sections, newlib-nano). Flash =
sections loaded into flash (code, constants, .data initial values), RAM = allocated sections in
RAM. library = the utvm_* archives (framing, session, crt, minrpc, common); port =
ports/cortex-m objects (startup, timer, crash record, RX ring, UART/watchdog drivers, main.c:
its RAM holds the server state, the 2048-byte request buffer, the workspace arena and the RX
ring); test library = libutvm_test_syslib; C runtime = newlib and libgcc; other = linker fill.
The tensor arena and the stack reserve are sized per board (board.h, linker.ld).
EOF
  echo
  echo "## Boards: guest instructions per request under QEMU"
  echo
  echo "| board | null call (instructions) | CopyToRemote (instructions per payload byte) | CopyFromRemote (instructions per payload byte) | 64-byte CopyToRemote | 64-byte CopyFromRemote | copy chunk (bytes) |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for board in "${QEMU_BOARDS[@]}"; do
    result=$(build/host/bench/bench_qemu "$board" "build/$board/bin/utvm-server.elf" 200 \
      2>>"$LOG") || fail "build/host/bench/bench_qemu $board failed, see $LOG"
    read -r _ null up down up64 down64 chunk <<<"$result"
    echo "| $board | $null | $up | $down | $up64 | $down64 | $chunk |"
  done
  cat <<EOF

Measured by \`build/host/bench/bench_qemu BOARD ELF 200\` (bench/qemu/bench_qemu.c, host library,
transport qemu:BOARD:ELF = \`qemu-system-arm -M BOARD -nographic -monitor none -serial stdio
-icount shift=0\`, $(qemu-system-arm --version | head -n 1)). With \`-icount shift=0\` the guest
clock advances 1 ns per executed instruction. The firmware counts its busy time: the main loop
reads the SysTick counter (utvm_port_ticks) around its wfi and accumulates the ticks asleep; the
global function utvm.port.GetBusyNs returns (ticks since boot - ticks asleep) x 1e9 /
UTVM_BOARD_CPU_HZ, i.e. guest instructions executed outside wfi, at SysTick resolution (one tick
= 1e9 / CPU_HZ instructions: 40 at 25 MHz, 6 at 168 MHz). The host reads it before and after each
measurement and subtracts the cost of one read (the smallest difference of back-to-back reads).
Null call = (200 CallFunc of tvm.rpc.server.GetCRTMaxPacketSize) / 200. Copies: (one 65536-byte
copy - one 64-byte copy) / 65472. Each figure is the cheapest of 3 rounds: the count depends on
how QEMU's I/O thread happens to batch the host's bytes into the receive ring (each wake-up and
main-loop pass costs instructions), so runs differ by up to about 10-20 % for the null call and
the fixed costs and about 5-10 % for upload per byte. Copies go into one device tensor, chunked by the device's max transfer
size (last column); the downloaded data is checked against the uploaded. The 64-byte columns are
whole requests (fixed cost included). Everything the device executes outside wfi is counted:
the UART RX interrupt (one per received byte under QEMU), the main loop, unframing and CRC,
dispatch, framing the reply and the polled UART transmit. Caveats: QEMU counts guest
instructions, not cycles (no wait states, pipeline or bus timing), so a real board needs more
cycles; and the receive cost per byte depends on how many bytes each wake-up finds in the ring:
QEMU hands the UART one byte at a time, so every byte costs an interrupt and a main-loop pass.
EOF
fi

# ------------------------------------------------------------------ int8 kernels (issue 13)
# Flash of each kernel's object (one operator per file) in libutvm_kernels.a, per Cortex-M
# preset: .text + .rodata of the object, as arm-none-eabi-size reports it (each object's code is
# what a model using that operator links; the prepare helpers are shared by all).
echo
echo "## int8 kernel library: flash per kernel (Cortex-M presets: kernels at -O2, UTVM_KERNELS_SIZE_BUILD_FLAGS)"
echo
kernel_presets=(cortex-m3 cortex-m4 cortex-m55)
for preset in "${kernel_presets[@]}"; do
  build "$preset" utvm_kernels
done
printf '| object |'
for preset in "${kernel_presets[@]}"; do printf ' %s (bytes) |' "$preset"; done
printf '\n|---|'
for _ in "${kernel_presets[@]}"; do printf -- '---:|'; done
echo
declare -A kernel_size
objects=()
for preset in "${kernel_presets[@]}"; do
  while read -r text data _bss _dec _hex name _archive; do
    [[ $name == *.obj ]] || continue
    name=${name%.c.obj}
    kernel_size[$preset/$name]=$((text + data))
    [[ $preset == "${kernel_presets[0]}" ]] && objects+=("$name")
  done < <(arm-none-eabi-size "build/$preset/src/kernels/libutvm_kernels.a")
done
for name in "${objects[@]}"; do
  printf '| %s |' "$name"
  for preset in "${kernel_presets[@]}"; do printf ' %s |' "${kernel_size[$preset/$name]}"; done
  echo
done
printf '| **total** |'
for preset in "${kernel_presets[@]}"; do
  total=0
  for name in "${objects[@]}"; do total=$((total + kernel_size[$preset/$name])); done
  printf ' **%s** |' "$total"
done
echo
cat <<EOF

Measured with \`arm-none-eabi-size build/PRESET/src/kernels/libutvm_kernels.a\` (text + data of
each object; the presets build MinSizeRel (-Os) with the kernels at UTVM_KERNELS_SIZE_BUILD_FLAGS,
default -O2; $(arm-none-eabi-gcc --version | head -n 1)). A firmware
links only the kernels its models use (--gc-sections); quantize_params holds the prepare helpers
(float scales to integer multipliers), which a generated model (the code emitter) need not link.
EOF

# ------------------------------------------------------------------ models (issue 13)
# Host instructions per inference (bench/bench_model.c under callgrind: exactly one
# utvm_runner_invoke after a warm-up), the runner's activations arena next to TensorFlow Lite
# Micro's arena for the same model, and whether the output equals TFLM's reference bytes.
build host bench_model
MODEL_BENCH=build/host/bench/bench_model
MODELS=${UTVM_SHARED_DIR:-../shared}/models
# model file | input | TFLM's output | TFLM arena (bytes, shared/models/README.md)
MODEL_CASES=(
  "person_detect_int8.tflite refdata/person_detection/person_input_int8.bin refdata/person_detection/person_tflm.out0.bin 85024"
  "micro_speech_int8.tflite refdata/micro_speech/yes_1000ms_features_int8.bin refdata/micro_speech/yes_1000ms_tflm.out0.bin 7312"
  "mlperf_tiny_kws_dscnn_int8.tflite refdata/mlperf_tiny/kws_input0_int8.bin refdata/mlperf_tiny/kws_input0_int8_tflm.out0.bin 24000"
  "mlperf_tiny_vww_mobilenetv1_int8.tflite refdata/mlperf_tiny/vww_from_person_bmp_int8.bin refdata/mlperf_tiny/vww_from_person_bmp_int8_tflm.out0.bin 103392"
  "mlperf_tiny_ic_resnet8_int8.tflite refdata/mlperf_tiny/ic_input0_int8.bin refdata/mlperf_tiny/ic_input0_int8_tflm.out0.bin 55712"
  "mlperf_tiny_ad_autoencoder_int8.tflite refdata/mlperf_tiny/ad_window0_int8.bin refdata/mlperf_tiny/ad_window0_int8_tflm.out0.bin 3424"
  "hello_world_int8.tflite refdata/hello_world/in_-63.bin refdata/hello_world/tflm_in_-63.out0.bin 1184"
)
echo
echo "## Models: host instructions per inference and working memory"
echo
echo "| model | operators | bit-exact with TFLM | arena (bytes) | runner workspace (bytes) | arena + workspace (bytes) | TFLM arena (bytes) | (arena + workspace) / TFLM | host instructions per inference |"
echo "|---|---:|:---:|---:|---:|---:|---:|---:|---:|"
for entry in "${MODEL_CASES[@]}"; do
  read -r file input expected tflm <<<"$entry"
  result=$(valgrind --tool=callgrind --toggle-collect=measured_invoke \
    --callgrind-out-file="$OUT/callgrind_model.out" "$MODEL_BENCH" "$MODELS/$file" \
    "$MODELS/$input" "$MODELS/$expected" 2>>"$LOG") || fail "$MODEL_BENCH $file failed, see $LOG"
  read -r _ ops _ arena _ exact _ workspace <<<"$result"
  ir=$(sed -n 's/^summary: //p' "$OUT/callgrind_model.out")
  awk -v m="${file%.tflite}" -v o="$ops" -v e="$exact" -v a="$arena" -v t="$tflm" -v i="$ir" \
    -v w="$workspace" \
    'BEGIN { printf "| %s | %s | %s | %d | %d | %d | %d | %.2f | %d |\n", m, o, e, a, w, a + w, t, (a + w) / t, i }'
done
cat <<EOF

Measured by \`valgrind --tool=callgrind --toggle-collect=measured_invoke build/host/bench/bench_model
MODEL INPUT EXPECTED\` (host preset: gcc $(gcc -dumpversion), RelWithDebInfo -O2, portable C kernels):
one inference after a warm-up, instructions of utvm_runner_invoke and everything it calls. The
arena is the runner's activations arena (every intermediate tensor, graph inputs and outputs,
kernel scratch), planned once at init; TFLM's figure is its whole tensor arena for the same model
(shared/models/README.md), which also holds its own bookkeeping. The runner workspace is the
runner's own memory besides the arena (utvm_runner_workspace_size on this 64-bit host: tensor
offsets, each operator's prepared parameters, and during init the planner's working memory,
which the prepared parameters then reuse). bit-exact: the output equals TFLM's reference output
byte for byte.
EOF

# ------------------------------------------------------------------ models over RPC (issue 14)
# Graph executor, AOT and standalone instructions per inference per board, upload, memory and
# the model path's flash: bench/models_rpc.sh (needs the host tool and the board images).
if command -v qemu-system-arm >/dev/null; then
  build host utvm utvm-posix-server
  for board in mps2-an386 mps3-an547; do
    build "$board" utvm-server utvm-server-aot utvm-model-test utvm-ai-kws utvm-ai-ic utvm-ai-person
  done
  build cortex-m4 utvm_graph utvm_aot utvm_kfuncs utvm_kernels utvm_runner utvm_model
  echo
  bash bench/models_rpc.sh build 2>>"$LOG" || fail "bench/models_rpc.sh failed, see $LOG"
  echo
  bash bench/models_ai.sh build 2>>"$LOG" || fail "bench/models_ai.sh failed, see $LOG"
  # Issue 28's anchor: instructions and estimated cycles per core against TFLM (reference and
  # CMSIS-NN, bench/tflm/figures.tsv), graph executor and standalone images.
  build host insn_plugin
  for board in mps2-an385 mps2-an386 mps3-an547; do
    build "$board" utvm-server utvm-ai-kws utvm-ai-vww utvm-ai-ic utvm-ai-ad utvm-ai-person \
      utvm-ai-speech
  done
  echo
  echo "## Kernels per core against TensorFlow Lite Micro (bench/anchor.sh)"
  echo
  bash bench/anchor.sh build 2>>"$LOG" || fail "bench/anchor.sh failed, see $LOG"
fi
