// run_tflm: the TFLM oracle of tests/data/tflm. Runs a .tflite model through TensorFlow Lite
// Micro's MicroInterpreter (reference kernels) and writes the raw output bytes.
//
//   run_tflm <model.tflite> <in.bin> <out.bin> [<in.bin> <out.bin> ...]
//
// Every (input, output) pair gets a fresh interpreter on a cleared arena, so variable tensors
// (LSTM state) start as TFLM leaves them after AllocateTensors (int8: the zero point, i.e. real
// 0; int16: 0). The model must have exactly one input and one output; the input file must hold
// exactly the input tensor's bytes (raw, little-endian, C order). Prints, per pair,
// "<out.bin> <bytes> arena_used_bytes=<n>" on stdout; errors on stderr with exit status 1.
//
// Build: see README.md in this directory (links against TFLM's libtensorflow-microlite.a).

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tensorflow/lite/micro/micro_interpreter.h"
#include "tensorflow/lite/micro/micro_log.h"
#include "tensorflow/lite/micro/micro_mutable_op_resolver.h"
#include "tensorflow/lite/micro/system_setup.h"
#include "tensorflow/lite/schema/schema_generated.h"

namespace {

constexpr size_t kArenaBytes = 512 * 1024;
alignas(16) uint8_t g_arena[kArenaBytes];

bool ReadFile(const char* path, std::vector<uint8_t>* out) {
  FILE* f = std::fopen(path, "rb");
  if (f == nullptr) {
    std::fprintf(stderr, "run_tflm: cannot open %s\n", path);
    return false;
  }
  out->clear();
  uint8_t chunk[4096];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), f)) > 0) {
    out->insert(out->end(), chunk, chunk + n);
  }
  std::fclose(f);
  return true;
}

bool WriteFile(const char* path, const uint8_t* data, size_t n) {
  FILE* f = std::fopen(path, "wb");
  if (f == nullptr || std::fwrite(data, 1, n, f) != n) {
    std::fprintf(stderr, "run_tflm: cannot write %s\n", path);
    if (f != nullptr) std::fclose(f);
    return false;
  }
  return std::fclose(f) == 0;
}

// The operators of the oracle cases (and their neighbours in the same TFLM sources).
// Adding one means compiling its kernel source too (README.md).
using Resolver = tflite::MicroMutableOpResolver<32>;

bool AddOps(Resolver* r) {
  return r->AddUnidirectionalSequenceLSTM() == kTfLiteOk && r->AddElu() == kTfLiteOk &&
         r->AddBroadcastTo() == kTfLiteOk && r->AddPrelu() == kTfLiteOk &&
         r->AddRelu() == kTfLiteOk && r->AddRelu6() == kTfLiteOk &&
         r->AddLeakyRelu() == kTfLiteOk &&
         // the float32 cases of tests/data/tflm_float (and the mixed one's int8 ADD)
         r->AddConv2D() == kTfLiteOk && r->AddDepthwiseConv2D() == kTfLiteOk &&
         r->AddFullyConnected() == kTfLiteOk && r->AddAveragePool2D() == kTfLiteOk &&
         r->AddMaxPool2D() == kTfLiteOk && r->AddAdd() == kTfLiteOk &&
         r->AddSub() == kTfLiteOk && r->AddMul() == kTfLiteOk &&
         r->AddSoftmax() == kTfLiteOk && r->AddLogistic() == kTfLiteOk &&
         r->AddTanh() == kTfLiteOk && r->AddHardSwish() == kTfLiteOk &&
         r->AddPad() == kTfLiteOk && r->AddConcatenation() == kTfLiteOk &&
         r->AddMean() == kTfLiteOk && r->AddReshape() == kTfLiteOk &&
         r->AddTranspose() == kTfLiteOk && r->AddQuantize() == kTfLiteOk &&
         r->AddDequantize() == kTfLiteOk;
}

// One inference on a fresh interpreter. Returns false on any TFLM failure.
bool RunOne(const tflite::Model* model, const Resolver& resolver, const char* in_path,
            const char* out_path) {
  std::vector<uint8_t> input;
  if (!ReadFile(in_path, &input)) return false;
  std::memset(g_arena, 0, kArenaBytes);
  tflite::MicroInterpreter interpreter(model, resolver, g_arena, kArenaBytes);
  if (interpreter.AllocateTensors() != kTfLiteOk) {
    std::fprintf(stderr, "run_tflm: AllocateTensors failed (see TFLM's message above)\n");
    return false;
  }
  if (interpreter.inputs_size() != 1 || interpreter.outputs_size() != 1) {
    std::fprintf(stderr, "run_tflm: %u inputs, %u outputs (want 1 and 1)\n",
                 static_cast<unsigned>(interpreter.inputs_size()),
                 static_cast<unsigned>(interpreter.outputs_size()));
    return false;
  }
  TfLiteTensor* in = interpreter.input(0);
  if (in->bytes != input.size()) {
    std::fprintf(stderr, "run_tflm: %s has %u bytes, the input tensor %u\n", in_path,
                 static_cast<unsigned>(input.size()), static_cast<unsigned>(in->bytes));
    return false;
  }
  std::memcpy(in->data.raw, input.data(), input.size());
  if (interpreter.Invoke() != kTfLiteOk) {
    std::fprintf(stderr, "run_tflm: Invoke failed\n");
    return false;
  }
  const TfLiteTensor* out = interpreter.output(0);
  if (!WriteFile(out_path, reinterpret_cast<const uint8_t*>(out->data.raw), out->bytes)) {
    return false;
  }
  std::printf("%s %u arena_used_bytes=%u\n", out_path, static_cast<unsigned>(out->bytes),
              static_cast<unsigned>(interpreter.arena_used_bytes()));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || (argc - 2) % 2 != 0) {
    std::fprintf(stderr, "usage: run_tflm <model.tflite> <in.bin> <out.bin> [<in> <out> ...]\n");
    return 2;
  }
  tflite::InitializeTarget();
  std::vector<uint8_t> model_bytes;
  if (!ReadFile(argv[1], &model_bytes)) return 1;
  // FlatBuffers wants the model aligned; a vector's storage is (malloc: 16 bytes on x86-64).
  // The FlatBuffers verifier (header-only) first: a malformed file is a generator bug.
  flatbuffers::Verifier verifier(model_bytes.data(), model_bytes.size());
  if (!tflite::VerifyModelBuffer(verifier)) {
    std::fprintf(stderr, "run_tflm: %s fails the FlatBuffers verifier\n", argv[1]);
    return 1;
  }
  const tflite::Model* model = tflite::GetModel(model_bytes.data());
  if (model->version() != TFLITE_SCHEMA_VERSION) {
    std::fprintf(stderr, "run_tflm: schema version %u, want %d\n",
                 static_cast<unsigned>(model->version()), TFLITE_SCHEMA_VERSION);
    return 1;
  }
  static Resolver resolver;
  if (!AddOps(&resolver)) {
    std::fprintf(stderr, "run_tflm: op resolver full\n");
    return 1;
  }
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!RunOne(model, resolver, argv[i], argv[i + 1])) return 1;
  }
  return 0;
}
