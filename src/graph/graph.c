/*
 * Graph executor: graph JSON (PROTOCOL.md 6.1) into caller memory, storage layout, run.
 *
 * The JSON is read twice with the same code: a count pass (no memory: counts of nodes, entries,
 * operator arguments, shape dimensions, name bytes, storage ids) that sizes the tables, then a
 * fill pass that writes them and checks what needs them (entry references, node outputs,
 * functions). The top-level members are located first, then read in a fixed order
 * (node_row_ptr, arg_nodes, heads, attrs, nodes), so that each is read with what it refers to.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "graph_internal.h"
#include "utvm/model.h"
#include "utvm/ops.h"

typedef char graph_check_alignment[((UTVM_GRAPH_STORAGE_ALIGNMENT % UTVM_PLAN_ALIGNMENT) == 0u) &&
                                   ((UTVM_GRAPH_STORAGE_ALIGNMENT &
                                     (UTVM_GRAPH_STORAGE_ALIGNMENT - 1u)) == 0u) ? 1 : -1];
typedef char graph_check_kfunc_alignment[((UTVM_GRAPH_KFUNC_ALIGNMENT % UTVM_PLAN_ALIGNMENT) == 0u) &&
                                         ((UTVM_GRAPH_KFUNC_ALIGNMENT &
                                           (UTVM_GRAPH_KFUNC_ALIGNMENT - 1u)) == 0u) &&
                                         (UTVM_GRAPH_KFUNC_ALIGNMENT >= 8u) &&
                                         (UTVM_GRAPH_KFUNC_ALIGNMENT <=
                                          UTVM_GRAPH_STORAGE_ALIGNMENT) ? 1 : -1];

/* The prefix of the kernel functions (utvm/kfuncs.h). */
#define KFUNC_PREFIX "utvm_k_"
#define KFUNC_PREFIX_LEN 7u

/* How the planner may place a node's output, from its function: the plan kind of the kernel
 * function's kind (utvm_op_kind_info_t.plan_kind: ALIAS for utvm_k_reshape, INPLACE for the
 * element-wise kinds, INPLACE_GROW for the in-place convolutions), DEFAULT for any other
 * function (and for a node with fewer arguments than the kind needs: ALIAS one input,
 * INPLACE and INPLACE_GROW a data input and the op params; one output). The element sizes of
 * an INPLACE node's inputs, and that an INPLACE_GROW node's inputs but the first are input
 * nodes, are checked when the steps are made (plan_problem). */
static utvm_plan_step_kind_t func_plan_kind(const char *func, uint32_t n_inputs,
                                            uint32_t n_outputs) {
  utvm_plan_step_kind_t kind = UTVM_PLAN_STEP_DEFAULT;
  bool found = strncmp(func, KFUNC_PREFIX, KFUNC_PREFIX_LEN) != 0;
  for (int32_t k = 1; (k <= UTVM_OP_KIND_MAX) && !found; k++) {
    const char *name = utvm_op_kind_function((utvm_op_kind_t)k);
    const utvm_op_kind_info_t *info = utvm_op_kind_info((utvm_op_kind_t)k);
    if ((name != NULL) && (info != NULL) && graph_same(func, name)) {
      kind = info->plan_kind;
      found = true;
    }
  }
  if ((n_outputs != 1u) || (n_inputs < ((kind == UTVM_PLAN_STEP_ALIAS) ? 1u : 2u))) {
    kind = UTVM_PLAN_STEP_DEFAULT;
  }
  return kind;
}

enum { TOP_NODES = 0, TOP_ARG_NODES, TOP_HEADS, TOP_ATTRS, TOP_ROW_PTR, TOP_COUNT };

static const char *const kTopKeys[TOP_COUNT] = {"nodes", "arg_nodes", "heads", "attrs",
                                                "node_row_ptr"};

/* Bytes of the key buffers: top-level, node and attrs keys, type tags. */
#define KEY_SIZE 32u

/* One pass over the JSON. */
typedef struct {
  graph_json_t j;
  utvm_graph_t *g;
  bool fill;
  utvm_graph_lookup_fn lookup;
  void *lookup_ctx;
  size_t top[TOP_COUNT];
  size_t dltype_pos; /* offsets of the attrs payload lists (count pass) */
  size_t sid_pos;
  size_t shape_pos;
  uint32_t args_used;
  uint32_t ops_used;
  uint32_t dims_used;
  uint32_t names_used;
  bool other_funcs; /* an operator whose function is no kernel function (utvm_k_*) */
} graph_pass_t;

static bool internal_error(graph_pass_t *p) {
  return graph_json_fail(&p->j, UTVM_ERR_GRAPH_JSON, "changed between passes", NULL);
}

/* ---- Top level --------------------------------------------------------------------------------- */

static bool parse_top(graph_pass_t *p) {
  graph_json_t *j = &p->j;
  bool found[TOP_COUNT] = {false, false, false, false, false};
  bool metadata = false;
  char key[KEY_SIZE];
  if (!graph_json_expect(j, '{')) {
    return false;
  }
  for (size_t i = 0u; (i <= j->len) && !metadata; i++) {
    int more = graph_json_next(j, '}', i == 0u);
    if (more < 0) {
      return false;
    }
    if (more == 0) {
      break;
    }
    if (!graph_json_string(j, key, sizeof(key), NULL, "key") || !graph_json_expect(j, ':')) {
      return false;
    }
    if (graph_same(key, "metadata")) {
      metadata = true; /* TVM stops reading here */
    } else {
      uint32_t k = 0u;
      while ((k < (uint32_t)TOP_COUNT) && !graph_same(key, kTopKeys[k])) {
        k++;
      }
      if (k == (uint32_t)TOP_COUNT) {
        return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "unknown key ", key);
      }
      if (found[k]) {
        return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "duplicate key ", key);
      }
      found[k] = true;
      p->top[k] = j->pos;
      if (!graph_json_skip(j)) {
        return false;
      }
    }
  }
  for (uint32_t k = 0u; k < (uint32_t)TOP_COUNT; k++) {
    if (!found[k]) {
      return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "missing key ", kTopKeys[k]);
    }
  }
  return true;
}

/* ---- node_row_ptr, arg_nodes, heads -------------------------------------------------------------- */

static bool parse_row_ptr(graph_pass_t *p) {
  graph_json_t *j = &p->j;
  utvm_graph_t *g = p->g;
  int64_t previous = 0;
  uint32_t count = 0u;
  j->pos = p->top[TOP_ROW_PTR];
  j->section = "node_row_ptr";
  if (!graph_json_expect(j, '[')) {
    return false;
  }
  for (size_t i = 0u; i <= j->len; i++) {
    int64_t v = 0;
    int more = graph_json_next(j, ']', i == 0u);
    if (more <= 0) {
      if (more < 0) {
        return false;
      }
      break;
    }
    if (count > UTVM_GRAPH_MAX_NODES) {
      return graph_json_fail_n(j, UTVM_ERR_GRAPH_LIMIT, "more than ", UTVM_GRAPH_MAX_NODES,
                               " nodes");
    }
    if (!graph_json_int(j, 0, (int64_t)UTVM_GRAPH_MAX_ENTRIES, &v, "entry index")) {
      return false;
    }
    if (((count == 0u) && (v != 0)) || (v < previous)) {
      return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "must start at 0 and never decrease", NULL);
    }
    if (p->fill) {
      if (count > g->num_nodes) {
        return internal_error(p);
      }
      g->row_ptr_[count] = (uint32_t)v;
    }
    previous = v;
    count++;
  }
  if (count == 0u) {
    return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "empty", NULL);
  }
  if (!p->fill) {
    g->num_nodes = count - 1u;
    g->num_entries = (uint32_t)previous;
  }
  return true;
}

static bool parse_arg_nodes(graph_pass_t *p) {
  graph_json_t *j = &p->j;
  utvm_graph_t *g = p->g;
  uint32_t count = 0u;
  j->pos = p->top[TOP_ARG_NODES];
  j->section = "arg_nodes";
  if (!graph_json_expect(j, '[')) {
    return false;
  }
  for (size_t i = 0u; i <= j->len; i++) {
    int64_t v = 0;
    int more = graph_json_next(j, ']', i == 0u);
    if (more <= 0) {
      if (more < 0) {
        return false;
      }
      break;
    }
    if (count >= UTVM_GRAPH_MAX_INPUTS) {
      return graph_json_fail_n(j, UTVM_ERR_GRAPH_LIMIT, "more than ", UTVM_GRAPH_MAX_INPUTS,
                               " inputs");
    }
    if (!graph_json_int(j, 0, (int64_t)g->num_nodes - 1, &v, "node id")) {
      return false;
    }
    if (p->fill) {
      if (count >= g->num_inputs) {
        return internal_error(p);
      }
      g->input_nodes_[count] = (uint32_t)v;
      g->input_names_[count] = GRAPH_NO_INDEX;
    }
    count++;
  }
  g->num_inputs = count;
  return true;
}

/* [node_id, output_index] or [node_id, output_index, version]: the entry id (fill pass). */
static bool parse_entry_ref(graph_pass_t *p, uint32_t *entry) {
  graph_json_t *j = &p->j;
  const utvm_graph_t *g = p->g;
  int64_t node = 0;
  int64_t index = 0;
  int64_t version = 0;
  if (!graph_json_expect(j, '[') ||
      !graph_json_int(j, 0, (int64_t)g->num_nodes - 1, &node, "entry node id") ||
      !graph_json_expect(j, ',') ||
      !graph_json_int(j, 0, (int64_t)UTVM_GRAPH_MAX_ENTRIES, &index, "entry output index")) {
    return false;
  }
  if (graph_json_next(j, ']', false) > 0) {
    if (!graph_json_int(j, 0, INT32_MAX, &version, "entry version") ||
        !graph_json_expect(j, ']')) {
      return false;
    }
  } else if (j->err != UTVM_OK) {
    return false;
  } else {
    /* two elements */
  }
  *entry = 0u;
  if (p->fill) {
    uint32_t first = g->row_ptr_[node];
    if ((uint32_t)index >= (g->row_ptr_[node + 1] - first)) {
      (void)graph_json_fail_n(j, UTVM_ERR_GRAPH_JSON, "entry refers to output ", (uint64_t)index,
                              " of node ");
      graph_text_u64(j->g, (uint64_t)node);
      graph_text_str(j->g, ", which has fewer outputs");
      return false;
    }
    *entry = first + (uint32_t)index;
  }
  return true;
}

static bool parse_heads(graph_pass_t *p) {
  graph_json_t *j = &p->j;
  utvm_graph_t *g = p->g;
  uint32_t count = 0u;
  j->pos = p->top[TOP_HEADS];
  j->section = "heads";
  if (!graph_json_expect(j, '[')) {
    return false;
  }
  for (size_t i = 0u; i <= j->len; i++) {
    uint32_t entry = 0u;
    int more = graph_json_next(j, ']', i == 0u);
    if (more <= 0) {
      if (more < 0) {
        return false;
      }
      break;
    }
    if (count >= UTVM_GRAPH_MAX_OUTPUTS) {
      return graph_json_fail_n(j, UTVM_ERR_GRAPH_LIMIT, "more than ", UTVM_GRAPH_MAX_OUTPUTS,
                               " outputs");
    }
    if (!parse_entry_ref(p, &entry)) {
      return false;
    }
    if (p->fill) {
      if (count >= g->num_outputs) {
        return internal_error(p);
      }
      g->output_entries_[count] = entry;
    }
    count++;
  }
  g->num_outputs = count;
  return true;
}

/* ---- attrs ------------------------------------------------------------------------------------- */

/* Checks that a list has exactly as many elements as there are entries. */
static bool check_entry_count(graph_pass_t *p, uint32_t count, const char *what) {
  if (count != p->g->num_entries) {
    (void)graph_json_fail_n(&p->j, UTVM_ERR_GRAPH_JSON, "", count, " values of ");
    graph_text_str(p->g, what);
    graph_text_str(p->g, " for ");
    graph_text_u64(p->g, p->g->num_entries);
    graph_text_str(p->g, " entries");
    return false;
  }
  return true;
}

/* Reads one element of a dltype list. */
static bool read_dltype(graph_json_t *j, DLDataType *dtype) {
  char text[KEY_SIZE];
  if (!graph_json_string(j, text, sizeof(text), NULL, "dltype")) {
    return false;
  }
  if (!graph_parse_dtype(text, dtype)) {
    return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "unknown dltype ", text);
  }
  return true;
}

/* Reads one shape ([d0, d1, ...]) into dims (UTVM_GRAPH_MAX_NDIM), its length into *ndim. */
static bool read_shape(graph_json_t *j, int64_t *dims, uint32_t *ndim) {
  uint32_t n = 0u;
  if (!graph_json_expect(j, '[')) {
    return false;
  }
  for (uint32_t i = 0u; i <= UTVM_GRAPH_MAX_NDIM; i++) {
    int more = graph_json_next(j, ']', i == 0u);
    if (more <= 0) {
      *ndim = n;
      return more == 0;
    }
    if (n >= UTVM_GRAPH_MAX_NDIM) {
      break;
    }
    if (!graph_json_int(j, 0, (int64_t)UTVM_GRAPH_MAX_TENSOR_BYTES, &dims[n], "dimension")) {
      return false;
    }
    n++;
  }
  return graph_json_fail_n(j, UTVM_ERR_GRAPH_LIMIT, "shape of more than ", UTVM_GRAPH_MAX_NDIM,
                           " dimensions");
}

/* The payload list of attribute key (cursor after its type tag and comma). */
static bool parse_attr_list(graph_pass_t *p, uint32_t which) {
  graph_json_t *j = &p->j;
  utvm_graph_t *g = p->g;
  uint32_t count = 0u;
  if (which == 0u) {
    p->dltype_pos = j->pos;
  } else if (which == 1u) {
    p->sid_pos = j->pos;
  } else if (which == 2u) {
    p->shape_pos = j->pos;
  } else {
    /* device_index: only checked */
  }
  if (!graph_json_expect(j, '[')) {
    return false;
  }
  for (size_t i = 0u; i <= j->len; i++) {
    int more = graph_json_next(j, ']', i == 0u);
    if (more <= 0) {
      if (more < 0) {
        return false;
      }
      break;
    }
    if (count >= g->num_entries) {
      return graph_json_fail_n(j, UTVM_ERR_GRAPH_JSON, "more values than the ", g->num_entries,
                               " entries");
    }
    if (which == 0u) {
      DLDataType dtype;
      if (!read_dltype(j, &dtype)) {
        return false;
      }
      if (p->fill) {
        g->entries_[count].dtype = dtype;
      }
    } else if (which == 2u) {
      int64_t dims[UTVM_GRAPH_MAX_NDIM];
      uint32_t ndim = 0u;
      if (!read_shape(j, dims, &ndim)) {
        return false;
      }
      if (p->fill) {
        if ((p->dims_used + ndim) > g->num_shape_dims_) {
          return internal_error(p);
        }
        g->entries_[count].shape = &g->shapes_[p->dims_used];
        g->entries_[count].ndim = (int32_t)ndim;
        for (uint32_t d = 0u; d < ndim; d++) {
          g->shapes_[p->dims_used + d] = dims[d];
        }
      }
      p->dims_used += ndim;
    } else {
      int64_t v = 0;
      if (!graph_json_int(j, 0, (int64_t)UTVM_GRAPH_MAX_STORAGE - 1,
                          &v, (which == 1u) ? "storage id" : "device index")) {
        return false;
      }
      if ((which == 1u) && p->fill) {
        g->entry_sids_[count] = (uint32_t)v;
      } else if ((which == 1u) && ((uint32_t)v >= g->num_storage)) {
        g->num_storage = (uint32_t)v + 1u;
      } else {
        /* device index: any non-negative value (one device) */
      }
    }
    count++;
  }
  return check_entry_count(p, count, (which == 0u) ? "dltype" : ((which == 1u) ? "storage_id" :
                                                     ((which == 2u) ? "shape" : "device_index")));
}

static bool parse_attrs(graph_pass_t *p) {
  static const char *const kKeys[4] = {"dltype", "storage_id", "shape", "device_index"};
  static const char *const kTags[4] = {"list_str", "list_int", "list_shape", "list_int"};
  graph_json_t *j = &p->j;
  bool found[4] = {false, false, false, false};
  char key[KEY_SIZE];
  char tag[KEY_SIZE];
  j->pos = p->top[TOP_ATTRS];
  j->section = "attrs";
  if (!graph_json_expect(j, '{')) {
    return false;
  }
  for (size_t i = 0u; i <= j->len; i++) {
    uint32_t k = 0u;
    int more = graph_json_next(j, '}', i == 0u);
    if (more <= 0) {
      if (more < 0) {
        return false;
      }
      break;
    }
    if (!graph_json_string(j, key, sizeof(key), NULL, "key") || !graph_json_expect(j, ':') ||
        !graph_json_expect(j, '[') || !graph_json_string(j, tag, sizeof(tag), NULL, "type tag") ||
        !graph_json_expect(j, ',')) {
      return false;
    }
    while ((k < 4u) && !graph_same(key, kKeys[k])) {
      k++;
    }
    if (k < 4u) {
      if (found[k]) {
        return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "duplicate key ", key);
      }
      found[k] = true;
      if (!graph_same(tag, kTags[k])) {
        (void)graph_json_fail(j, UTVM_ERR_GRAPH_JSON, key, " must have type ");
        graph_text_str(p->g, kTags[k]);
        return false;
      }
      if (!parse_attr_list(p, k)) {
        return false;
      }
    } else if (graph_same(tag, "list_int") || graph_same(tag, "size_t")) {
      if (!graph_json_skip(j)) {
        return false;
      }
    } else {
      (void)graph_json_fail(j, UTVM_ERR_GRAPH_JSON, key, " of type ");
      graph_text_str(p->g, tag);
      graph_text_str(p->g, " not supported");
      return false;
    }
    if (!graph_json_expect(j, ']')) {
      return false;
    }
  }
  if (j->err != UTVM_OK) {
    return false;
  }
  for (uint32_t k = 0u; k < 3u; k++) {
    if (!found[k]) {
      return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "missing key ", kKeys[k]);
    }
  }
  return true;
}

/* ---- nodes -------------------------------------------------------------------------------------- */

/* What a node object holds. */
typedef struct {
  char op[UTVM_GRAPH_MAX_OP_LEN + 1u];
  char name[UTVM_GRAPH_MAX_NAME_LEN + 1u];
  char func[UTVM_GRAPH_MAX_NAME_LEN + 1u];
  size_t name_len;
  int64_t num_inputs;  /* -1: absent */
  int64_t num_outputs; /* -1: absent */
  uint32_t inputs;     /* entries listed in "inputs" */
  bool have[4];        /* op, name, inputs, attrs */
} graph_node_t;

/* A decimal attrs value ("2") as a number, -1 if it is none. */
static int64_t decimal_value(const char *text) {
  int64_t v = 0;
  size_t i = 0u;
  while ((text[i] >= '0') && (text[i] <= '9') && (i < 6u)) {
    v = (v * 10) + (int64_t)((uint32_t)text[i] - (uint32_t)'0');
    i++;
  }
  return ((i == 0u) || (text[i] != '\0')) ? -1 : v;
}

static bool parse_node_attrs(graph_pass_t *p, graph_node_t *n) {
  graph_json_t *j = &p->j;
  char key[UTVM_GRAPH_MAX_ATTR_KEY_LEN + 1u];
  char value[8];
  if (!graph_json_expect(j, '{')) {
    return false;
  }
  for (size_t i = 0u; i <= j->len; i++) {
    int more = graph_json_next(j, '}', i == 0u);
    if (more <= 0) {
      return more == 0;
    }
    if (!graph_json_string(j, key, sizeof(key), NULL, "attrs key") ||
        !graph_json_expect(j, ':')) {
      return false;
    }
    if (graph_json_peek(j) != '"') {
      return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "attrs value is not a string: ", key);
    }
    if (graph_same(key, "func_name")) {
      if (!graph_json_string(j, n->func, sizeof(n->func), NULL, "func_name")) {
        return false;
      }
    } else if (graph_same(key, "num_inputs") || graph_same(key, "num_outputs")) {
      int64_t v;
      if (!graph_json_string(j, value, sizeof(value), NULL, key)) {
        return false;
      }
      v = decimal_value(value);
      if ((v < 0) || (v > (int64_t)UTVM_GRAPH_MAX_OP_ARGS)) {
        return graph_json_fail(j, UTVM_ERR_GRAPH_LIMIT, key, " is not a number of arguments");
      }
      if (graph_same(key, "num_inputs")) {
        n->num_inputs = v;
      } else {
        n->num_outputs = v;
      }
    } else if (!graph_json_string(j, NULL, 0u, NULL, key)) {
      return false;
    } else {
      /* flatten_data and other string attributes: not used */
    }
  }
  return false;
}

static bool parse_node_inputs(graph_pass_t *p, graph_node_t *n) {
  graph_json_t *j = &p->j;
  utvm_graph_t *g = p->g;
  if (!graph_json_expect(j, '[')) {
    return false;
  }
  for (size_t i = 0u; i <= j->len; i++) {
    uint32_t entry = 0u;
    int more = graph_json_next(j, ']', i == 0u);
    if (more <= 0) {
      return more == 0;
    }
    if (n->inputs >= UTVM_GRAPH_MAX_OP_ARGS) {
      return graph_json_fail_n(j, UTVM_ERR_GRAPH_LIMIT, "more than ", UTVM_GRAPH_MAX_OP_ARGS,
                               " inputs");
    }
    if (!parse_entry_ref(p, &entry)) {
      return false;
    }
    if (p->fill) {
      if (p->args_used >= g->num_args_) {
        return internal_error(p);
      }
      g->args_[p->args_used] = entry;
    }
    p->args_used++;
    n->inputs++;
  }
  return false;
}

/* The members of a node object into n. */
static bool read_node(graph_pass_t *p, graph_node_t *n) {
  static const char *const kKeys[5] = {"op", "name", "inputs", "attrs", "attr"};
  graph_json_t *j = &p->j;
  char key[KEY_SIZE];
  if (!graph_json_expect(j, '{')) {
    return false;
  }
  for (size_t i = 0u; i <= j->len; i++) {
    uint32_t k = 0u;
    bool ok;
    int more = graph_json_next(j, '}', i == 0u);
    if (more <= 0) {
      return more == 0;
    }
    if (!graph_json_string(j, key, sizeof(key), NULL, "key") || !graph_json_expect(j, ':')) {
      return false;
    }
    while ((k < 5u) && !graph_same(key, kKeys[k])) {
      k++;
    }
    if (k == 5u) {
      return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "unknown key ", key);
    }
    k = (k == 4u) ? 3u : k;
    if (n->have[k]) {
      return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "duplicate key ", key);
    }
    n->have[k] = true;
    if (k == 0u) {
      ok = graph_json_string(j, n->op, sizeof(n->op), NULL, "op");
    } else if (k == 1u) {
      ok = graph_json_string(j, n->name, sizeof(n->name), &n->name_len, "name");
    } else if (k == 2u) {
      ok = parse_node_inputs(p, n);
    } else {
      ok = parse_node_attrs(p, n);
    }
    if (!ok) {
      return false;
    }
  }
  return false;
}

/* True if node is listed in arg_nodes (fill pass); names it there. */
static bool bind_input_name(graph_pass_t *p, uint32_t node, uint32_t offset) {
  utvm_graph_t *g = p->g;
  bool listed = false;
  for (uint32_t k = 0u; k < g->num_inputs; k++) {
    if (g->input_nodes_[k] == node) {
      g->input_names_[k] = offset;
      listed = true;
    }
  }
  return listed;
}

/* An input ("null") node. */
static bool finish_input_node(graph_pass_t *p, uint32_t node, const graph_node_t *n) {
  graph_json_t *j = &p->j;
  utvm_graph_t *g = p->g;
  if (n->inputs != 0u) {
    return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "input node with inputs", NULL);
  }
  if (p->fill) {
    if ((g->row_ptr_[node + 1u] - g->row_ptr_[node]) != 1u) {
      return graph_json_fail(j, UTVM_ERR_GRAPH_JSON,
                             "node_row_ptr does not give this input node one output", NULL);
    }
    if ((p->names_used + n->name_len + 1u) > g->names_size_) {
      return internal_error(p);
    }
    (void)memcpy(&g->names_[p->names_used], n->name, n->name_len + 1u);
    (void)bind_input_name(p, node, p->names_used);
  }
  p->names_used += (uint32_t)n->name_len + 1u;
  return true;
}

/* An operator ("tvm_op") node. */
static bool finish_op_node(graph_pass_t *p, uint32_t node, const graph_node_t *n,
                           uint32_t first_arg) {
  graph_json_t *j = &p->j;
  utvm_graph_t *g = p->g;
  if (n->func[0] == '\0') {
    return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "operator without attrs func_name", NULL);
  }
  if ((n->num_inputs < 0) || (n->num_outputs < 1)) {
    return graph_json_fail(j, UTVM_ERR_GRAPH_JSON,
                           "operator without attrs num_inputs and num_outputs (>= 1)", NULL);
  }
  if ((uint32_t)n->num_inputs != n->inputs) {
    return graph_json_fail_n(j, UTVM_ERR_GRAPH_JSON, "num_inputs does not match the ", n->inputs,
                             " inputs listed");
  }
  if ((n->inputs + (uint32_t)n->num_outputs) > UTVM_GRAPH_MAX_OP_ARGS) {
    return graph_json_fail_n(j, UTVM_ERR_GRAPH_LIMIT, "more than ", UTVM_GRAPH_MAX_OP_ARGS,
                             " arguments");
  }
  if (graph_same(n->func, "__nop") || graph_same(n->func, "__copy")) {
    return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "func_name not supported: ", n->func);
  }
  if (strncmp(n->func, KFUNC_PREFIX, KFUNC_PREFIX_LEN) != 0) {
    p->other_funcs = true;
  }
  if (p->fill) {
    TVMFunctionHandle func = NULL;
    uint32_t first = g->row_ptr_[node];
    if ((g->row_ptr_[node + 1u] - first) != (uint32_t)n->num_outputs) {
      return graph_json_fail(j, UTVM_ERR_GRAPH_JSON,
                             "num_outputs differs from what node_row_ptr gives", NULL);
    }
    if (bind_input_name(p, node, GRAPH_NO_INDEX)) {
      return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "operator listed in arg_nodes", NULL);
    }
    if ((p->ops_used >= g->num_ops) ||
        ((p->args_used + (uint32_t)n->num_outputs) > g->num_args_)) {
      return internal_error(p);
    }
    for (uint32_t k = 0u; k < (uint32_t)n->num_outputs; k++) {
      g->args_[p->args_used + k] = first + k;
    }
    if (p->lookup(p->lookup_ctx, n->func, &func) != 0) {
      return graph_json_fail(j, UTVM_ERR_GRAPH_FUNCTION, "function not in the module: ",
                             n->func);
    }
    g->ops_[p->ops_used].func = func;
    g->ops_[p->ops_used].node = node;
    g->ops_[p->ops_used].first_arg = first_arg;
    g->ops_[p->ops_used].num_inputs = (uint16_t)n->inputs;
    g->ops_[p->ops_used].num_outputs = (uint16_t)n->num_outputs;
    g->ops_[p->ops_used].plan_kind =
        (uint8_t)func_plan_kind(n->func, n->inputs, (uint32_t)n->num_outputs);
  }
  p->args_used += (uint32_t)n->num_outputs;
  p->ops_used++;
  return true;
}

static bool parse_nodes(graph_pass_t *p) {
  graph_json_t *j = &p->j;
  utvm_graph_t *g = p->g;
  uint32_t count = 0u;
  graph_node_t n;
  j->pos = p->top[TOP_NODES];
  j->section = "nodes";
  if (!graph_json_expect(j, '[')) {
    return false;
  }
  for (size_t i = 0u; i <= j->len; i++) {
    uint32_t first_arg = p->args_used;
    bool ok;
    int more = graph_json_next(j, ']', i == 0u);
    if (more <= 0) {
      if (more < 0) {
        return false;
      }
      break;
    }
    if (count >= g->num_nodes) {
      return graph_json_fail_n(j, UTVM_ERR_GRAPH_JSON, "more nodes than node_row_ptr gives (",
                               g->num_nodes, ")");
    }
    j->node = count;
    (void)memset(&n, 0, sizeof(n));
    n.num_inputs = -1;
    n.num_outputs = -1;
    if (!read_node(p, &n)) {
      return false;
    }
    if (!n.have[0] || !n.have[1] || !n.have[2]) {
      return graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "missing key ",
                             !n.have[0] ? "op" : (!n.have[1] ? "name" : "inputs"));
    }
    if (graph_same(n.op, "null")) {
      ok = finish_input_node(p, count, &n);
    } else if (graph_same(n.op, "tvm_op")) {
      ok = finish_op_node(p, count, &n, first_arg);
    } else {
      ok = graph_json_fail(j, UTVM_ERR_GRAPH_JSON, "op is neither null nor tvm_op: ", n.op);
    }
    if (!ok) {
      return false;
    }
    j->node = GRAPH_NO_INDEX;
    count++;
  }
  if (count != g->num_nodes) {
    return graph_json_fail_n(j, UTVM_ERR_GRAPH_JSON, "", count,
                             " nodes but node_row_ptr gives another number");
  }
  return true;
}

/* ---- Passes and memory -------------------------------------------------------------------------- */

static void pass_init(graph_pass_t *p, utvm_graph_t *g, const char *json, size_t len, bool fill) {
  (void)memset(p, 0, sizeof(*p));
  p->j.s = json;
  p->j.len = len;
  p->j.g = g;
  p->j.node = GRAPH_NO_INDEX;
  p->j.err = UTVM_OK;
  p->g = g;
  p->fill = fill;
}

/* Reads the whole graph: counts (fill == false) or tables (fill == true). */
static utvm_err_t run_pass(graph_pass_t *p) {
  utvm_graph_t *g = p->g;
  bool ok = parse_top(p) && parse_row_ptr(p) && parse_arg_nodes(p) && parse_heads(p) &&
            parse_attrs(p) && parse_nodes(p);
  if (ok && !p->fill) {
    g->num_ops = p->ops_used;
    g->num_args_ = p->args_used;
    g->num_shape_dims_ = p->dims_used;
    g->names_size_ = p->names_used;
    g->storage_alignment = p->other_funcs ? UTVM_GRAPH_STORAGE_ALIGNMENT
                                          : UTVM_GRAPH_KFUNC_ALIGNMENT;
  }
  for (uint32_t k = 0u; ok && p->fill && (k < g->num_inputs); k++) {
    if (g->input_names_[k] == GRAPH_NO_INDEX) {
      p->j.section = "arg_nodes";
      ok = graph_json_fail_n(&p->j, UTVM_ERR_GRAPH_JSON, "input ", k, " is no input node");
    }
  }
  return ok ? UTVM_OK : p->j.err;
}

static size_t round8(size_t n) { return (n + 7u) & ~(size_t)7u; }

/* Bytes of the tables of a counted graph. */
static size_t graph_tables_size(const utvm_graph_t *g) {
  return round8(((size_t)g->num_nodes + 1u) * 4u) + round8((size_t)g->num_ops * sizeof(utvm_graph_op_t)) +
         round8((size_t)g->num_args_ * 4u) + (2u * round8((size_t)g->num_inputs * 4u)) +
         round8((size_t)g->num_inputs) +
         round8((size_t)g->num_outputs * 4u) + round8((size_t)g->num_entries * sizeof(DLTensor)) +
         ((size_t)g->num_shape_dims_ * 8u) + round8((size_t)g->num_entries * 4u) +
         round8((size_t)g->num_entries * 4u) + round8(g->names_size_);
}

/* n rounded up to the graph's storage alignment (a power of two). */
static size_t round_storage(const utvm_graph_t *g, size_t n) {
  return (n + ((size_t)g->storage_alignment - 1u)) & ~(size_t)(g->storage_alignment - 1u);
}

/* Reads the next entry of the three attrs lists: its storage id and bytes. */
static bool next_entry(graph_json_t *c, bool first, uint32_t *sid, uint32_t *bytes) {
  DLDataType dtype;
  int64_t dims[UTVM_GRAPH_MAX_NDIM];
  uint32_t ndim = 0u;
  int64_t v = 0;
  if ((graph_json_next(&c[0], ']', first) <= 0) || (graph_json_next(&c[1], ']', first) <= 0) ||
      (graph_json_next(&c[2], ']', first) <= 0) || !read_dltype(&c[0], &dtype) ||
      !graph_json_int(&c[1], 0, (int64_t)UTVM_GRAPH_MAX_STORAGE - 1, &v, "storage id") ||
      !read_shape(&c[2], dims, &ndim)) {
    return false;
  }
  *sid = (uint32_t)v;
  if (!graph_tensor_bytes(dtype, dims, ndim, bytes)) {
    return graph_json_fail_n(&c[2], UTVM_ERR_GRAPH_LIMIT, "entry larger than ",
                             UTVM_GRAPH_MAX_TENSOR_BYTES, " bytes");
  }
  return true;
}

/* Bytes of the planner's working memory in the storage block: its buffers, its steps (8-byte
 * aligned for their pointers), its workspace; SIZE_MAX if that overflows. */
static size_t plan_work_size(const utvm_graph_t *g) {
  size_t ws = utvm_plan_workspace_size(g->num_entries, g->num_ops);
  if (ws == SIZE_MAX) {
    return SIZE_MAX;
  }
  return round8((size_t)g->num_entries * sizeof(utvm_plan_buffer_t)) +
         round8((size_t)g->num_ops * sizeof(utvm_plan_step_t)) + ws;
}

/* Every entry's bytes, each rounded up to the storage alignment, added up (one scan of the
 * attrs lists, no memory needed): what the plan can need at most. */
static utvm_err_t storage_bound(graph_pass_t *p, uint64_t *total) {
  utvm_graph_t *g = p->g;
  uint64_t sum = 0u;
  graph_json_t c[3];
  c[0] = p->j;
  c[1] = p->j;
  c[2] = p->j;
  c[0].pos = p->dltype_pos;
  c[1].pos = p->sid_pos;
  c[2].pos = p->shape_pos;
  if (!graph_json_expect(&c[0], '[') || !graph_json_expect(&c[1], '[') ||
      !graph_json_expect(&c[2], '[')) {
    return UTVM_ERR_GRAPH_JSON;
  }
  for (uint32_t e = 0u; e < g->num_entries; e++) {
    uint32_t sid = 0u;
    uint32_t bytes = 0u;
    if (!next_entry(c, e == 0u, &sid, &bytes)) {
      p->j.err = (c[2].err != UTVM_OK) ? c[2].err : UTVM_ERR_GRAPH_JSON;
      return p->j.err;
    }
    sum += (uint64_t)round_storage(g, bytes); /* at most 4096 x 2^31: no overflow */
  }
  *total = sum;
  return UTVM_OK;
}

/* Largest planned storage block: the planner's offsets are 32-bit (utvm/model.h). */
#define GRAPH_MAX_PLAN_BYTES 0xFFFFFFF0u

utvm_err_t utvm_graph_memory_size(utvm_graph_t *g, const char *json, size_t json_len) {
  graph_pass_t p;
  uint64_t bound = 0u;
  utvm_err_t err;
  if (g == NULL) {
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  (void)memset(g, 0, sizeof(*g));
  if (json == NULL) {
    graph_text_set(g, "graph JSON: NULL");
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  if (json_len > UTVM_GRAPH_MAX_JSON_SIZE) {
    graph_text_set(g, "graph JSON: longer than ");
    graph_text_u64(g, UTVM_GRAPH_MAX_JSON_SIZE);
    graph_text_str(g, " bytes");
    return UTVM_ERR_GRAPH_LIMIT;
  }
  pass_init(&p, g, json, json_len, false);
  err = run_pass(&p);
  if (err == UTVM_OK) {
    p.j.section = "attrs";
    err = storage_bound(&p, &bound);
  }
  if (err == UTVM_OK) {
    const uint64_t fixed = (uint64_t)graph_tables_size(g) + (UTVM_GRAPH_STORAGE_ALIGNMENT - 1u);
    const size_t work = plan_work_size(g);
    const uint64_t block = (bound > (uint64_t)work) ? bound : (uint64_t)work;
    if ((work == SIZE_MAX) || ((fixed + block) > (uint64_t)(SIZE_MAX / 2u))) {
      graph_text_set(g, "graph: memory needed does not fit a size_t");
      return UTVM_ERR_GRAPH_LIMIT;
    }
    g->plan_memory_size = (size_t)(fixed + (uint64_t)work);
    g->memory_size = (size_t)(fixed + block);
  }
  return err;
}

/* Places the tables at the start of memory (8-byte aligned by the caller). */
static uint8_t *place_tables(utvm_graph_t *g, uint8_t *memory) {
  uint8_t *at = memory;
  g->row_ptr_ = (uint32_t *)(void *)at;
  at = &at[round8(((size_t)g->num_nodes + 1u) * 4u)];
  g->ops_ = (utvm_graph_op_t *)(void *)at;
  at = &at[round8((size_t)g->num_ops * sizeof(utvm_graph_op_t))];
  g->args_ = (uint32_t *)(void *)at;
  at = &at[round8((size_t)g->num_args_ * 4u)];
  g->input_nodes_ = (uint32_t *)(void *)at;
  at = &at[round8((size_t)g->num_inputs * 4u)];
  g->input_names_ = (uint32_t *)(void *)at;
  at = &at[round8((size_t)g->num_inputs * 4u)];
  g->input_params_ = at;
  (void)memset(g->input_params_, 0, g->num_inputs);
  at = &at[round8((size_t)g->num_inputs)];
  g->output_entries_ = (uint32_t *)(void *)at;
  at = &at[round8((size_t)g->num_outputs * 4u)];
  g->entries_ = (DLTensor *)(void *)at;
  at = &at[round8((size_t)g->num_entries * sizeof(DLTensor))];
  g->shapes_ = (int64_t *)(void *)at;
  at = &at[(size_t)g->num_shape_dims_ * 8u];
  g->entry_sids_ = (uint32_t *)(void *)at;
  at = &at[round8((size_t)g->num_entries * 4u)];
  g->offsets_ = (uint32_t *)(void *)at;
  at = &at[round8((size_t)g->num_entries * 4u)];
  g->names_ = (char *)(void *)at;
  return &at[round8(g->names_size_)];
}

/* Bytes of one element of t (lanes included). */
static uint32_t entry_element_size(const DLTensor *t) {
  return (((uint32_t)t->dtype.bits * (uint32_t)t->dtype.lanes) + 7u) / 8u;
}

/* The planner's input, in the storage block (see graph.h, Memory): one buffer per entry (its
 * bytes rounded up to the storage alignment; the input nodes' entries apart, the heads
 * outputs), one step per operator in node order (reads and writes point into args_). */
static void plan_problem(const utvm_graph_t *g, utvm_plan_buffer_t *buffers,
                         utvm_plan_step_t *steps) {
  for (uint32_t e = 0u; e < g->num_entries; e++) {
    const DLTensor *t = &g->entries_[e];
    uint32_t bytes = 0u;
    (void)graph_tensor_bytes(t->dtype, t->shape, (uint32_t)t->ndim, &bytes); /* checked */
    buffers[e].size = (uint32_t)round_storage(g, bytes);
    buffers[e].flags = UTVM_PLAN_APART; /* until an operator writes it */
  }
  for (uint32_t k = 0u; k < g->num_ops; k++) {
    const utvm_graph_op_t *op = &g->ops_[k];
    const uint32_t *args = &g->args_[op->first_arg];
    steps[k].reads = args;
    steps[k].n_reads = op->num_inputs;
    steps[k].writes = &args[op->num_inputs];
    steps[k].n_writes = op->num_outputs;
    /* kernel functions take their scratch from the workspace during their call, in place or
     * not (utvm_op_kind_info_t.inplace_scratch): none in the block */
    steps[k].scratch = 0u;
    steps[k].inplace_scratch = 0u;
    steps[k].kind = (utvm_plan_step_kind_t)op->plan_kind;
    if (steps[k].kind == UTVM_PLAN_STEP_INPLACE) {
      const uint32_t size = entry_element_size(&g->entries_[args[op->num_inputs]]);
      bool same = true;
      for (uint32_t i = 0u; (i + 1u) < op->num_inputs; i++) {
        same = same && (entry_element_size(&g->entries_[args[i]]) == size);
      }
      steps[k].kind = same ? UTVM_PLAN_STEP_INPLACE : UTVM_PLAN_STEP_DEFAULT;
    }
    for (uint32_t w = 0u; w < op->num_outputs; w++) {
      buffers[args[op->num_inputs + w]].flags = 0u;
    }
  }
  /* INPLACE_GROW puts the output over the first planned read, and the kernel runs in place only
   * over input 0: every other input must be an input node's entry (apart: written by no node) */
  for (uint32_t k = 0u; k < g->num_ops; k++) {
    const utvm_graph_op_t *op = &g->ops_[k];
    const uint32_t *args = &g->args_[op->first_arg];
    bool apart = true;
    for (uint32_t i = 1u; (i < op->num_inputs) && (steps[k].kind == UTVM_PLAN_STEP_INPLACE_GROW);
         i++) {
      apart = apart && ((buffers[args[i]].flags & UTVM_PLAN_APART) != 0u);
    }
    steps[k].kind = apart ? steps[k].kind : UTVM_PLAN_STEP_DEFAULT;
  }
  for (uint32_t h = 0u; h < g->num_outputs; h++) {
    utvm_plan_buffer_t *b = &buffers[g->output_entries_[h]];
    if (b->flags == 0u) {
      b->flags = UTVM_PLAN_OUTPUT;
    }
  }
}

/* Plans the storage after the tables and points the entries into it. The planner's working
 * memory is the start of the storage block; the plan's offsets go to g->offsets_. */
static utvm_err_t place_storage(utvm_graph_t *g, uint8_t *tables_end, const uint8_t *end,
                                size_t memory_size) {
  uintptr_t base = ((uintptr_t)tables_end + (UTVM_GRAPH_STORAGE_ALIGNMENT - 1u)) &
                   ~(uintptr_t)(UTVM_GRAPH_STORAGE_ALIGNMENT - 1u);
  uint8_t *storage = &tables_end[base - (uintptr_t)tables_end];
  const size_t work = plan_work_size(g); /* checked by memory_size */
  const size_t fixed = graph_tables_size(g) + (UTVM_GRAPH_STORAGE_ALIGNMENT - 1u);
  utvm_plan_buffer_t *buffers = (utvm_plan_buffer_t *)(void *)storage;
  uint8_t *at = &storage[round8((size_t)g->num_entries * sizeof(utvm_plan_buffer_t))];
  utvm_plan_step_t *steps = (utvm_plan_step_t *)(void *)at;
  uint8_t *ws = &at[round8((size_t)g->num_ops * sizeof(utvm_plan_step_t))];
  utvm_plan_t plan;
  utvm_err_t err;
  if ((storage > end) || ((size_t)(end - storage) < work)) {
    graph_text_set(g, "graph: memory too small to plan");
    return UTVM_ERR_GRAPH_MEMORY;
  }
  plan_problem(g, buffers, steps);
  (void)memset(&plan, 0, sizeof(plan));
  plan.offsets = g->offsets_;
  plan.scratch_offsets = NULL;
  err = utvm_plan(buffers, g->num_entries, steps, g->num_ops, ws,
                  utvm_plan_workspace_size(g->num_entries, g->num_ops), &plan);
  if ((err == UTVM_ERR_MODEL_PLAN_OVERFLOW) ||
      ((err == UTVM_OK) && (plan.arena_size > GRAPH_MAX_PLAN_BYTES))) {
    graph_text_set(g, "graph: planned storage of ");
    graph_text_u64(g, GRAPH_MAX_PLAN_BYTES);
    graph_text_str(g, " bytes or more");
    return UTVM_ERR_GRAPH_LIMIT;
  }
  if (err != UTVM_OK) {
    graph_text_set(g, "graph: planner: ");
    graph_text_str(g, utvm_strerror(err));
    return UTVM_ERR_GRAPH_LIMIT;
  }
  g->arena_size = plan.arena_size;
  g->io_offset = plan.io_offset;
  g->memory_size = fixed + ((plan.arena_size > work) ? plan.arena_size : work);
  if (memory_size < g->memory_size) {
    graph_text_set(g, "graph: memory of ");
    graph_text_u64(g, g->memory_size);
    graph_text_str(g, " bytes needed");
    return UTVM_ERR_GRAPH_MEMORY;
  }
  for (uint32_t e = 0u; e < g->num_entries; e++) {
    DLTensor *t = &g->entries_[e];
    if (g->offsets_[e] == UTVM_PLAN_NO_OFFSET) { /* every entry is written or apart */
      graph_text_set(g, "graph: entry not planned: ");
      graph_text_u64(g, e);
      return UTVM_ERR_GRAPH_LIMIT;
    }
    t->data = &storage[g->offsets_[e]];
    t->device.device_type = kDLCPU;
    t->device.device_id = 0;
    t->strides = NULL;
    t->byte_offset = 0u;
  }
  return UTVM_OK;
}

utvm_err_t utvm_graph_init_lookup(utvm_graph_t *g, const char *json, size_t json_len,
                                  utvm_graph_lookup_fn lookup, void *ctx, void *memory,
                                  size_t memory_size) {
  graph_pass_t p;
  if (lookup == NULL) {
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  utvm_err_t err = utvm_graph_memory_size(g, json, json_len);
  if (err != UTVM_OK) {
    return err;
  }
  if ((memory == NULL) || (memory_size < g->plan_memory_size)) {
    graph_text_set(g, "graph: memory of ");
    graph_text_u64(g, g->memory_size);
    graph_text_str(g, " bytes needed");
    return UTVM_ERR_GRAPH_MEMORY;
  }
  uint8_t *bytes = (uint8_t *)memory;
  uint8_t *tables = &bytes[(8u - ((uintptr_t)bytes & 7u)) & 7u];
  uint8_t *tables_end = place_tables(g, tables);
  pass_init(&p, g, json, json_len, true);
  p.lookup = lookup;
  p.lookup_ctx = ctx;
  err = run_pass(&p);
  if (err == UTVM_OK) {
    err = place_storage(g, tables_end, &bytes[memory_size], memory_size);
  }
  if (err == UTVM_OK) {
    g->error[0] = '\0';
    g->ready_ = true;
  }
  return err;
}

/* ---- Access and run ---------------------------------------------------------------------------- */

int32_t utvm_graph_input_index(const utvm_graph_t *g, const char *name) {
  if ((g == NULL) || !g->ready_ || (name == NULL)) {
    return -1;
  }
  for (uint32_t k = 0u; k < g->num_inputs; k++) {
    if (graph_same(&g->names_[g->input_names_[k]], name)) {
      return (int32_t)k;
    }
  }
  return -1;
}

const char *utvm_graph_input_name(const utvm_graph_t *g, uint32_t index) {
  if ((g == NULL) || !g->ready_ || (index >= g->num_inputs)) {
    return NULL;
  }
  return &g->names_[g->input_names_[index]];
}

static utvm_err_t bad_index(utvm_graph_t *g, const char *what, uint32_t index) {
  graph_text_set(g, "graph: no ");
  graph_text_str(g, what);
  graph_text_str(g, " ");
  graph_text_u64(g, index);
  return UTVM_ERR_GRAPH_ARGUMENT;
}

utvm_err_t utvm_graph_input(utvm_graph_t *g, uint32_t index, DLTensor **out) {
  if ((g == NULL) || (out == NULL)) {
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  if (!g->ready_ || (index >= g->num_inputs)) {
    return bad_index(g, "input", index);
  }
  *out = &g->entries_[g->row_ptr_[g->input_nodes_[index]]];
  return UTVM_OK;
}

utvm_err_t utvm_graph_output(utvm_graph_t *g, uint32_t index, DLTensor **out) {
  if ((g == NULL) || (out == NULL)) {
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  if (!g->ready_ || (index >= g->num_outputs)) {
    return bad_index(g, "output", index);
  }
  *out = &g->entries_[g->output_entries_[index]];
  return UTVM_OK;
}

/* Most dimensions of a tensor given to set_input. */
#define SET_INPUT_MAX_NDIM 32u

utvm_err_t utvm_graph_set_input(utvm_graph_t *g, uint32_t index, const DLTensor *src) {
  DLTensor *dst = NULL;
  uint32_t dst_bytes = 0u;
  uint32_t src_bytes = 0u;
  utvm_err_t err = utvm_graph_input(g, index, &dst);
  if (err != UTVM_OK) {
    return err;
  }
  if ((src == NULL) || (src->ndim < 0) || ((uint32_t)src->ndim > SET_INPUT_MAX_NDIM) ||
      ((src->ndim > 0) && (src->shape == NULL))) {
    graph_text_set(g, "graph: set_input: bad tensor");
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  if ((src->dtype.code != dst->dtype.code) || (src->dtype.bits != dst->dtype.bits) ||
      (src->dtype.lanes != dst->dtype.lanes)) {
    graph_text_set(g, "graph: set_input: dtype differs from input ");
    graph_text_u64(g, index);
    return UTVM_ERR_GRAPH_TENSOR;
  }
  (void)graph_tensor_bytes(dst->dtype, dst->shape, (uint32_t)dst->ndim, &dst_bytes);
  if (!graph_tensor_bytes(src->dtype, src->shape, (uint32_t)src->ndim, &src_bytes) ||
      (src_bytes != dst_bytes)) {
    graph_text_set(g, "graph: set_input: tensor size differs from input ");
    graph_text_u64(g, index);
    graph_text_str(g, " (");
    graph_text_u64(g, dst_bytes);
    graph_text_str(g, " bytes)");
    return UTVM_ERR_GRAPH_TENSOR;
  }
  if ((src->data == NULL) && (src_bytes > 0u)) {
    graph_text_set(g, "graph: set_input: NULL data");
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  if (src_bytes > 0u) {
    (void)memmove(dst->data, &((const uint8_t *)src->data)[src->byte_offset], src_bytes);
  }
  g->error[0] = '\0';
  return UTVM_OK;
}

/* ---- Inspection (code generators) -------------------------------------------------------------- */

utvm_err_t utvm_graph_op(const utvm_graph_t *g, uint32_t k, utvm_graph_op_info_t *op) {
  if ((g == NULL) || !g->ready_ || (k >= g->num_ops) || (op == NULL)) {
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  const utvm_graph_op_t *o = &g->ops_[k];
  op->func = o->func;
  op->node = o->node;
  op->num_inputs = o->num_inputs;
  op->num_outputs = o->num_outputs;
  op->entries = &g->args_[o->first_arg];
  return UTVM_OK;
}

utvm_err_t utvm_graph_entry(const utvm_graph_t *g, uint32_t entry, const DLTensor **t,
                            uint32_t *storage_id) {
  if ((g == NULL) || !g->ready_ || (entry >= g->num_entries) || (t == NULL) ||
      (storage_id == NULL)) {
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  *t = &g->entries_[entry];
  *storage_id = g->entry_sids_[entry];
  return UTVM_OK;
}

utvm_err_t utvm_graph_input_entry(const utvm_graph_t *g, uint32_t index, uint32_t *entry) {
  if ((g == NULL) || !g->ready_ || (index >= g->num_inputs) || (entry == NULL)) {
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  *entry = g->row_ptr_[g->input_nodes_[index]];
  return UTVM_OK;
}

utvm_err_t utvm_graph_output_entry(const utvm_graph_t *g, uint32_t index, uint32_t *entry) {
  if ((g == NULL) || !g->ready_ || (index >= g->num_outputs) || (entry == NULL)) {
    return UTVM_ERR_GRAPH_ARGUMENT;
  }
  *entry = g->output_entries_[index];
  return UTVM_OK;
}
