/* RESIZE_NEAREST_NEIGHBOR (int8, int16, float32) and RESIZE_BILINEAR (int8): 4-D, a constant
 * int32 size [h', w'] equal to the output's, align_corners and half_pixel_centers options.
 * Prepare, run, op params, emit. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops_internal.h"

/* The kernels' limits: output sides up to 2^24, bilinear input sides up to 2^20. */
#define RESIZE_MAX_OUTPUT 16777216
#define RESIZE_MAX_INPUT 1048576

/* ResizeNearestNeighborOptions (BuiltinOptions 74): align_corners (0), half_pixel_centers (1);
 * ResizeBilinearOptions (15): new_height (0) and new_width (1) deprecated, then the same two
 * at 2 and 3. */
enum { ALIGN_CORNERS, HALF_PIXEL_CENTERS, N_OPTIONS };
static const ops_field_t nearest_options[N_OPTIONS] = {
    {0u, OPS_U8, OPS_ANY, 0, "align_corners"}, {1u, OPS_U8, OPS_ANY, 0, "half_pixel_centers"}};
static const ops_field_t bilinear_options[N_OPTIONS] = {
    {2u, OPS_U8, OPS_ANY, 0, "align_corners"}, {3u, OPS_U8, OPS_ANY, 0, "half_pixel_centers"}};

typedef struct {
  ops_ref_t input;
  uint32_t output;
  int32_t type;        /* utvm_op_type_t */
  utvm_dims_t dims[2]; /* input, output */
  utvm_resize_params_t params;
} resize_record_t;

static size_t resize_record_size(const utvm_model_t *m, const utvm_model_operator_t *op) {
  (void)m;
  (void)op;
  return ops_record_bytes(sizeof(resize_record_t));
}

/* The size (input 1): a constant int32 [2] holding the output's height and width. */
static utvm_err_t resize_size(const utvm_op_context_t *c, const ops_operand_t *out) {
  ops_operand_t sz;
  int32_t h = 0;
  int32_t w = 0;
  utvm_err_t err = ops_load_int_constant(c, 1u, "size", false, &sz);
  if ((err == UTVM_OK) && ((sz.t.rank != 1u) || (sz.t.dims[0] != 2))) {
    err = ops_fail_shape(c, "size", &sz, " is not [2]");
  }
  if ((err == UTVM_OK) && (!ops_read_int(&sz.t, 0u, &h) || !ops_read_int(&sz.t, 1u, &w) ||
                           (h != out->t.dims[1]) || (w != out->t.dims[2]))) {
    err = ops_fail_fit(c, "output", out, "size", &sz);
  }
  return err;
}

static utvm_err_t resize_prepare_as(const utvm_op_context_t *c, resize_record_t *rec,
                                    bool bilinear) {
  ops_operand_t in;
  ops_operand_t out;
  utvm_op_type_t type = UTVM_OP_TYPE_INT8;
  int32_t size = 1;
  int32_t o[N_OPTIONS] = {0, 0};
  utvm_err_t err = ops_options(c, bilinear ? bilinear_options : nearest_options, N_OPTIONS, o);
  if (err == UTVM_OK) {
    err = ops_load_layout(c, &in, &out, &type, &size);
  }
  if ((err == UTVM_OK) && bilinear) {
    err = ops_refuse_int16(c, &in, "int8 and float32");
  }
  if ((err == UTVM_OK) && bilinear && (type != UTVM_OP_TYPE_INT8)) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "input is float32: utvm's RESIZE_BILINEAR has int8 only");
  }
  if ((err == UTVM_OK) && bilinear && (o[ALIGN_CORNERS] != 0) && (o[HALF_PIXEL_CENTERS] != 0)) {
    err = ops_fail(c, UTVM_ERR_MODEL_BAD_OPTION,
                   "options: align_corners and half_pixel_centers are both true");
  }
  if (err == UTVM_OK) {
    err = ops_check_rank(c, &in, "input", 4u);
  }
  if (err == UTVM_OK) {
    err = ops_check_rank(c, &out, "output", 4u);
  }
  if ((err == UTVM_OK) && ((out.t.dims[0] != in.t.dims[0]) || (out.t.dims[3] != in.t.dims[3]))) {
    err = ops_fail_fit(c, "output", &out, "input", &in);
  }
  if ((err == UTVM_OK) && ((out.t.dims[1] > RESIZE_MAX_OUTPUT) ||
                           (out.t.dims[2] > RESIZE_MAX_OUTPUT) ||
                           (bilinear && ((in.t.dims[1] > RESIZE_MAX_INPUT) ||
                                         (in.t.dims[2] > RESIZE_MAX_INPUT))))) {
    err = ops_fail(c, UTVM_ERR_RUNNER_UNSUPPORTED,
                   "an image side is larger than the kernel takes (input 2^20, output 2^24)");
  }
  if (err == UTVM_OK) {
    err = resize_size(c, &out);
  }
  if (err == UTVM_OK) {
    err = ops_places(c, &in, &rec->input, &out, &rec->output);
  }
  if (err == UTVM_OK) {
    rec->type = (int32_t)type;
    rec->dims[0] = ops_dims(&in.t);
    rec->dims[1] = ops_dims(&out.t);
    rec->params.element_size = size;
    rec->params.align_corners = 0;
    rec->params.half_pixel_centers = 0;
    if (o[ALIGN_CORNERS] != 0) {
      rec->params.align_corners = 1;
    }
    if (o[HALF_PIXEL_CENTERS] != 0) {
      rec->params.half_pixel_centers = 1;
    }
  }
  return err;
}

static utvm_err_t nearest_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  (void)size;
  return resize_prepare_as(c, (resize_record_t *)record, false);
}

static utvm_err_t bilinear_prepare(const utvm_op_context_t *c, void *record, size_t size) {
  (void)size;
  return resize_prepare_as(c, (resize_record_t *)record, true);
}

static utvm_err_t nearest_execute(const void *record, uint8_t *arena) {
  const resize_record_t *r = (const resize_record_t *)record;
  return utvm_resize_nearest(&r->params, &r->dims[0], ops_in(arena, &r->input), &r->dims[1],
                             &arena[r->output]);
}

static utvm_err_t bilinear_execute(const void *record, uint8_t *arena) {
  const resize_record_t *r = (const resize_record_t *)record;
  return utvm_resize_bilinear_s8(&r->params, &r->dims[0], ops_in_s8(arena, &r->input),
                                 &r->dims[1], ops_out_s8(arena, r->output));
}

static void resize_export(const resize_record_t *r, utvm_op_kind_t kind, utvm_op_params_t *p) {
  p->kind = kind;
  p->type = r->type;
  p->dims[0] = r->dims[0];
  p->dims[1] = r->dims[1];
  p->p.resize = r->params;
}

static void nearest_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  (void)core;
  resize_export((const resize_record_t *)record, UTVM_OP_RESIZE_NEAREST, p);
}

static void bilinear_export(const void *record, utvm_kernels_core_t core, utvm_op_params_t *p) {
  (void)core;
  resize_export((const resize_record_t *)record, UTVM_OP_RESIZE_BILINEAR_S8, p);
}

const utvm_op_t utvm_op_resize_nearest_neighbor = {
    (int32_t)UTVM_MODEL_OP_RESIZE_NEAREST_NEIGHBOR, 2u, 2u, 74u, resize_record_size, NULL,
    nearest_prepare, nearest_execute, nearest_export, ops_inputs_1, 0u, 0u, NULL, NULL, NULL,
    NULL, NULL};

const utvm_op_t utvm_op_resize_bilinear = {
    (int32_t)UTVM_MODEL_OP_RESIZE_BILINEAR, 2u, 2u, 15u, resize_record_size, NULL,
    bilinear_prepare, bilinear_execute, bilinear_export, ops_inputs_1, 0u, 0u, NULL, NULL, NULL,
    NULL, NULL};

/* ---- The kernel functions utvm_k_resize_nearest and utvm_k_resize_bilinear_s8 ---- */

typedef char resize_check_params[(sizeof(utvm_resize_params_t) == 12u) ? 1 : -1];

static void resize_walk(utvm_op_walk_t *w, utvm_op_params_t *p) {
  ops_walk_i32(w, &p->type);
  ops_walk_block(w, &p->dims[0], sizeof(p->dims[0]));
  ops_walk_block(w, &p->dims[1], sizeof(p->dims[1]));
  ops_walk_block(w, &p->p.resize, sizeof(p->p.resize));
}

/* Input and output dims of one batch and depth, the element type the kernel takes (bilinear:
 * int8 only, the sides within its limits). */
static const char *resize_check_as(utvm_op_params_t *p, bool bilinear) {
  const utvm_resize_params_t *r = &p->p.resize;
  uint64_t e[2] = {0u, 0u};
  const char *why = ops_check_n_inputs(p, 1u);
  if (why != NULL) {
    return why;
  }
  if ((ops_type_size(p->type) == 0) || (ops_type_size(p->type) != r->element_size) ||
      (bilinear && (p->type != (int32_t)UTVM_OP_TYPE_INT8))) {
    return "element type and size differ or are not of the kernel";
  }
  if ((r->align_corners < 0) || (r->align_corners > 1) || (r->half_pixel_centers < 0) ||
      (r->half_pixel_centers > 1) ||
      (bilinear && (r->align_corners == 1) && (r->half_pixel_centers == 1))) {
    return "align_corners or half_pixel_centers out of range";
  }
  if (!ops_dims_elements(&p->dims[0], &e[0]) || !ops_dims_elements(&p->dims[1], &e[1]) ||
      (p->dims[0].n != p->dims[1].n) || (p->dims[0].c != p->dims[1].c) ||
      (p->dims[1].h > RESIZE_MAX_OUTPUT) || (p->dims[1].w > RESIZE_MAX_OUTPUT) ||
      (bilinear && ((p->dims[0].h > RESIZE_MAX_INPUT) || (p->dims[0].w > RESIZE_MAX_INPUT)))) {
    return "the dims do not fit the kernel";
  }
  (void)ops_set_operand(p, 0u, (utvm_op_type_t)p->type, e[0]);
  (void)ops_set_operand(p, 1u, (utvm_op_type_t)p->type, e[1]);
  return NULL;
}

static const char *nearest_check(utvm_op_params_t *p) { return resize_check_as(p, false); }

static const char *bilinear_check(utvm_op_params_t *p) { return resize_check_as(p, true); }

static utvm_err_t nearest_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_resize_nearest(&p->p.resize, &p->dims[0], data[0], &p->dims[1], data[1]);
}

static utvm_err_t bilinear_run(const utvm_op_params_t *p, void *const *data, void *scratch) {
  (void)scratch;
  return utvm_resize_bilinear_s8(&p->p.resize, &p->dims[0], (const int8_t *)data[0],
                                 &p->dims[1], (int8_t *)data[1]);
}

const utvm_op_kind_info_t utvm_op_kind_resize_nearest = {resize_walk, nearest_check, NULL,
                                                         nearest_run, UTVM_PLAN_STEP_DEFAULT, NULL};
const utvm_op_kind_info_t utvm_op_kind_resize_bilinear_s8 = {
    resize_walk, bilinear_check, NULL, bilinear_run, UTVM_PLAN_STEP_DEFAULT, NULL};

static const utvm_op_emit_slot_t resize_args[] = {{UTVM_EMIT_PARAMS, 0u}, {UTVM_EMIT_DIMS, 0u},
    {UTVM_EMIT_INPUT, 0u}, {UTVM_EMIT_DIMS, 1u}, {UTVM_EMIT_OUTPUT, 0u}, {UTVM_EMIT_END, 0u}};

const utvm_op_emit_t utvm_op_emit_resize_nearest = {"utvm_resize_params_t",
    "element_size align_corners half_pixel_centers", resize_args, NULL};
const utvm_op_emit_t utvm_op_emit_resize_bilinear_s8 = {"utvm_resize_params_t",
    "element_size align_corners half_pixel_centers", resize_args, NULL};
