/* SPLIT, SPLIT_V and UNPACK (int8, int16, int32, float32; any rank up to 6): the input cut
 * along one axis into its outputs, each output a kernel call of its own (utvm_split). Options,
 * prepare, run, op params, emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* SplitOptions (35), SplitVOptions (79): num_splits; UnpackOptions (64): num, axis. */
enum { NUM, AXIS, N_OPTIONS };
static const ops_field_t split_options[1] = {{0u, OPS_I32, OPS_ANY, 0, "num_splits"}};
static const ops_field_t unpack_options[N_OPTIONS] = {{0u, OPS_I32, OPS_ANY, 0, "num"},
                                                      {1u, OPS_I32, OPS_ANY, 0, "axis"}};

/* Where output j starts along the axis, how long it is and where it lives. */
typedef struct {
  uint32_t output;
  int32_t begin;
  int32_t len;
} split_output_t;

typedef struct {
  ops_ref_t input;
  int32_t type;               /* utvm_op_type_t of every operand */
  uint32_t n_outputs;
  utvm_split_params_t params; /* output_len and begin: output 0's */
} split_record_t;

static size_t split_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  return ops_record_bytes(sizeof(split_record_t) + ((size_t)op->n_outputs * sizeof(split_output_t)));
}

static split_output_t *split_outputs(split_record_t *rec) {
  return (split_output_t *)(void *)&rec[1];
}

/* The axis of SPLIT (input 0) or SPLIT_V (input 2): a constant int32 scalar. */
static utvm_err_t split_axis_input(const utvm_op_context_t *c, uint32_t k,
                                   const ops_operand_t *in, int32_t *axis) {
  ops_operand_t a;
  int32_t value = 0;
  utvm_err_t err = ops_load(c, k, &a);
  if (err == UTVM_OK) {
    err = ops_check_constant(c, &a, "axis");
  }
  if ((err == UTVM_OK) && ((a.t.type != UTVM_MODEL_INT32) || (a.t.elements != 1u))) {
    err = ops_fail_shape(c, "axis", &a, " is not one int32");
  }
  if ((err == UTVM_OK) && !ops_read_int(&a.t, 0u, &value)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_OPERANDS, "axis cannot be read");
  }
  if (err == UTVM_OK) {
    err = ops_option_axis(c, value, in->t.rank, axis);
  }
  return err;
}

/* The lengths of SPLIT_V (input 1): a constant int32 list of one entry per output, at most one
 * -1 (the rest of the axis), adding up to the axis. */
static utvm_err_t split_v_lengths(const utvm_op_context_t *c, int32_t total,
                                  split_output_t *outs, uint32_t n) {
  ops_operand_t s;
  uint32_t j;
  uint32_t unknown = n;
  int64_t sum = 0;
  utvm_err_t err = ops_load_int_constant(c, 1u, "size_splits", false, &s);
  if ((err == UTVM_OK) && ((s.t.rank != 1u) || (s.t.elements != (size_t)n))) {
    err = ops_fail_shape(c, "size_splits", &s, " is not one length per output");
  }
  for (j = 0u; (j < n) && (err == UTVM_OK); j++) {
    int32_t len = 0;
    (void)ops_read_int(&s.t, j, &len);
    if ((len == -1) && (unknown == n)) {
      unknown = j;
    } else if (len < 1) {
      err = ops_fail_option(c, "size_splits entry ", len, " is not >= 1 (or the one -1)");
    } else {
      sum += len;
    }
    outs[j].len = len;
  }
  if ((err == UTVM_OK) && (unknown < n)) {
    outs[unknown].len = (int32_t)((int64_t)total - sum);
    sum = (outs[unknown].len >= 1) ? (int64_t)total : (int64_t)total + 1;
  }
  if ((err == UTVM_OK) && (sum != (int64_t)total)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_OPERANDS, "size_splits do not add up to the axis");
  }
  return err;
}

/* Output j: the input's type, quantization and shape, with len along the axis (UNPACK: the
 * axis removed, len 1). */
static utvm_err_t split_output(const utvm_op_context_t *c, uint32_t j, const ops_operand_t *in,
                               uint32_t axis, bool unpack, split_output_t *o) {
  ops_operand_t out;
  uint32_t d;
  utvm_err_t err = ops_load_output(c, j, &out);
  const uint32_t rank = unpack ? (in->t.rank - 1u) : in->t.rank;
  bool fits = (err == UTVM_OK) && (out.t.rank == rank);
  for (d = 0u; fits && (d < in->t.rank); d++) {
    if (d < axis) {
      fits = out.t.dims[d] == in->t.dims[d];
    } else if (d == axis) {
      fits = unpack || (out.t.dims[d] == o->len);
    } else {
      fits = out.t.dims[unpack ? (d - 1u) : d] == in->t.dims[d];
    }
  }
  if ((err == UTVM_OK) && !fits) {
    err = ops_fail_fit(c, "output", &out, "input", in);
  }
  if ((err == UTVM_OK) && ((out.t.type != in->t.type) || !ops_same_quant(in, &out))) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "an output's type, scale or zero point differs from the input's");
  }
  if (err == UTVM_OK) {
    err = ops_output_offset(c, &out, &o->output);
  }
  return err;
}

/* The number of outputs the options give, and the axis (SPLIT, SPLIT_V: an input; UNPACK: the
 * options). */
static utvm_err_t split_count(const utvm_op_context_t *c, const ops_operand_t *in,
                              int32_t *axis) {
  int32_t o[N_OPTIONS] = {0, 0};
  const bool unpack = c->op->code == UTVM_MODEL_OP_UNPACK;
  utvm_err_t err = unpack ? ops_options(c, unpack_options, N_OPTIONS, o)
                          : ops_options(c, split_options, 1u, o);
  if ((err == UTVM_OK) && (o[NUM] != (int32_t)c->op->n_outputs)) {
    err = ops_fail_option(c, unpack ? "num " : "num_splits ", o[NUM],
                          " is not the number of outputs");
  }
  if (err == UTVM_OK) {
    if (unpack) {
      err = ops_option_axis(c, o[AXIS], in->t.rank, axis);
    } else {
      err = split_axis_input(c, (c->op->code == UTVM_MODEL_OP_SPLIT) ? 0u : 2u, in, axis);
    }
  }
  return err;
}

static utvm_err_t split_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  split_record_t *rec = (split_record_t *)record;
  split_output_t *outs = split_outputs(rec);
  const uint32_t n = c->op->n_outputs;
  const bool unpack = c->op->code == UTVM_MODEL_OP_UNPACK;
  ops_operand_t in;
  int32_t axis = 0;
  uint32_t d;
  uint32_t j;
  utvm_op_type_t type = UTVM_OP_TYPE_ANY;
  (void)size;
  utvm_err_t err = ops_load(c, (c->op->code == UTVM_MODEL_OP_SPLIT) ? 1u : 0u, &in);
  if (err == UTVM_OK) {
    err = ops_check_nonempty(c, &in, "input");
  }
  if ((err == UTVM_OK) && (in.t.rank < 1u)) {
    err = ops_fail_shape(c, "input", &in, " is a scalar");
  }
  if (err == UTVM_OK) {
    err = ops_element_type(c, &in, "input", &type);
  }
  if (err == UTVM_OK) {
    err = split_count(c, &in, &axis);
  }
  const int32_t total = (err == UTVM_OK) ? in.t.dims[axis] : 0;
  if (err == UTVM_OK) {
    if (c->op->code == UTVM_MODEL_OP_SPLIT_V) {
      err = split_v_lengths(c, total, outs, n);
    } else if ((total % (int32_t)n) != 0) {
      err = ops_fail_shape(c, "input", &in, " does not divide into the outputs along the axis");
    } else {
      for (j = 0u; j < n; j++) {
        outs[j].len = total / (int32_t)n;
      }
    }
  }
  int32_t begin = 0;
  for (j = 0u; (j < n) && (err == UTVM_OK); j++) {
    outs[j].begin = begin;
    begin += outs[j].len;
    err = split_output(c, j, &in, (uint32_t)axis, unpack, &outs[j]);
  }
  if (err == UTVM_OK) {
    err = ops_input_ref(c, &in, &rec->input);
  }
  if (err == UTVM_OK) {
    rec->type = (int32_t)type;
    rec->n_outputs = n;
    rec->params.outer = 1;
    rec->params.inner = 1;
    for (d = 0u; d < in.t.rank; d++) {
      if (d < (uint32_t)axis) {
        rec->params.outer *= in.t.dims[d];
      } else if (d > (uint32_t)axis) {
        rec->params.inner *= in.t.dims[d];
      } else {
        rec->params.input_len = in.t.dims[d];
      }
    }
    rec->params.element_size = (int32_t)in.t.element_size;
    rec->params.begin = outs[0].begin;
    rec->params.output_len = outs[0].len;
  }
  return err;
}

static utvm_err_t split_execute(const void *record, uint8_t *arena) {
  const split_record_t *r = (const split_record_t *)record;
  const split_output_t *outs = (const split_output_t *)(const void *)&r[1];
  utvm_split_params_t p = r->params;
  utvm_err_t err = UTVM_OK;
  uint32_t j;
  for (j = 0u; (j < r->n_outputs) && (err == UTVM_OK); j++) {
    p.begin = outs[j].begin;
    p.output_len = outs[j].len;
    err = utvm_split(&p, ops_in(arena, &r->input), &arena[outs[j].output]);
  }
  return err;
}

static void split_export(const void *record, utvm_kernels_core_t core, uint32_t j,
                         utvm_op_params_t *p) {
  const split_record_t *r = (const split_record_t *)record;
  const split_output_t *outs = (const split_output_t *)(const void *)&r[1];
  (void)core;
  p->kind = UTVM_OP_SPLIT;
  p->type = r->type;
  p->p.split = r->params;
  if (j < r->n_outputs) {
    p->p.split.begin = outs[j].begin;
    p->p.split.output_len = outs[j].len;
  }
}

/* SCATTER when the axis is the input's outermost dimension that is not 1. */
static utvm_plan_step_kind_t split_plan_kind(const utvm_model_t *m, uint32_t index,
                                             const utvm_model_operator_t *op) {
  utvm_text_t text;
  utvm_op_context_t c;
  ops_operand_t in;
  int32_t axis = 0;
  ops_plan_context(&c, &text, m, index, op);
  utvm_err_t err = ops_load(&c, (op->code == UTVM_MODEL_OP_SPLIT) ? 1u : 0u, &in);
  if (err == UTVM_OK) {
    err = split_count(&c, &in, &axis);
  }
  return (err == UTVM_OK) ? ops_view_kind(m, (int32_t)in.index, axis, UTVM_PLAN_STEP_SCATTER)
                          : UTVM_PLAN_STEP_DEFAULT;
}

const utvm_op_t utvm_op_split = {(int32_t)UTVM_MODEL_OP_SPLIT, 2u, 2u, 35u, split_record_size,
                                 NULL, split_prepare, split_execute, NULL, ops_inputs_1,
                                 UTVM_MODEL_MAX_OP_OUTPUTS, 1u, split_export, split_plan_kind, NULL,
                                 NULL, NULL};

const utvm_op_t utvm_op_split_v = {(int32_t)UTVM_MODEL_OP_SPLIT_V, 3u, 3u, 79u,
                                   split_record_size, NULL, split_prepare, split_execute, NULL,
                                   ops_inputs_1, UTVM_MODEL_MAX_OP_OUTPUTS, 0u, split_export,
                                   split_plan_kind, NULL, NULL, NULL};

const utvm_op_t utvm_op_unpack = {(int32_t)UTVM_MODEL_OP_UNPACK, 1u, 1u, 64u, split_record_size,
                                  NULL, split_prepare, split_execute, NULL, ops_inputs_1,
                                  UTVM_MODEL_MAX_OP_OUTPUTS, 0u, split_export, split_plan_kind, NULL,
                                  NULL, NULL};

/* ---- The kernel function utvm_k_split ---- */

typedef char split_check_params[(sizeof(utvm_split_params_t) == 24u) ? 1 : -1];

static void split_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->type);
  ops_walk_block(w, &p->p.split, sizeof(p->p.split));
}

static const char *split_check(utvm_op_params_t *p) {
  const utvm_split_params_t *s = &p->p.split;
  const char *why = ops_check_n_inputs(p, 1u);
  if (why != NULL) {
    return why;
  }
  if ((ops_type_size(p->type) == 0) || (ops_type_size(p->type) != s->element_size)) {
    return "element type and size disagree";
  }
  if ((s->outer < 1) || (s->input_len < 1) || (s->output_len < 1) || (s->inner < 1) ||
      (s->begin < 0) || (s->begin > (s->input_len - s->output_len))) {
    return "the output's block lies outside the input";
  }
  const utvm_op_type_t type = (utvm_op_type_t)p->type;
  const uint64_t rows = (uint64_t)s->outer * (uint64_t)s->inner;
  const uint64_t in_elements = rows * (uint64_t)s->input_len;
  const uint64_t out_elements = rows * (uint64_t)s->output_len;
  if (!ops_set_operand(p, 0u, type, in_elements) || !ops_set_operand(p, 1u, type, out_elements)) {
    return "a tensor is too large";
  }
  return NULL;
}

static utvm_err_t split_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_split(&p->p.split, data[0], data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_split = {split_walk, split_check, NULL, split_run,
                                                UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t split_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_INPUT, 0u},
    {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_split = {"utvm_split_params_t",
    "outer input_len output_len begin inner element_size", split_args, NULL};
