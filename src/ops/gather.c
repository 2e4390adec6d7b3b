/* GATHER (int8, float32; indices int32 or int64, constant or computed; axis and batch_dims
 * options): prepare, run, op params, emit of the byte-generic kernel utvm_gather. An index
 * outside the axis is a kernel error at run time (constant indices: refused at prepare). int16
 * is refused: TFLM has int8 and float32 only. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ops_internal.h"

/* GatherOptions (BuiltinOptions 23). */
enum { AXIS, BATCH_DIMS, N_OPTIONS };
static const ops_field_t gather_options[N_OPTIONS] = {{0u, OPS_I32, OPS_ANY, 0, "axis"},
                                                      {1u, OPS_I32, OPS_ANY, 0, "batch_dims"}};

typedef struct {
  ops_ref_t input;
  ops_ref_t indices;
  uint32_t output;
  int32_t type; /* utvm_op_type_t */
  utvm_gather_params_t params;
} gather_record_t;

static size_t gather_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(gather_record_t));
}

/* The indices (input 1): int32 or int64, every dimension >= 1; constant ones inside the axis. */
static utvm_err_t gather_indices(const utvm_op_context_t *c, ops_operand_t *idx,
                                 int32_t axis_size) {
  utvm_err_t err = ops_load(c, 1u, idx);
  if ((err == UTVM_OK) && (idx->t.type != UTVM_MODEL_INT32) && (idx->t.type != UTVM_MODEL_INT64)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED, "indices are not int32 or int64");
  }
  if (err == UTVM_OK) {
    err = ops_check_nonempty(c, idx, "indices");
  }
  if ((err == UTVM_OK) && (idx->t.data != NULL)) {
    size_t i;
    for (i = 0u; (err == UTVM_OK) && (i < idx->t.elements); i++) {
      int32_t v = -1;
      if (!ops_read_int(&idx->t, i, &v) || (v < 0) || (v >= axis_size)) {
        err = ops_fail_shape(c, "indices", idx, ": an entry lies outside the axis");
      }
    }
  }
  return err;
}

/* The output shape TFLM gives: input[0, axis), indices[batch_dims, rank), input(axis, rank). */
static bool gather_output_fits(const ops_operand_t *in, const ops_operand_t *idx,
                               const ops_operand_t *out, uint32_t axis, uint32_t batch_dims) {
  uint32_t at = 0u;
  uint32_t d;
  bool ok = out->t.rank == ((in->t.rank + idx->t.rank) - 1u - batch_dims);
  for (d = 0u; ok && (d < axis); d++) {
    ok = out->t.dims[at] == in->t.dims[d];
    at++;
  }
  for (d = batch_dims; ok && (d < idx->t.rank); d++) {
    ok = out->t.dims[at] == idx->t.dims[d];
    at++;
  }
  for (d = axis + 1u; ok && (d < in->t.rank); d++) {
    ok = out->t.dims[at] == in->t.dims[d];
    at++;
  }
  return ok;
}

static utvm_err_t gather_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  gather_record_t *rec = (gather_record_t *)record;
  ops_operand_t in;
  ops_operand_t out;
  ops_operand_t idx;
  utvm_op_type_t type = UTVM_OP_TYPE_INT8;
  int32_t element = 1;
  int32_t o[N_OPTIONS];
  int32_t axis = 0;
  int32_t bd = 0;
  (void)size;
  (void)memset(&in, 0, sizeof(in));
  (void)memset(&out, 0, sizeof(out));
  (void)memset(&idx, 0, sizeof(idx));
  utvm_err_t err = ops_options(c, gather_options, N_OPTIONS, o);
  if (err == UTVM_OK) {
    err = ops_load_layout(c, &in, &out, &type, &element);
  }
  if (err == UTVM_OK) {
    err = ops_refuse_int16(c, &in, "int8 and float32");
  }
  if ((err == UTVM_OK) && (in.t.rank < 1u)) {
    err = ops_fail_shape(c, "input", &in, " is a scalar");
  }
  if (err == UTVM_OK) {
    err = ops_option_axis(c, o[AXIS], in.t.rank, &axis);
  }
  if (err == UTVM_OK) {
    err = gather_indices(c, &idx, in.t.dims[axis]);
  }
  if (err == UTVM_OK) {
    uint32_t d;
    bd = (o[BATCH_DIMS] < 0) ? (o[BATCH_DIMS] + (int32_t)idx.t.rank) : o[BATCH_DIMS];
    bool ok = (bd >= 0) && (bd <= axis) && (bd < (int32_t)in.t.rank) &&
              (bd <= (int32_t)idx.t.rank);
    for (d = 0u; ok && (d < (uint32_t)bd); d++) {
      ok = in.t.dims[d] == idx.t.dims[d];
    }
    if (!ok) {
      err = ops_fail_option(c, "batch_dims ", o[BATCH_DIMS],
                            " does not fit the axis, input and indices");
    }
  }
  if ((err == UTVM_OK) &&
      !gather_output_fits(&in, &idx, &out, (uint32_t)axis, (uint32_t)bd)) {
    err = ops_fail_fit(c, "output", &out, "the indices and input", &in);
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  if (err == UTVM_OK) {
    err = ops_input_ref(c, &idx, &rec->indices);
  }
  if (err == UTVM_OK) {
    rec->type = (int32_t)type;
    rec->params.element_size = element;
    rec->params.index_size = 4;
    if (idx.t.type == UTVM_MODEL_INT64) {
      rec->params.index_size = 8;
    }
    rec->params.batch = ops_dims_product(&in, 0u, (uint32_t)bd);
    rec->params.outer = ops_dims_product(&in, (uint32_t)bd, (uint32_t)axis);
    rec->params.axis_size = in.t.dims[axis];
    rec->params.coords = ops_dims_product(&idx, (uint32_t)bd, idx.t.rank);
    rec->params.inner = ops_dims_product(&in, (uint32_t)axis + 1u, in.t.rank);
  }
  return err;
}

static utvm_err_t gather_execute(const void *record, uint8_t *arena) {
  const gather_record_t *r = (const gather_record_t *)record;
  return utvm_gather(&r->params, ops_in(arena, &r->input), ops_in(arena, &r->indices),
                     &arena[r->output]);
}

static void gather_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const gather_record_t *r = (const gather_record_t *)record;
  (void)core;
  p->kind = UTVM_OP_GATHER;
  p->type = r->type;
  p->p.gather = r->params;
}

const utvm_op_t utvm_op_gather = {(int32_t)UTVM_MODEL_OP_GATHER, 2u, 2u, 23u,
                                  gather_record_size, NULL, gather_prepare, gather_execute,
                                  gather_export, ops_inputs_2, 0u, 0u, NULL, NULL, NULL,
                                  NULL, NULL};

/* ---- The kernel function utvm_k_gather ---- */

typedef char gather_check_params[(sizeof(utvm_gather_params_t) == 28u) ? 1 : -1];

static void gather_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->type);
  ops_walk_block(w, &p->p.gather, sizeof(p->p.gather));
}

static const char *gather_check(utvm_op_params_t *p) {
  const utvm_gather_params_t *g = &p->p.gather;
  const char *why = ops_check_n_inputs(p, 2u);
  if (why != NULL) {
    return why;
  }
  if ((ops_type_size(p->type) == 0) || (ops_type_size(p->type) != g->element_size) ||
      ((g->index_size != 4) && (g->index_size != 8))) {
    return "element type and size differ, or indices not int32 or int64";
  }
  if ((g->batch < 1) || (g->outer < 1) || (g->axis_size < 1) || (g->coords < 1) ||
      (g->inner < 1)) {
    return "a size is < 1";
  }
  {
    const uint64_t block = (uint64_t)g->outer * (uint64_t)g->inner;
    const uint64_t batch_coords = (uint64_t)g->batch * (uint64_t)g->coords;
    const uint64_t in = (uint64_t)g->batch * (uint64_t)g->axis_size;
    if ((block > UTVM_OP_PARAMS_MAX_ELEMENTS) || (batch_coords > UTVM_OP_PARAMS_MAX_ELEMENTS) ||
        (in > UTVM_OP_PARAMS_MAX_ELEMENTS) ||
        !ops_set_operand(p, 0u, (utvm_op_type_t)p->type, in * block) ||
        !ops_set_operand(p, 1u, (g->index_size == 8) ? UTVM_OP_TYPE_INT64 : UTVM_OP_TYPE_INT32,
                         batch_coords) ||
        !ops_set_operand(p, 2u, (utvm_op_type_t)p->type, batch_coords * block)) {
      return "a tensor is too large";
    }
  }
  return NULL;
}

static utvm_err_t gather_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_gather(&p->p.gather, data[0], data[1], data[2]);
}

const utvm_op_kind_info_t utvm_op_kind_gather = {gather_walk, gather_check, NULL, gather_run,
                                                 UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t gather_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_INPUT, 0u},
    {UTVM_EMIT_INPUT, 1u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_gather = {"utvm_gather_params_t",
    "element_size index_size batch outer axis_size coords inner", gather_args, NULL};
