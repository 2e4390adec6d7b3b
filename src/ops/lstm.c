/* UNIDIRECTIONAL_SEQUENCE_LSTM (TFLM's integer LSTM: int8 or int16 activations, int8 weights,
 * int16 cell state; no peepholes, projection or layer norm, as TFLM): options, prepare, run,
 * op params, emit. The hidden and cell states are variable tensors kept between invocations. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ops_internal.h"

/* UnidirectionalSequenceLSTMOptions (BuiltinOptions 71). proj_clip (2) concerns the projection
 * and asymmetric_quantize_inputs (4) float hybrids: TFLM's integer LSTM reads neither. */
enum { ACTIVATION, CELL_CLIP, TIME_MAJOR, DIAGONAL, N_OPTIONS };
static const ops_field_t lstm_options[N_OPTIONS] = {
    {0u, OPS_U8, OPS_ANY, 0, "fused_activation_function"},
    {1u, OPS_F32, OPS_ANY, 0, "cell_clip"},
    {3u, OPS_U8, OPS_ANY, 0, "time_major"},
    {5u, OPS_U8, OPS_ANY, 0, "diagonal_recurrent_tensors"}};

/* TFLite's 24 inputs: the input, input and recurrent weights of the gates input, forget, cell
 * and output, peepholes, the gates' biases, the projection, the two states, layer norms. */
enum {
  IN = 0,
  INPUT_WEIGHTS = 1,
  RECURRENT_WEIGHTS = 5,
  PEEPHOLES = 9,
  BIASES = 12,
  PROJECTION = 16,
  HIDDEN = 18,
  CELL = 19,
  LAYER_NORMS = 20,
  N_INPUTS = 24
};

/* The kernel function's operands: input, 8 weights, 4 biases, hidden and cell state, output. */
enum {
  K_IN = 0,
  K_WEIGHTS = 1,
  K_BIASES = 9,
  K_HIDDEN = 13,
  K_CELL = 14,
  K_OUTPUT = 15,
  K_N_INPUTS = 15
};

/* ActivationFunctionType TANH: the cell gate's activation TFLM's integer LSTM takes. */
#define LSTM_TANH 4

typedef struct {
  ops_ref_t input;
  uint32_t hidden; /* arena offsets */
  uint32_t cell;
  uint32_t output;
  uint32_t scratch;
  utvm_lstm_weights_t weights;
  utvm_lstm_params_t params;
} lstm_record_t;

static size_t lstm_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(lstm_record_t));
}

/* The kernel's sizes from the input and hidden state shapes, without checks (scratch). */
static bool lstm_shape_params(const utvm_model_t *m, const utvm_model_operator_t *op,
                              bool time_major, utvm_lstm_params_t *p) {
  utvm_model_tensor_t in;
  utvm_model_tensor_t hidden;
  bool ok = (op->n_inputs == (uint32_t)N_INPUTS) && ops_present(op, IN) &&
            ops_present(op, HIDDEN) &&
            (utvm_model_tensor(m, (uint32_t)op->inputs[IN], &in) == UTVM_OK) &&
            (utvm_model_tensor(m, (uint32_t)op->inputs[HIDDEN], &hidden) == UTVM_OK) &&
            (in.rank == 3u) && (hidden.rank >= 2u);
  if (ok) {
    (void)memset(p, 0, sizeof(*p));
    p->time_major = 0;
    if (time_major) {
      p->time_major = 1;
    }
    p->batches = time_major ? in.dims[1] : in.dims[0];
    p->time_steps = time_major ? in.dims[0] : in.dims[1];
    p->input_size = in.dims[2];
    p->cell_size = hidden.dims[1];
    p->act_bits = 8;
    if (in.type == UTVM_MODEL_INT16) {
      p->act_bits = 16;
    }
  }
  return ok;
}

static size_t lstm_scratch_size(utvm_kernels_core_t core, const utvm_model_t *m,
                                const utvm_model_operator_t *op) {
  utvm_lstm_params_t p;
  uint64_t bits = 0u;
  (void)core;
  (void)utvm_model_option_bits(m, 0u, op, 3u, 1u, 0u, &bits, NULL);
  return lstm_shape_params(m, op, bits != 0u, &p) ? utvm_lstm_scratch_size(&p) : 0u;
}

/* "<role> (input <k>) <msg>"; UTVM_ERR_RUNNER_UNSUPPORTED. */
static utvm_err_t lstm_fail_input(const utvm_op_context_t *c, const char *role, uint32_t k,
                                  const char *msg) {
  utvm_text_t *text = ops_begin(c);
  utvm_text_str(text, role);
  utvm_text_str(text, " (input ");
  utvm_text_i64(text, (int64_t)k);
  utvm_text_str(text, ") ");
  utvm_text_str(text, msg);
  return UTVM_ERR_RUNNER_UNSUPPORTED;
}

/* Which inputs TFLM's integer LSTM takes: 24, the optional ones it does not support absent. */
static utvm_err_t lstm_inputs_present(const utvm_op_context_t *c) {
  static const char *const absent_roles[3] = {
      "peephole weights", "projection", "layer norm coefficients"};
  utvm_err_t err = UTVM_OK;
  uint32_t k;
  if (c->op->n_inputs != (uint32_t)N_INPUTS) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, "has ");
    utvm_text_i64(text, (int64_t)c->op->n_inputs);
    utvm_text_str(text, " inputs, not 24");
    err = UTVM_ERR_MODEL_BAD_OPERANDS;
  }
  for (k = 0u; (k < (uint32_t)N_INPUTS) && (err == UTVM_OK); k++) {
    const bool optional = ((k >= (uint32_t)PEEPHOLES) && (k < (uint32_t)BIASES)) ||
                          ((k >= (uint32_t)PROJECTION) && (k < (uint32_t)HIDDEN)) ||
                          (k >= (uint32_t)LAYER_NORMS);
    if (!optional && !ops_present(c->op, k)) {
      err = lstm_fail_input(c, "an input", k,
                            "is absent: TFLM's integer LSTM needs every gate (no CIFG)");
    } else if (optional && ops_present(c->op, k)) {
      uint32_t which = 2u;
      if (k < (uint32_t)BIASES) {
        which = 0u;
      } else if (k < (uint32_t)HIDDEN) {
        which = 1u;
      } else {
        which = 2u;
      }
      err = lstm_fail_input(c, absent_roles[which], k,
                            "is given: TFLM's integer LSTM has none");
    } else {
      err = UTVM_OK;
    }
  }
  return err;
}

/* A constant of type, per tensor, zero point 0, of shape [d0] (d1 0) or [d0, d1]. */
static utvm_err_t lstm_constant(const utvm_op_context_t *c, uint32_t k, const char *role,
                                utvm_model_type_t type, int32_t d0, int32_t d1,
                                ops_operand_t *o) {
  utvm_err_t err = ops_load(c, k, o);
  uint32_t rank = 1u;
  if (d1 > 0) {
    rank = 2u;
  }
  if (err == UTVM_OK) {
    err = ops_check_type(c, o, role, type);
  }
  if ((err == UTVM_OK) &&
      ((o->t.rank != rank) || (o->t.dims[0] != d0) || ((rank == 2u) && (o->t.dims[1] != d1)))) {
    const int32_t want[2] = {d0, d1};
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, role);
    utvm_text_str(text, " ");
    utvm_text_dims(text, o->t.rank, o->t.dims);
    utvm_text_str(text, " is not ");
    utvm_text_dims(text, rank, want);
    err = UTVM_ERR_RUNNER_OPERANDS;
  }
  if (err == UTVM_OK) {
    err = ops_check_constant(c, o, role);
  }
  if ((err == UTVM_OK) && (type == UTVM_MODEL_INT8) &&
      ((o->t.quant.count != 1u) || (o->t.quant.zero_point != 0))) {
    err = lstm_fail_input(c, role, k,
                          "is not quantized per tensor with zero point 0 (TFLM's integer LSTM)");
  }
  return err;
}

/* A state: a variable tensor of type and batches x cell elements (TFLM's check). */
static utvm_err_t lstm_state(const utvm_op_context_t *c, uint32_t k, const char *role,
                             utvm_model_type_t type, int64_t elements, ops_operand_t *o) {
  utvm_err_t err = ops_load(c, k, o);
  if (err == UTVM_OK) {
    err = ops_check_type(c, o, role, type);
  }
  if ((err == UTVM_OK) && !o->t.variable) {
    err = lstm_fail_input(c, role, k, "is not a variable tensor");
  }
  if ((err == UTVM_OK) && ((int64_t)o->t.elements != elements)) {
    err = ops_fail_shape(c, role, o, " does not hold batches x cells elements");
  }
  if ((err == UTVM_OK) && (o->t.quant.count != 1u)) {
    err = lstm_fail_input(c, role, k, "is not quantized per tensor");
  }
  return err;
}

/* TFLite's QuantizeMultiplier of real into *m, *s, refused when out of the kernels' range. */
static utvm_err_t lstm_rescale(const utvm_op_context_t *c, double real, int32_t max_shift,
                               int32_t *m, int32_t *s) {
  utvm_err_t err = utvm_quantize_multiplier(real, m, s);
  if (err != UTVM_OK) {
    err = ops_fail_kernel(c, err, "rescale");
  } else if ((*s < -31) || (*s > max_shift)) {
    err = ops_fail_option(c, "a rescale's shift ", *s, " is out of the kernels' range");
  } else {
    err = UTVM_OK;
  }
  return err;
}

/* The gates' matmul rescales: input (or hidden) scale x weight scale to Q3.12 (2^-12), the
 * product in float as TFLM's GetQuantizedConvolutionMultipler. */
static utvm_err_t lstm_gate_scales(const utvm_op_context_t *c, const ops_operand_t *o,
                                   utvm_lstm_params_t *p) {
  int32_t max_shift = 31;
  if (p->act_bits == 16) {
    max_shift = 7;
  }
  utvm_err_t err = UTVM_OK;
  int32_t g;
  for (g = 0; (g < UTVM_LSTM_GATES) && (err == UTVM_OK); g++) {
    const float from_input = o[IN].t.quant.scale * o[INPUT_WEIGHTS + g].t.quant.scale;
    const float from_hidden = o[HIDDEN].t.quant.scale * o[RECURRENT_WEIGHTS + g].t.quant.scale;
    err = lstm_rescale(c, (double)from_input / (double)0.000244140625f, max_shift,
                       &p->input_multiplier[g], &p->input_shift[g]);
    if (err == UTVM_OK) {
      err = lstm_rescale(c, (double)from_hidden / (double)0.000244140625f, max_shift,
                         &p->recurrent_multiplier[g], &p->recurrent_shift[g]);
    }
  }
  return err;
}

/* The cell's scale as a power of two (TFLM's CheckedLog2: rounded, in float), and from it
 * tanh(cell)'s input rescale (TFLM's lstm Tanh: left shift 15 + power - 3). */
static utvm_err_t lstm_cell_tanh(const utvm_op_context_t *c, float cell_scale,
                                 utvm_lstm_params_t *p) {
  const float log2_scale = logf(cell_scale) * (1.0f / logf(2.0f));
  const float power = roundf(log2_scale);
  utvm_err_t err = UTVM_OK;
  if (!(cell_scale > 0.0f) || !(power >= -43.0f) || !(power <= 1.0f)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "cell state scale is not within 2^-43..2^1 (TFLM's cell tanh)");
  } else {
    const int32_t shift = 12 + (int32_t)power;
    p->cell_tanh_multiplier = 3;
    p->cell_tanh_shift = 0;
    if (shift < 0) {
      p->cell_tanh_shift = -shift;
    } else {
      const uint32_t multiplier = 3u << (uint32_t)shift;
      p->cell_tanh_multiplier = (int32_t)multiplier;
    }
  }
  return err;
}

/* The inter-gate products: forget x cell and input x cell gate to the cell, output gate x
 * tanh(cell) to the hidden state (gates Q0.15, scales in double as TFLM's). */
static utvm_err_t lstm_mul_scales(const utvm_op_context_t *c, float cell_scale,
                                  float hidden_scale, utvm_lstm_params_t *p) {
  const double q015 = (double)3.0517578125e-05f;
  utvm_err_t err = lstm_rescale(c, (q015 * (double)cell_scale) / (double)cell_scale, 31,
                                &p->forget_multiplier, &p->forget_shift);
  if (err == UTVM_OK) {
    err = lstm_rescale(c, (q015 * q015) / (double)cell_scale, 31, &p->update_multiplier,
                       &p->update_shift);
  }
  if (err == UTVM_OK) {
    err = lstm_rescale(c, (q015 * q015) / (double)hidden_scale, 31, &p->output_multiplier,
                       &p->output_shift);
  }
  return err;
}

/* cell_clip in cell units as TFLM quantizes it (0: none); a positive clip that quantizes to 0
 * would zero the cell and is refused. */
static utvm_err_t lstm_cell_clip(const utvm_op_context_t *c, float clip, float cell_scale,
                                 utvm_lstm_params_t *p) {
  utvm_err_t err = UTVM_OK;
  p->cell_clip = 0;
  if (clip > 0.0f) {
    double q = (double)clip / (double)cell_scale;
    q = (q > 32767.0) ? 32767.0 : q;
    p->cell_clip = (int32_t)q;
    if (p->cell_clip == 0) {
      err = ops_fail(c, UTVM_ERR_MODEL_BAD_OPTION,
                     "options: cell_clip is below the cell state's step");
    }
  }
  return err;
}

/* The options as TFLM's integer LSTM reads them. */
static utvm_err_t lstm_read_options(const utvm_op_context_t *c, int32_t *opt) {
  utvm_err_t err = ops_options(c, lstm_options, N_OPTIONS, opt);
  if ((err == UTVM_OK) && (opt[ACTIVATION] != LSTM_TANH)) {
    err = ops_fail_option(c, "fused_activation_function ", opt[ACTIVATION],
                          " is not TANH (4), the cell gate activation TFLM's integer LSTM takes");
  }
  if ((err == UTVM_OK) && ((opt[TIME_MAJOR] < 0) || (opt[TIME_MAJOR] > 1))) {
    err = ops_fail_option(c, "time_major ", opt[TIME_MAJOR], " is not a boolean");
  }
  if ((err == UTVM_OK) && (opt[DIAGONAL] != 0)) {
    err = ops_fail_option(c, "diagonal_recurrent_tensors ", opt[DIAGONAL],
                          ": TFLM's integer LSTM takes full recurrent weights");
  }
  return err;
}

/* Input, output and the shapes they give; fills p's sizes. */
static utvm_err_t lstm_sequence(const utvm_op_context_t *c, bool time_major, ops_operand_t *o,
                                ops_operand_t *out, utvm_lstm_params_t *p) {
  utvm_err_t err = ops_load(c, IN, &o[IN]);
  if ((err == UTVM_OK) && (o[IN].t.type != UTVM_MODEL_INT8) && (o[IN].t.type != UTVM_MODEL_INT16)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "input is not int8 or int16 (TFLM's integer LSTM; float is not supported)");
  }
  if (err == UTVM_OK) {
    err = ops_check_rank(c, &o[IN], "input", 3u);
  }
  if (err == UTVM_OK) {
    err = ops_check_type(c, &o[IN], "input", o[IN].t.type);
  }
  if ((err == UTVM_OK) && (o[IN].t.quant.count != 1u)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED, "input is not quantized per tensor");
  }
  if (err == UTVM_OK) {
    err = ops_load(c, HIDDEN, &o[HIDDEN]);
  }
  if ((err == UTVM_OK) && ((o[HIDDEN].t.rank < 2u) || (o[HIDDEN].t.dims[1] < 1))) {
    err = ops_fail_shape(c, "hidden state", &o[HIDDEN], " has no cell dimension (dims[1])");
  }
  if ((err == UTVM_OK) && !lstm_shape_params(c->model, c->op, time_major, p)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_OPERANDS, "operands cannot be decoded");
  }
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, out);
  }
  if (err == UTVM_OK) {
    err = ops_check_type(c, out, "output", o[IN].t.type);
  }
  if ((err == UTVM_OK) &&
      ((out->t.rank != 3u) || (out->t.dims[0] != o[IN].t.dims[0]) ||
       (out->t.dims[1] != o[IN].t.dims[1]) || (out->t.dims[2] != p->cell_size))) {
    err = ops_fail_fit(c, "output", out, "input", &o[IN]);
  }
  return err;
}

/* Weights, biases and states, as TFLM's ValidateTensorStatus and ValidateTensorSize. */
static utvm_err_t lstm_operands(const utvm_op_context_t *c, ops_operand_t *o,
                                const utvm_lstm_params_t *p) {
  const utvm_model_type_t bias_type =
      (p->act_bits == 16) ? UTVM_MODEL_INT64 : UTVM_MODEL_INT32;
  const int64_t state_elements = (int64_t)p->batches * p->cell_size;
  utvm_err_t err = UTVM_OK;
  int32_t g;
  for (g = 0; (g < UTVM_LSTM_GATES) && (err == UTVM_OK); g++) {
    err = lstm_constant(c, (uint32_t)(INPUT_WEIGHTS + g), "input weights", UTVM_MODEL_INT8,
                        p->cell_size, p->input_size, &o[INPUT_WEIGHTS + g]);
    if (err == UTVM_OK) {
      err = lstm_constant(c, (uint32_t)(RECURRENT_WEIGHTS + g), "recurrent weights",
                          UTVM_MODEL_INT8, p->cell_size, p->cell_size,
                          &o[RECURRENT_WEIGHTS + g]);
    }
    if (err == UTVM_OK) {
      err = lstm_constant(c, (uint32_t)(BIASES + g), "bias", bias_type, p->cell_size, 0,
                          &o[BIASES + g]);
    }
  }
  if (err == UTVM_OK) {
    err = lstm_state(c, HIDDEN, "hidden state", o[IN].t.type, state_elements, &o[HIDDEN]);
  }
  if (err == UTVM_OK) {
    err = lstm_state(c, CELL, "cell state", UTVM_MODEL_INT16, state_elements, &o[CELL]);
  }
  return err;
}

static utvm_err_t lstm_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  lstm_record_t *rec = (lstm_record_t *)record;
  ops_operand_t o[N_INPUTS];
  ops_operand_t out;
  ops_ref_t hidden;
  ops_ref_t cell;
  int32_t opt[N_OPTIONS];
  int32_t g;
  (void)size;
  utvm_err_t err = lstm_read_options(c, opt);
  if (err == UTVM_OK) {
    err = lstm_inputs_present(c);
  }
  if (err == UTVM_OK) {
    err = lstm_sequence(c, opt[TIME_MAJOR] == 1, o, &out, &rec->params);
  }
  if (err == UTVM_OK) {
    err = lstm_operands(c, o, &rec->params);
  }
  if (err == UTVM_OK) {
    rec->params.input_offset = -o[IN].t.quant.zero_point;
    rec->params.hidden_zero_point = o[HIDDEN].t.quant.zero_point;
    err = lstm_gate_scales(c, o, &rec->params);
  }
  if (err == UTVM_OK) {
    err = lstm_cell_tanh(c, o[CELL].t.quant.scale, &rec->params);
  }
  if (err == UTVM_OK) {
    err = lstm_mul_scales(c, o[CELL].t.quant.scale, o[HIDDEN].t.quant.scale, &rec->params);
  }
  if (err == UTVM_OK) {
    err = lstm_cell_clip(c, ops_option_float(opt[CELL_CLIP]), o[CELL].t.quant.scale,
                         &rec->params);
  }
  if ((err == UTVM_OK) && (utvm_lstm_scratch_size(&rec->params) == 0u)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED, "sizes or zero points out of range");
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &o[IN], &rec->input, &out, &rec->output);
  }
  if (err == UTVM_OK) {
    err = ops_input_ref(c, &o[HIDDEN], &hidden);
  }
  if (err == UTVM_OK) {
    err = ops_input_ref(c, &o[CELL], &cell);
  }
  if ((err == UTVM_OK) && (c->scratch == UTVM_PLAN_NO_OFFSET)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_ARGUMENT, "no scratch planned");
  }
  if (err == UTVM_OK) {
    for (g = 0; g < UTVM_LSTM_GATES; g++) {
      rec->weights.input_weights[g] = (const int8_t *)(const void *)o[INPUT_WEIGHTS + g].t.data;
      rec->weights.recurrent_weights[g] =
          (const int8_t *)(const void *)o[RECURRENT_WEIGHTS + g].t.data;
      rec->weights.biases[g] = o[BIASES + g].t.data;
    }
    rec->hidden = hidden.offset;
    rec->cell = cell.offset;
    rec->scratch = c->scratch;
  }
  return err;
}

static utvm_err_t lstm_execute(const void *record, uint8_t *arena) {
  const lstm_record_t *r = (const lstm_record_t *)record;
  return utvm_lstm(&r->params, &r->weights, ops_in(arena, &r->input), &arena[r->hidden],
                   ops_out_s16(arena, r->cell), &arena[r->output], ops_scratch(arena, r->scratch));
}

static void lstm_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const lstm_record_t *r = (const lstm_record_t *)record;
  (void)core;
  p->kind = UTVM_OP_LSTM;
  p->p.lstm = r->params;
  p->scratch_bytes = (uint32_t)utvm_lstm_scratch_size(&r->params);
}

/* The kernel function's operands: the 15 present inputs. */
static uint32_t lstm_kernel_inputs(const utvm_model_operator_t *op) {
  (void)op;
  return (uint32_t)K_N_INPUTS;
}

const utvm_op_t utvm_op_unidirectional_sequence_lstm = {
    (int32_t)UTVM_MODEL_OP_UNIDIRECTIONAL_SEQUENCE_LSTM, 1u, (uint8_t)N_INPUTS, 71u,
    lstm_record_size, lstm_scratch_size, lstm_prepare, lstm_execute, lstm_export,
    lstm_kernel_inputs, 0u, 0u, NULL, NULL, NULL, NULL, NULL};

/* ---- The kernel function utvm_k_lstm ---- */

typedef char lstm_check_params[(sizeof(utvm_lstm_params_t) == 132u) ? 1 : -1];

static void lstm_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, &p->p.lstm, sizeof(p->p.lstm));
}

static const char *lstm_check(utvm_op_params_t *p) {
  const utvm_lstm_params_t *s = &p->p.lstm;
  const char *why = ops_check_n_inputs(p, (uint32_t)K_N_INPUTS);
  if ((why == NULL) && (utvm_lstm_scratch_size(s) == 0u)) {
    why = "sizes, zero points or rescales out of range";
  }
  if (why == NULL) {
    const utvm_op_type_t act = (s->act_bits == 16) ? UTVM_OP_TYPE_INT16 : UTVM_OP_TYPE_INT8;
    const utvm_op_type_t bias = (s->act_bits == 16) ? UTVM_OP_TYPE_INT64 : UTVM_OP_TYPE_INT32;
    const uint64_t cells = (uint64_t)s->cell_size;
    const uint64_t inputs = (uint64_t)s->input_size;
    const uint64_t rows = (uint64_t)s->batches * (uint64_t)s->time_steps;
    uint32_t g;
    (void)ops_set_operand(p, K_IN, act, rows * inputs);
    for (g = 0u; g < (uint32_t)UTVM_LSTM_GATES; g++) {
      (void)ops_set_operand(p, (uint32_t)K_WEIGHTS + g, UTVM_OP_TYPE_INT8,
                            cells * inputs);
      (void)ops_set_operand(p, (uint32_t)K_WEIGHTS + (uint32_t)UTVM_LSTM_GATES + g,
                            UTVM_OP_TYPE_INT8, cells * cells);
      (void)ops_set_operand(p, (uint32_t)K_BIASES + g, bias, cells);
    }
    (void)ops_set_operand(p, K_HIDDEN, act, (uint64_t)s->batches * cells);
    (void)ops_set_operand(p, K_CELL, UTVM_OP_TYPE_INT16, (uint64_t)s->batches * cells);
    (void)ops_set_operand(p, K_OUTPUT, act, rows * cells);
  }
  return why;
}

static size_t lstm_scratch(const utvm_op_params_t *p) { return utvm_lstm_scratch_size(&p->p.lstm); }

static utvm_err_t lstm_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  utvm_lstm_weights_t w;
  uint32_t g;
  for (g = 0u; g < (uint32_t)UTVM_LSTM_GATES; g++) {
    w.input_weights[g] = (const int8_t *)data[(uint32_t)K_WEIGHTS + g];
    w.recurrent_weights[g] =
        (const int8_t *)data[(uint32_t)K_WEIGHTS + (uint32_t)UTVM_LSTM_GATES + g];
    w.biases[g] = data[(uint32_t)K_BIASES + g];
  }
  return utvm_lstm(&p->p.lstm, &w, data[K_IN], data[K_HIDDEN], (int16_t *)data[K_CELL],
                   data[K_OUTPUT], scratch);
}

const utvm_op_kind_info_t utvm_op_kind_lstm = {lstm_walk, lstm_check, lstm_scratch, lstm_run,
                                               UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t lstm_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_LSTM_WEIGHTS, 0u}, {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_STATE, K_HIDDEN},
    {UTVM_EMIT_STATE, K_CELL}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_SCRATCH, 0u},
    {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_lstm = {"utvm_lstm_params_t",
    "batches time_steps input_size cell_size time_major act_bits input_offset "
    "hidden_zero_point input_multiplier[4] input_shift[4] recurrent_multiplier[4] "
    "recurrent_shift[4] forget_multiplier forget_shift update_multiplier update_shift "
    "output_multiplier output_shift cell_clip cell_tanh_multiplier cell_tanh_shift",
    lstm_args, NULL};
