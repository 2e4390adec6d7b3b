/* The strided copy shared by the layout operators (TRANSPOSE, SLICE, STRIDED_SLICE,
 * DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND; int8, int16, float32): the record their
 * prepare steps fill (ops_copy_t: output dimensions and input strides), its run and export,
 * and the kernel function utvm_k_strided_copy (op params, emit). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

size_t ops_copy_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(ops_copy_t));
}

utvm_err_t ops_copy_begin(const utvm_op_context_t *c, ops_copy_t *rec, ops_operand_t *in,
                          ops_operand_t *out, int32_t *strides) {
  utvm_op_type_t type = UTVM_OP_TYPE_INT8;
  int32_t size = 1;
  uint32_t d;
  int32_t stride = 1;
  utvm_err_t err = ops_load_layout(c, in, out, &type, &size);
  if ((err == UTVM_OK) && ((in->t.rank > (uint32_t)UTVM_STRIDED_COPY_MAX_RANK) ||
                           (out->t.rank > (uint32_t)UTVM_STRIDED_COPY_MAX_RANK))) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED, "ranks above 6 are not supported");
  }
  if (err == UTVM_OK) {
    err = ops_places(c, in, &rec->input, out, &rec->output);
  }
  rec->type = (int32_t)type;
  rec->params.element_size = size;
  rec->params.input_elements = (int32_t)in->t.elements; /* the reader bounds tensor bytes */
  rec->params.start = 0;
  rec->params.rank = 1;
  for (d = 0u; d < (uint32_t)UTVM_STRIDED_COPY_MAX_RANK; d++) {
    rec->params.dims[d] = 1;
    rec->params.strides[d] = 0;
    strides[d] = 0;
  }
  for (d = in->t.rank; (err == UTVM_OK) && (d > 0u); d--) {
    strides[d - 1u] = stride;
    stride *= in->t.dims[d - 1u]; /* at most the element count */
  }
  return err;
}

utvm_err_t ops_copy_execute(const void *record, uint8_t *arena) {
  const ops_copy_t *r = (const ops_copy_t *)record;
  return utvm_strided_copy(&r->params, ops_in(arena, &r->input), &arena[r->output]);
}

void ops_copy_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  const ops_copy_t *r = (const ops_copy_t *)record;
  (void)core;
  p->kind = UTVM_OP_STRIDED_COPY;
  p->type = r->type;
  p->p.copy = r->params;
}

/* ---- The kernel function utvm_k_strided_copy ---- */

typedef char copy_check_params[(sizeof(utvm_strided_copy_params_t) == 64u) ? 1 : -1];

static void copy_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->type);
  ops_walk_block(w, &p->p.copy, sizeof(p->p.copy));
}

static const char *copy_check(utvm_op_params_t *p) {
  const utvm_strided_copy_params_t *s = &p->p.copy;
  uint64_t out = 1u;
  int64_t lowest = s->start;
  int64_t highest = s->start;
  int32_t d;
  const char *why = ops_check_n_inputs(p, 1u);
  if (why != NULL) {
    return why;
  }
  if ((ops_type_size(p->type) == 0) || (ops_type_size(p->type) != s->element_size)) {
    return "element type and size differ or are not int8, int16 or float32";
  }
  if ((s->rank < 1) || (s->rank > UTVM_STRIDED_COPY_MAX_RANK) || (s->input_elements < 1)) {
    return "rank or input size out of range";
  }
  for (d = 0; d < UTVM_STRIDED_COPY_MAX_RANK; d++) {
    if (d < s->rank) {
      const int64_t reach = (int64_t)s->strides[d] * ((int64_t)s->dims[d] - 1);
      if ((s->dims[d] < 1) || (out > UTVM_OP_PARAMS_MAX_ELEMENTS)) {
        return "a dimension is < 1 or the output too large";
      }
      out *= (uint64_t)s->dims[d];
      if (reach < 0) {
        lowest += reach;
      } else {
        highest += reach;
      }
    } else if ((s->dims[d] != 1) || (s->strides[d] != 0)) {
      return "a dimension past the rank is not 1 with stride 0";
    } else {
      /* unused dimension */
    }
  }
  if ((lowest < 0) || (highest >= (int64_t)s->input_elements)) {
    return "a read lies outside the input";
  }
  if (!ops_set_operand(p, 0u, (utvm_op_type_t)p->type, (uint64_t)s->input_elements) ||
      !ops_set_operand(p, 1u, (utvm_op_type_t)p->type, out)) {
    return "a tensor is too large";
  }
  return NULL;
}

static utvm_err_t copy_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_strided_copy(&p->p.copy, data[0], data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_strided_copy = {copy_walk, copy_check, NULL, copy_run,
                                                       UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t strided_copy_args[] = {{UTVM_EMIT_PARAMS, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_strided_copy = {"utvm_strided_copy_params_t",
    "element_size input_elements start rank dims[6] strides[6]", strided_copy_args, NULL};
