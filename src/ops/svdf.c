/* SVDF (int8 input and output; int8 or int16 time weights and state, the state a variable
 * tensor kept between invocations): options, prepare, run, op params, emit. TFLM's integer SVDF
 * ignores the fused activation (only the int8 clamp), and so does this. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* SVDFOptions (BuiltinOptions 6); asymmetric_quantize_inputs (2) concerns float hybrids. */
enum { RANK, ACTIVATION, N_OPTIONS };
static const ops_field_t svdf_options[N_OPTIONS] = {
    {0u, OPS_I32, OPS_POSITIVE, 0, "rank"},
    {1u, OPS_U8, OPS_ACTIVATION, 0, "fused_activation_function"}};

/* The operands: input, feature weights, time weights, bias, state (a variable tensor). All are
 * required: TFLM's int8 SVDF reads the bias' scale, so it has none without a bias. */
enum { IN, FEATURE, TIME, BIAS, STATE, N_INPUTS };

typedef struct {
  ops_ref_t input;
  const int8_t *weights_feature;
  const void *weights_time;
  const int32_t *bias;
  uint32_t state;   /* arena offsets */
  uint32_t output;
  uint32_t scratch;
  utvm_svdf_params_t params;
} svdf_record_t;

static size_t svdf_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(svdf_record_t));
}

/* The kernel's parameters from the model's shapes, without checks (scratch sizing). */
static bool svdf_shape_params(const utvm_model_t *m, const utvm_model_operator_t *op,
                              utvm_svdf_params_t *p) {
  utvm_model_tensor_t t[3];
  const uint32_t which[3] = {IN, FEATURE, TIME};
  uint32_t i;
  uint64_t bits = 1u;
  for (i = 0u; i < 3u; i++) {
    if (!ops_present(op, which[i]) ||
        (utvm_model_tensor(m, (uint32_t)op->inputs[which[i]], &t[i]) != UTVM_OK) ||
        (t[i].rank != 2u)) {
      return false;
    }
  }
  (void)utvm_model_option_bits(m, 0u, op, 0u, 4u, 0u, &bits, NULL);
  const int32_t rank = (int32_t)(uint32_t)bits;
  p->batches = t[0].dims[0];
  p->input_size = t[0].dims[1];
  p->filters = t[1].dims[0];
  p->rank = (rank >= 1) ? rank : 1;
  p->memory_size = t[2].dims[1];
  p->state_bits = 8;
  if (t[2].type == UTVM_MODEL_INT16) {
    p->state_bits = 16;
  }
  p->input_offset = 0;
  p->state_zero_point = 0;
  p->output_offset = 0;
  p->multiplier_1 = 0;
  p->shift_1 = 0;
  p->multiplier_2 = 0;
  p->shift_2 = 0;
  return true;
}

static size_t svdf_scratch_size(utvm_kernels_core_t core, const utvm_model_t *m,
                                const utvm_model_operator_t *op) {
  utvm_svdf_params_t p;
  (void)core;
  return svdf_shape_params(m, op, &p) ? utvm_svdf_s8_scratch_size(&p) : 0u;
}

/* A 2-D operand of the type and [d0, d1]. */
static utvm_err_t svdf_operand(const utvm_op_context_t *c, const ops_operand_t *o,
                               const char *role, utvm_model_type_t type, int32_t d0,
                               int32_t d1) {
  utvm_err_t err = ops_check_type(c, o, role, type);
  if ((err == UTVM_OK) && ((o->t.rank != 2u) || (o->t.dims[0] != d0) || (o->t.dims[1] != d1))) {
    const int32_t want[2] = {d0, d1};
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, role);
    utvm_text_str(text, " ");
    utvm_text_dims(text, o->t.rank, o->t.dims);
    utvm_text_str(text, " is not ");
    utvm_text_dims(text, 2u, want);
    err = UTVM_ERR_RUNNER_OPERANDS;
  }
  if ((err == UTVM_OK) && (o->t.quant.count != 1u)) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, role);
    utvm_text_str(text, " is not quantized per tensor");
    err = UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return err;
}

/* Constant, quantized per tensor with zero point 0 (TFLM's kernel reads no weight zero point). */
static utvm_err_t svdf_constant(const utvm_op_context_t *c, const ops_operand_t *o,
                                const char *role) {
  utvm_err_t err = ops_check_constant(c, o, role);
  if ((err == UTVM_OK) && (o->t.quant.zero_point != 0)) {
    utvm_text_t *text = ops_begin(c);
    utvm_text_str(text, role);
    utvm_text_str(text, " zero point ");
    utvm_text_i64(text, o->t.quant.zero_point);
    utvm_text_str(text, " is not 0");
    err = UTVM_ERR_RUNNER_UNSUPPORTED;
  }
  return err;
}

/* The operands' types and shapes, as TFLM's PrepareSvdf checks them. */
static utvm_err_t svdf_operands(const utvm_op_context_t *c, int32_t rank, ops_operand_t *o,
                                ops_operand_t *out) {
  uint32_t i;
  utvm_err_t err = UTVM_OK;
  for (i = 0u; (i < (uint32_t)N_INPUTS) && (err == UTVM_OK); i++) {
    err = ops_load(c, i, &o[i]);
  }
  if (err == UTVM_OK) {
    err = ops_load(c, OPS_OUTPUT, out);
  }
  if ((err == UTVM_OK) && ((o[IN].t.rank != 2u) || (o[FEATURE].t.rank != 2u))) {
    err = ops_fail_fit(c, "feature weights", &o[FEATURE], "input", &o[IN]);
  }
  const int32_t batches = o[IN].t.dims[0];
  const int32_t filters = o[FEATURE].t.dims[0];
  const int32_t memory = (o[TIME].t.rank == 2u) ? o[TIME].t.dims[1] : 0;
  const utvm_model_type_t time_type =
      (o[TIME].t.type == UTVM_MODEL_INT16) ? UTVM_MODEL_INT16 : UTVM_MODEL_INT8;
  if ((err == UTVM_OK) && ((filters % rank) != 0)) {
    err = ops_fail_option(c, "rank ", rank, " does not divide the feature weights' filters");
  }
  if (err == UTVM_OK) {
    err = svdf_operand(c, &o[IN], "input", UTVM_MODEL_INT8, batches, o[IN].t.dims[1]);
  }
  if (err == UTVM_OK) {
    err = svdf_operand(c, &o[FEATURE], "feature weights", UTVM_MODEL_INT8, filters,
                       o[IN].t.dims[1]);
  }
  if (err == UTVM_OK) {
    err = svdf_operand(c, &o[TIME], "time weights", time_type, filters, memory);
  }
  if (err == UTVM_OK) {
    err = svdf_operand(c, &o[STATE], "state", time_type, batches,
                       (int32_t)((int64_t)memory * filters));
  }
  if ((err == UTVM_OK) && !o[STATE].t.variable) {
    err = ops_fail(c, UTVM_ERR_RUNNER_OPERANDS, "state (input 4) is not a variable tensor");
  }
  if (err == UTVM_OK) {
    err = svdf_operand(c, out, "output", UTVM_MODEL_INT8, batches, filters / rank);
  }
  if (err == UTVM_OK) {
    err = ops_check_type(c, &o[BIAS], "bias", UTVM_MODEL_INT32);
  }
  if ((err == UTVM_OK) &&
      ((o[BIAS].t.rank != 1u) || (o[BIAS].t.dims[0] != (filters / rank)))) {
    err = ops_fail_fit(c, "bias", &o[BIAS], "output", out);
  }
  for (i = (uint32_t)FEATURE; (i <= (uint32_t)BIAS) && (err == UTVM_OK); i++) {
    err = svdf_constant(c, &o[i], (i == (uint32_t)BIAS) ? "bias" : "weights");
  }
  return err;
}

/* The two rescales, from float products as TFLM computes them; the bias scale must be the
 * state's times the time weights' (TFLM's tolerance, 1e-5). */
static utvm_err_t svdf_scales(const utvm_op_context_t *c, const ops_operand_t *o,
                              const ops_operand_t *out, utvm_svdf_params_t *p) {
  const float scale_1 = (o[IN].t.quant.scale * o[FEATURE].t.quant.scale) / o[STATE].t.quant.scale;
  const float scale_2 = (o[STATE].t.quant.scale * o[TIME].t.quant.scale) / out->t.quant.scale;
  const float bias_scale = o[STATE].t.quant.scale * o[TIME].t.quant.scale;
  utvm_err_t err = UTVM_OK;
  if (fabs((double)o[BIAS].t.quant.scale - (double)bias_scale) >= 1e-5) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "bias scale is not the state's times the time weights'");
  }
  if (err == UTVM_OK) {
    err = utvm_quantize_multiplier((double)scale_1, &p->multiplier_1, &p->shift_1);
    err = (err == UTVM_OK) ? utvm_quantize_multiplier((double)scale_2, &p->multiplier_2,
                                                      &p->shift_2)
                           : err;
    err = (err == UTVM_OK) ? UTVM_OK : ops_fail_kernel(c, err, "rescale");
  }
  if (err == UTVM_OK) {
    err = ops_check_shift(c, p->shift_1);
  }
  if (err == UTVM_OK) {
    err = ops_check_shift(c, p->shift_2);
  }
  return err;
}

static utvm_err_t svdf_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  svdf_record_t *rec = (svdf_record_t *)record;
  ops_operand_t o[N_INPUTS];
  ops_operand_t out;
  ops_ref_t state;
  int32_t opt[N_OPTIONS];
  (void)size;
  utvm_err_t err = ops_options(c, svdf_options, N_OPTIONS, opt);
  if (err == UTVM_OK) {
    err = svdf_operands(c, opt[RANK], o, &out);
  }
  if ((err == UTVM_OK) && !svdf_shape_params(c->model, c->op, &rec->params)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_OPERANDS, "operands cannot be decoded");
  }
  if (err == UTVM_OK) {
    rec->params.rank = opt[RANK];
    rec->params.input_offset = -o[IN].t.quant.zero_point;
    rec->params.state_zero_point = o[STATE].t.quant.zero_point;
    rec->params.output_offset = out.t.quant.zero_point;
    err = svdf_scales(c, o, &out, &rec->params);
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &o[IN], &rec->input, &out, &rec->output);
  }
  if (err == UTVM_OK) {
    err = ops_input_ref(c, &o[STATE], &state);
  }
  if ((err == UTVM_OK) && (c->scratch == UTVM_PLAN_NO_OFFSET)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_ARGUMENT, "no scratch planned");
  }
  if (err == UTVM_OK) {
    rec->weights_feature = (const int8_t *)(const void *)o[FEATURE].t.data;
    rec->weights_time = o[TIME].t.data;
    rec->bias = (const int32_t *)(const void *)o[BIAS].t.data;
    rec->state = state.offset;
    rec->scratch = c->scratch;
  }
  return err;
}

static utvm_err_t svdf_execute(const void *record, uint8_t *arena) {
  const svdf_record_t *r = (const svdf_record_t *)record;
  return utvm_svdf_s8(&r->params, ops_in_s8(arena, &r->input), r->weights_feature,
                      r->weights_time, r->bias, &arena[r->state], ops_out_s8(arena, r->output),
                      ops_scratch(arena, r->scratch));
}

static void svdf_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const svdf_record_t *r = (const svdf_record_t *)record;
  (void)core;
  p->kind = UTVM_OP_SVDF_S8;
  p->p.svdf = r->params;
  p->scratch_bytes = (uint32_t)utvm_svdf_s8_scratch_size(&r->params);
}

const utvm_op_t utvm_op_svdf = {(int32_t)UTVM_MODEL_OP_SVDF, 5u, 5u, 6u, svdf_record_size,
                                svdf_scratch_size, svdf_prepare, svdf_execute, svdf_export,
                                ops_inputs_all, 0u, 0u, NULL, NULL, NULL, NULL, NULL};

/* ---- The kernel function utvm_k_svdf_s8 ---- */

typedef char svdf_check_params[(sizeof(utvm_svdf_params_t) == 52u) ? 1 : -1];

static void svdf_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_block(w, &p->p.svdf, sizeof(p->p.svdf));
}

static const char *svdf_check(utvm_op_params_t *p) {
  const utvm_svdf_params_t *s = &p->p.svdf;
  const char *why = ops_check_n_inputs(p, (uint32_t)N_INPUTS);
  if ((why == NULL) && (utvm_svdf_s8_scratch_size(s) == 0u)) {
    why = "sizes, zero points or rescales out of range";
  }
  if (why == NULL) {
    const utvm_op_type_t t = (s->state_bits == 16) ? UTVM_OP_TYPE_INT16 : UTVM_OP_TYPE_INT8;
    const int32_t units_32 = s->filters / s->rank;
    const uint64_t units = (uint64_t)units_32;
    const uint64_t memory = (uint64_t)s->filters * (uint64_t)s->memory_size;
    (void)ops_set_operand(p, IN, UTVM_OP_TYPE_INT8,
                          (uint64_t)s->batches * (uint64_t)s->input_size);
    (void)ops_set_operand(p, FEATURE, UTVM_OP_TYPE_INT8,
                          (uint64_t)s->filters * (uint64_t)s->input_size);
    (void)ops_set_operand(p, TIME, t, memory);
    (void)ops_set_operand(p, BIAS, UTVM_OP_TYPE_INT32, units);
    (void)ops_set_operand(p, STATE, t, (uint64_t)s->batches * memory);
    (void)ops_set_operand(p, N_INPUTS, UTVM_OP_TYPE_INT8, (uint64_t)s->batches * units);
  }
  return why;
}

static size_t svdf_scratch(const utvm_op_params_t *p) {
  return utvm_svdf_s8_scratch_size(&p->p.svdf);
}

static utvm_err_t svdf_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  return utvm_svdf_s8(&p->p.svdf, (const int8_t *)data[IN], (const int8_t *)data[FEATURE],
                      data[TIME], (const int32_t *)data[BIAS], data[STATE],
                      (int8_t *)data[N_INPUTS], scratch);
}

const utvm_op_kind_info_t utvm_op_kind_svdf_s8 = {svdf_walk, svdf_check, svdf_scratch, svdf_run,
                                                  UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t svdf_s8_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_INPUT, 1u}, {UTVM_EMIT_INPUT, 2u}, {UTVM_EMIT_INPUT, 3u},
    {UTVM_EMIT_STATE, 4u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_SCRATCH, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_svdf_s8 = {"utvm_svdf_params_t",
    "batches input_size filters rank memory_size state_bits input_offset state_zero_point "
    "output_offset multiplier_1 shift_1 multiplier_2 shift_2",
    svdf_s8_args, NULL};
