#!/bin/sh
# Builds TensorFlow Lite Micro (TFLM's own Makefile, TARGET=cortex_m_generic, BUILD_TYPE=release)
# from bare git mirrors, offline, with Debian's arm-none-eabi-gcc, in three configurations, and
# links one bare-metal image per configuration and model with our harness (main.cc) on utvm's
# Cortex-M board support:
#   m4-ref     cortex-m4+fp, reference kernels                      (QEMU mps2-an386)
#   m4-cmsis   cortex-m4+fp, OPTIMIZED_KERNEL_DIR=cmsis_nn          (QEMU mps2-an386)
#   m55-cmsis  cortex-m55 (MVE), OPTIMIZED_KERNEL_DIR=cmsis_nn      (QEMU mps3-an547)
# A developer step (CI never runs it); nothing of TFLM/CMSIS is committed. See README.md.
#
#   MIRROR=/work/.mirror W=/work/tflm-cm bench/tflm/build.sh [config...]
#
# MIRROR: bare git mirrors <owner>+<name>/repo of tensorflow/tflite-micro, google/flatbuffers,
#         google/gemmlowp, google/ruy, mborgerding/kissfft, ARM-software/CMSIS-NN,
#         ARM-software/CMSIS_6, ARM-software/Cortex_DFP
# W:      scratch folder: TFLM unpacked in $W/tflm, images $W/tflm-<config>-<model>.elf (+ .map)
# MODELS: folder of the shared models (default: ../shared/models beside the repository, as
#         UTVM_SHARED_DIR; or /work/shared/models)
# JOBS:   make -j (default 2)
set -eu

: "${MIRROR:?set MIRROR}" "${W:?set W}"
JOBS=${JOBS:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
MODELS=${MODELS:-/work/shared/models}
TFLM_COMMIT=90b983c2b3f1                                  # as tests/tools/tflm_oracle/build.sh
# The commits TFLM 90b983c2b3f1 pins (tools/make/ext_libs/cmsis_nn_download.sh, cmsis_download.sh)
CMSIS_NN_COMMIT=4ab83cc3cc98fb85ed6dafb55e8ca02f1628dcae
CMSIS_COMMIT=5782d6f8057906d360f4b95ec08a2354afe5c9b9
CORTEX_DFP_COMMIT=c2c70a97a20fb355815e2ead3d4a40e35a4a3cdf
TOOLCHAIN_ROOT=$(dirname "$(command -v arm-none-eabi-gcc)")/  # Debian's gcc-arm-none-eabi
CONFIGS=${*:-m4-ref m4-cmsis m55-cmsis}

mkdir -p "$W/tflm"
W=$(cd "$W" && pwd)
cd "$W/tflm"
if [ ! -f tensorflow/lite/micro/micro_interpreter.h ]; then
  git --git-dir="$MIRROR/tensorflow+tflite-micro/repo" archive "$TFLM_COMMIT" | tar -x
fi

# Third-party code where TFLM's Makefile downloads it, at the versions its scripts pin; an
# existing folder makes each download script skip its download.
D=tensorflow/lite/micro/tools/make/downloads
mkdir -p "$D"
unpack() {  # <dir> <mirror> <rev>
  if [ ! -d "$D/$1" ]; then
    mkdir -p "$D/$1"
    git --git-dir="$MIRROR/$2/repo" archive "$3" | tar -x -C "$D/$1"
  fi
}
if [ ! -d "$D/flatbuffers" ]; then
  unpack flatbuffers google+flatbuffers v25.9.23
  find "$D/flatbuffers" \( -name BUILD -o -name BUILD.bazel \) -exec rm -f {} +
  (cd "$D/flatbuffers" && patch -s -p1 < ../../flatbuffers.patch)
fi
unpack gemmlowp google+gemmlowp 719139ce755a0f31cbf1c37f7f98adcc7fc9f425
unpack ruy google+ruy d37128311b445e758136b8602d1bbd2a755e115d
if [ ! -d "$D/kissfft" ]; then
  unpack kissfft mborgerding+kissfft v130
  (cd "$D/kissfft" && patch -s -p1 < "$W/tflm/third_party/kissfft/kissfft.patch")
fi
mkdir -p "$D/pigweed"
if [ ! -d "$D/cmsis" ]; then
  unpack cmsis ARM-software+CMSIS_6 "$CMSIS_COMMIT"
  unpack cmsis/Cortex_DFP ARM-software+Cortex_DFP "$CORTEX_DFP_COMMIT"
fi
unpack cmsis_nn ARM-software+CMSIS-NN "$CMSIS_NN_COMMIT"

# tests.inc loads the examples, integration tests and benchmarks, whose data generators need
# numpy and PIL at Makefile parse time: not needed for the library, so left out.
# shellcheck disable=SC2016 # a literal $(MAKEFILE_DIR)
sed -i 's|^include $(MAKEFILE_DIR)/tests.inc|# & (left out by bench/tflm/build.sh)|' \
  tensorflow/lite/micro/tools/make/Makefile

# make arguments of a configuration
config_args() {
  case $1 in
    m4-ref)    echo "TARGET_ARCH=cortex-m4+fp" ;;
    m4-cmsis)  echo "TARGET_ARCH=cortex-m4+fp OPTIMIZED_KERNEL_DIR=cmsis_nn" ;;
    m55-cmsis) echo "TARGET_ARCH=cortex-m55 OPTIMIZED_KERNEL_DIR=cmsis_nn" ;;
    *) echo "unknown configuration $1" >&2; exit 2 ;;
  esac
}

# The framework less its test-only files, and the kernels of the operators the six models use
# (ADD, AVERAGE_POOL_2D, CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, RESHAPE, SOFTMAX) with
# their helpers, plus (cmsis_nn) every CMSIS-NN source TFLM's cmsis_nn.inc lists: object files
# built by TFLM's own Makefile rules and flags, archived as libtensorflow-microlite.a. A static
# library only contributes the members an image references, so this gives the same images as
# TFLM's whole library (FULL=1 builds and links that: `make microlite`, ~200 files, about 30 min
# per configuration on 2 shared cores).
CORE_TEST_ONLY="fake_micro_context mock_micro_graph recording_micro_allocator
  recording_single_arena_buffer_allocator test_helper_custom_ops test_helpers"
KERNELS="add add_common conv conv_common depthwise_conv depthwise_conv_common fully_connected
  fully_connected_common kernel_util micro_tensor_utils pooling pooling_common reshape
  reshape_common softmax softmax_common"
words_re() { echo "$*" | tr -s ' \n' '\n' | sed '/^$/d' | paste -sd'|'; }

# Per board: utvm's port objects (startup.c, crash.c, format.c, rx_ring.c, timer.c, the UART
# driver) and utvm_common, built by utvm's own CMake preset in the worktree.
port_build() {  # <board>
  if [ ! -f "$ROOT/build/$1/CMakeCache.txt" ]; then
    (cd "$ROOT" && cmake --preset "$1" >/dev/null)
  fi
  cmake --build "$ROOT/build/$1" -j"$JOBS" --target utvm_cortex_m_port utvm_common >/dev/null
}

for c in $CONFIGS; do
  case $c in
    m4-ref|m4-cmsis) board=mps2-an386; linker=$ROOT/ports/cortex-m/boards/mps2/linker.ld ;;
    m55-cmsis)       board=mps3-an547; linker=$ROOT/ports/cortex-m/boards/mps3-an547/linker.ld ;;
  esac
  # shellcheck disable=SC2046
  set -- -f tensorflow/lite/micro/tools/make/Makefile TARGET=cortex_m_generic BUILD_TYPE=release \
    TOOLCHAIN=gcc TARGET_TOOLCHAIN_ROOT="$TOOLCHAIN_ROOT" $(config_args "$c")
  var() { make -s "$@" "print-$V" 2>/dev/null | sed -n "s/^$V=//p"; }
  LIBDIR=$W/lib/$c
  mkdir -p "$LIBDIR"
  if [ "${FULL:-0}" = 1 ]; then
    echo "== $c: make $* microlite"
    make "$@" -j"$JOBS" microlite
    V=MICROLITE_LIB_PATH; cp "$(var "$@")" "$LIBDIR/libtensorflow-microlite.a"
  else
    V=MICROLITE_LIB_OBJS; core=$(var "$@" | tr ' ' '\n' | grep '\.o$' |
      grep -Ev "/($(words_re "$CORE_TEST_ONLY"))\.o$")
    V=MICROLITE_KERNEL_OBJS; kern=$(var "$@" | tr ' ' '\n' |
      grep -E "/kernels/tensorflow/lite/micro/kernels/(cmsis_nn/)?($(words_re "$KERNELS"))\.o$")
    V=MICROLITE_THIRD_PARTY_KERNEL_OBJS; third=$(var "$@" | tr ' ' '\n' | grep '\.o$' || true)
    echo "== $c: make $* <$(echo "$core" "$kern" "$third" | wc -w) objects>"
    # shellcheck disable=SC2086
    make "$@" -j"$JOBS" $core $kern $third
    rm -f "$LIBDIR/libtensorflow-microlite.a"
    # shellcheck disable=SC2086
    arm-none-eabi-ar -rcs "$LIBDIR/libtensorflow-microlite.a" $core $kern $third
  fi
  # (less the quoted CMSIS device-header define, for the cycle counters the harness does not use)
  V=CXXFLAGS; cxxflags=$(var "$@" | tr ' ' '\n' | grep -v '"' | paste -sd' ')
  V=INCLUDES; includes=$(var "$@" | tr -d '"')

  port_build "$board"
  B=$ROOT/build/$board
  port_objs=$(find "$B/ports/cortex-m/CMakeFiles/utvm_cortex_m_port.dir" -name '*.obj' | sort)
  for m in kws vww ic ad person micro_speech; do
    case $m in
      kws) f=mlperf_tiny_kws_dscnn_int8.tflite
           in=refdata/mlperf_tiny/kws_input0_int8.bin; out=refdata/mlperf_tiny/kws_input0_int8_tflm.out0.bin ;;
      vww) f=mlperf_tiny_vww_mobilenetv1_int8.tflite
           in=refdata/mlperf_tiny/vww_from_person_bmp_int8.bin; out=refdata/mlperf_tiny/vww_from_person_bmp_int8_tflm.out0.bin ;;
      ic)  f=mlperf_tiny_ic_resnet8_int8.tflite
           in=refdata/mlperf_tiny/ic_input0_int8.bin; out=refdata/mlperf_tiny/ic_input0_int8_tflm.out0.bin ;;
      ad)  f=mlperf_tiny_ad_autoencoder_int8.tflite
           in=refdata/mlperf_tiny/ad_window0_int8.bin; out=refdata/mlperf_tiny/ad_window0_int8_tflm.out0.bin ;;
      person) f=person_detect_int8.tflite
           in=refdata/person_detection/person_input_int8.bin; out=refdata/person_detection/person_tflm.out0.bin ;;
      micro_speech) f=micro_speech_int8.tflite
           in=refdata/micro_speech/yes_1000ms_features_int8.bin; out=refdata/micro_speech/yes_1000ms_tflm.out0.bin ;;
    esac
    elf=$W/tflm-$c-$m.elf
    M=$(echo "$m" | tr "[:lower:]" "[:upper:]")
    # The harness with TFLM's own C++ flags for this configuration (-Os like its framework),
    # utvm's port headers, and the model's files embedded.
    # shellcheck disable=SC2086
    "${TOOLCHAIN_ROOT}arm-none-eabi-g++" $cxxflags -Os $includes -I"$ROOT/ports/cortex-m" \
      -I"$ROOT/ports/cortex-m/boards/$board" -I"$ROOT/include" -DBENCH_MODEL_$M \
      -DBENCH_NAME="\"$m\"" -DBENCH_MODEL_FILE="\"$MODELS/$f\"" \
      -DBENCH_INPUT_FILE="\"$MODELS/$in\"" -DBENCH_EXPECTED_FILE="\"$MODELS/$out\"" \
      -c "$HERE/main.cc" -o "$W/tflm-$c-$m.o"
    # Linked like utvm's own images (ports/cortex-m/CMakeLists.txt: utvm_cortex_m_image).
    cpu=$(echo "$cxxflags" | tr ' ' '\n' | grep -E '^-m(cpu|fpu|float-abi|thumb)' | paste -sd' ')
    # shellcheck disable=SC2086
    "${TOOLCHAIN_ROOT}arm-none-eabi-g++" $cpu --specs=nano.specs -nostartfiles \
      -Wl,--gc-sections -Wl,--no-enum-size-warning -T"$linker" -L"$ROOT/ports/cortex-m" \
      -Wl,-Map="$W/tflm-$c-$m.map" -o "$elf" "$W/tflm-$c-$m.o" $port_objs \
      "$B/src/common/libutvm_common.a" "$LIBDIR/libtensorflow-microlite.a" -lm
    echo "built $elf"
  done
done
