#!/bin/sh
# Builds run_tflm against TensorFlow Lite Micro (reference kernels, x86-64 host), offline,
# from bare git mirrors. A developer step (CI never runs it); see README.md.
#
#   MIRROR=/work/.mirror W=/tmp/tflm_oracle tests/tools/tflm_oracle/build.sh
#
# MIRROR: a folder of bare git mirrors <owner>+<name>/repo of tensorflow/tflite-micro,
#         google/flatbuffers, google/gemmlowp, google/ruy, mborgerding/kissfft
# W:      a scratch folder (TFLM is unpacked to $W/tflm; the binary is $W/run_tflm)
# JOBS:   make -j (default 2)
set -eu

: "${MIRROR:?set MIRROR}" "${W:?set W}"
JOBS=${JOBS:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
TFLM_COMMIT=90b983c2b3f1     # the commit that produced shared/models/ops2's goldens

mkdir -p "$W/tflm"
cd "$W/tflm"
if [ ! -f tensorflow/lite/micro/micro_interpreter.h ]; then
  git --git-dir="$MIRROR/tensorflow+tflite-micro/repo" archive "$TFLM_COMMIT" | tar -x
fi

# Third-party code where TFLM's Makefile downloads it, at the versions its scripts pin
# (tools/make/third_party_downloads.inc, flatbuffers_download.sh, kissfft_download.sh).
D=tensorflow/lite/micro/tools/make/downloads
mkdir -p "$D"
unpack() {  # <dir> <mirror> <rev>
  if [ ! -d "$D/$1" ]; then
    mkdir "$D/$1"
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
# pigweed (googlesource, used by TFLM's own tests only): an existing folder makes
# pigweed_download.sh skip it.
mkdir -p "$D/pigweed"

# tests.inc loads the examples, integration tests and benchmarks, whose data generators need
# numpy and PIL at Makefile parse time: not needed for the library, so left out.
# shellcheck disable=SC2016 # a literal $(MAKEFILE_DIR)
sed -i 's|^include $(MAKEFILE_DIR)/tests.inc|# & (left out by run_tflm build.sh)|' \
  tensorflow/lite/micro/tools/make/Makefile

MAKE="make -f tensorflow/lite/micro/tools/make/Makefile -j$JOBS"
GEN=gen/linux_x86_64_default_gcc/obj
# The framework (interpreter, allocator, planners, flatbuffer parsing) and the kernels
# run_tflm registers, as object files built by TFLM's own rules and flags (all of
# libtensorflow-microlite.a would be `$MAKE microlite`, ~200 files).
CORE=$($MAKE -s print-MICROLITE_CC_SRCS 2>/dev/null | sed -n 's/^MICROLITE_CC_SRCS=//p' |
       tr ' ' '\n' | grep '^tensorflow/' | grep -v test_helper)
KERNELS="activations activations_common broadcast_to elu fully_connected_common kernel_util
  leaky_relu leaky_relu_common lstm_eval lstm_eval_common micro_tensor_utils prelu prelu_common
  unidirectional_sequence_lstm
  add add_common concatenation conv conv_common depthwise_conv depthwise_conv_common dequantize
  dequantize_common fully_connected hard_swish hard_swish_common logistic logistic_common mul
  mul_common pad pad_common pooling pooling_common quantize quantize_common reduce reduce_common
  reshape reshape_common softmax softmax_common sub sub_common tanh transpose transpose_common"
OBJS=""
for s in $CORE; do OBJS="$OBJS $GEN/core/${s%.cc}.o"; done
for k in $KERNELS; do OBJS="$OBJS $GEN/kernels/tensorflow/lite/micro/kernels/$k.o"; done
# shellcheck disable=SC2086
$MAKE $OBJS

# run_tflm itself, with the defines the library was built with (TF_LITE_STATIC_MEMORY changes
# TfLiteTensor's layout).
# shellcheck disable=SC2086
g++ -std=c++17 -O1 -fno-rtti -fno-exceptions -DTF_LITE_STATIC_MEMORY -DTF_LITE_DISABLE_X86_NEON \
  -DKERNELS_OPTIMIZED_FOR_SPEED -DTF_LITE_USE_CTIME -I. -I$D/gemmlowp -I$D/flatbuffers/include \
  -I$D/ruy -o "$W/run_tflm" "$HERE/run_tflm.cc" $OBJS -Wl,--gc-sections -lm
echo "built $W/run_tflm"
