/* utvm run/time MODEL.tflite on a device: the model compiled for the generic kernel functions
 * (utvm/host_compile.h), then run by the device's graph executor (tvm.graph_executor.create) or
 * walked by the host (--host-driven: one call per operator); or, with --executor aot, the
 * firmware's own AOT-compiled model run by tvm.aot_executor.create. */
#define _DEFAULT_SOURCE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* Tensor allocations on a utvm device are rounded to pages of at least this many bytes. */
#define REMOTE_PAGE_BYTES 64u
/* A graph JSON goes as a Str argument when the request stays this far below the device's
 * packet limit; otherwise it is uploaded as a uint8 tensor first. */
#define REMOTE_REQUEST_OVERHEAD 128u

typedef struct {
  utvm_host_t *host;
  const cli_remote_options_t *ro;
  const utvm_compiled_graph_t *g;
  cli_remote_result_t *res;
  uint64_t syslib;
  uint64_t module;          /* the executor module, 0 when none */
  uint64_t get_input;       /* its functions, 0 when not looked up */
  uint64_t get_output;
  uint64_t *storage;        /* host-driven: device address per storage id (0 = none) */
  uint64_t *op_functions;   /* host-driven: function handle per operator */
} remote_t;

static double remote_now(void) {
  struct timespec ts;
  (void)clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t round_page(uint64_t n) {
  return (n + (REMOTE_PAGE_BYTES - 1u)) & ~(uint64_t)(REMOTE_PAGE_BYTES - 1u);
}

static utvm_host_value_t str_value(const char *s);
static utvm_host_value_t int_value(int64_t i);

/* Records a host library failure: code and text in res; returns the exit code. */
static int remote_fail(remote_t *r, utvm_host_err_t rc, const char *what) {
  (void)snprintf(r->res->error, sizeof(r->res->error), "%s: %s", what,
                 utvm_host_last_error(r->host));
  r->res->host_error = rc;
  return cli_exit_code(rc);
}

static int remote_fail_text(remote_t *r, int code, const char *text) {
  (void)snprintf(r->res->error, sizeof(r->res->error), "%s", text);
  r->res->host_error = UTVM_HOST_OK;
  return code;
}

/* The wire header of graph entry eid at device address data. */
static void entry_tensor(const utvm_compiled_graph_t *g, uint32_t eid, uint64_t data,
                         utvm_host_tensor_t *t) {
  const utvm_compiled_entry_t *e = &g->entries[eid];
  (void)memset(t, 0, sizeof(*t));
  t->data = data;
  t->device.device_type = 1;
  t->device.device_id = 0;
  t->ndim = (int32_t)e->ndim;
  t->dtype.code = e->dtype.code;
  t->dtype.bits = e->dtype.bits;
  t->dtype.lanes = e->dtype.lanes;
  for (uint32_t d = 0u; (d < e->ndim) && (d < UTVM_COMPILED_MAX_NDIM); d++) {
    t->shape[d] = e->shape[d];
  }
}

/* Device tensor memory the run needs, with every allocation rounded to a page. */
static uint64_t memory_needed(const remote_t *r) {
  const utvm_compiled_graph_t *g = r->g;
  uint64_t need = 0u;
  for (uint32_t s = 0u; s < g->n_storage; s++) {
    need += round_page(g->storage_bytes[s]);
  }
  if (!r->ro->host_driven) {
    need += round_page(g->json_len);
  }
  return need;
}

/* Refuses a model larger than the device's free tensor memory before anything is uploaded. */
static int check_memory(remote_t *r) {
  utvm_host_value_t v;
  const utvm_host_device_t cpu0 = {1, 0};
  r->res->device_bytes = memory_needed(r);
  utvm_host_err_t rc = utvm_host_dev_get_attr(r->host, cpu0, 15, &v);
  if ((rc == UTVM_HOST_ERR_DEVICE_EXCEPTION) || ((rc == UTVM_HOST_OK) && (v.type_code != 0))) {
    return -1; /* a device that does not tell: its own allocation errors will */
  }
  if (rc != UTVM_HOST_OK) {
    return remote_fail(r, rc, "reading the device's free memory");
  }
  r->res->device_free = (uint64_t)v.v.i;
  if ((v.v.i >= 0) && (r->res->device_bytes > (uint64_t)v.v.i)) {
    char text[512];
    (void)snprintf(text, sizeof(text),
                   "the model needs %llu bytes of device tensor memory (activations %llu, "
                   "parameters %llu, rounded to %u-byte pages), the device has %llu bytes free; "
                   "nothing was uploaded",
                   (unsigned long long)r->res->device_bytes,
                   (unsigned long long)r->g->activation_bytes,
                   (unsigned long long)r->g->param_bytes, REMOTE_PAGE_BYTES,
                   (unsigned long long)v.v.i);
    return remote_fail_text(r, CLI_EXIT_DEVICE_ERROR, text);
  }
  return -1;
}

/* Refuses a model that calls a kernel function the device's system library lacks (a firmware
 * of before that operator, or built without it: UTVM_KFUNCS) before anything is uploaded. */
static int check_functions(remote_t *r) {
  const utvm_compiled_graph_t *g = r->g;
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    bool seen = false;
    for (uint32_t j = 0u; (j < k) && !seen; j++) {
      seen = strcmp(g->ops[j].func_name, g->ops[k].func_name) == 0;
    }
    if (seen) {
      continue;
    }
    uint64_t f = 0u;
    utvm_host_err_t rc = utvm_host_module_get_function(r->host, r->syslib, g->ops[k].func_name, &f);
    if (rc == UTVM_HOST_ERR_NOT_FOUND) {
      char text[512];
      (void)snprintf(text, sizeof(text),
                     "the device has no kernel function %s (graph node %s): its firmware "
                     "predates this operator or was built without it (UTVM_KFUNCS); nothing was "
                     "uploaded",
                     g->ops[k].func_name, g->ops[k].name);
      return remote_fail_text(r, CLI_EXIT_DEVICE_ERROR, text);
    }
    if (rc == UTVM_HOST_OK) {
      rc = utvm_host_free_handle(r->host, f, UTVM_TC_FUNCTION);
    }
    if (rc != UTVM_HOST_OK) {
      return remote_fail(r, rc, "looking up the kernel functions");
    }
  }
  return -1;
}

/* Copies bytes between the host and the NDArray that get_input(name)/get_output(index)
 * returns; releases the NDArray. */
static utvm_host_err_t copy_ndarray(remote_t *r, uint64_t function, const utvm_host_value_t *key,
                                    void *data, uint64_t bytes, bool to_device) {
  utvm_host_value_t nd;
  utvm_host_err_t rc = utvm_host_call(r->host, function, key, 1u, &nd);
  if (rc != UTVM_HOST_OK) {
    return rc;
  }
  if (nd.type_code != UTVM_TC_NDARRAY) {
    return UTVM_HOST_ERR_PROTOCOL;
  }
  if (utvm_host_tensor_nbytes(&nd.v.tensor) != bytes) {
    (void)utvm_host_free_handle(r->host, nd.ndarray_handle, UTVM_TC_NDARRAY);
    return UTVM_HOST_ERR_PROTOCOL;
  }
  rc = to_device ? utvm_host_copy_to_device(r->host, &nd.v.tensor, data, (size_t)bytes)
                 : utvm_host_copy_from_device(r->host, &nd.v.tensor, data, (size_t)bytes);
  utvm_host_err_t rc_free = utvm_host_free_handle(r->host, nd.ndarray_handle, UTVM_TC_NDARRAY);
  return (rc != UTVM_HOST_OK) ? rc : rc_free;
}

/* tvm.graph_executor.create(json, system library, 1, 0): the JSON as a Str when it fits one
 * request, else uploaded as a uint8 tensor (a utvm extension). */
static int create_executor(remote_t *r) {
  const utvm_compiled_graph_t *g = r->g;
  uint64_t create = 0u;
  utvm_host_err_t rc = utvm_host_get_global(r->host, "tvm.graph_executor.create", &create);
  if (rc != UTVM_HOST_OK) {
    return remote_fail(r, rc, "looking up tvm.graph_executor.create");
  }
  if (create == 0u) {
    return remote_fail_text(r, CLI_EXIT_DEVICE_ERROR,
                            "the device has no graph executor (tvm.graph_executor.create); "
                            "use --host-driven");
  }
  /* The largest request the device takes: its GetCRTMaxPacketSize (copies may be larger on a
   * utvm device, requests are not). */
  uint64_t max_packet = 0u;
  uint64_t packet_size = 0u;
  rc = utvm_host_get_global(r->host, "tvm.rpc.server.GetCRTMaxPacketSize", &packet_size);
  if ((rc == UTVM_HOST_OK) && (packet_size != 0u)) {
    utvm_host_value_t size;
    rc = utvm_host_call_idempotent(r->host, packet_size, NULL, 0u, &size);
    max_packet = ((rc == UTVM_HOST_OK) && (size.type_code == UTVM_TC_INT) && (size.v.i > 0))
                     ? (uint64_t)size.v.i : 0u;
    (void)utvm_host_free_handle(r->host, packet_size, UTVM_TC_FUNCTION);
  }
  if (rc != UTVM_HOST_OK) {
    return remote_fail(r, rc, "reading the device's packet limit");
  }
  utvm_host_value_t args[4];
  (void)memset(args, 0, sizeof(args));
  uint64_t json_data = 0u;
  utvm_host_tensor_t json_tensor;
  (void)memset(&json_tensor, 0, sizeof(json_tensor));
  if ((max_packet == 0u) || (g->json_len + REMOTE_REQUEST_OVERHEAD <= max_packet)) {
    args[0].type_code = UTVM_TC_STR;
    args[0].v.bytes.data = (const uint8_t *)g->json;
    args[0].v.bytes.len = g->json_len;
  } else {
    json_tensor.device.device_type = 1;
    json_tensor.ndim = 1;
    json_tensor.dtype.code = 1u;
    json_tensor.dtype.bits = 8u;
    json_tensor.dtype.lanes = 1u;
    json_tensor.shape[0] = (int64_t)g->json_len;
    rc = utvm_host_dev_alloc_data_with_scope(r->host, &json_tensor, NULL, &json_data);
    if (rc == UTVM_HOST_OK) {
      json_tensor.data = json_data;
      rc = utvm_host_copy_to_device(r->host, &json_tensor, g->json, g->json_len);
    }
    if (rc != UTVM_HOST_OK) {
      if (json_data != 0u) {
        (void)utvm_host_dev_free_data(r->host, json_tensor.device, json_data);
      }
      return remote_fail(r, rc, "uploading the graph JSON");
    }
    args[0].type_code = UTVM_TC_DLTENSOR;
    args[0].v.tensor = json_tensor;
    r->res->upload_bytes += g->json_len;
  }
  args[1].type_code = UTVM_TC_MODULE;
  args[1].v.handle = r->syslib;
  args[2].type_code = UTVM_TC_INT;
  args[2].v.i = 1;
  args[3].type_code = UTVM_TC_INT;
  args[3].v.i = 0;
  utvm_host_value_t ret;
  rc = utvm_host_call(r->host, create, args, 4u, &ret);
  if (json_data != 0u) {
    utvm_host_err_t rc_free = utvm_host_dev_free_data(r->host, json_tensor.device, json_data);
    rc = (rc != UTVM_HOST_OK) ? rc : rc_free;
  }
  if (rc != UTVM_HOST_OK) {
    return remote_fail(r, rc, "tvm.graph_executor.create");
  }
  if (ret.type_code != UTVM_TC_MODULE) {
    return remote_fail_text(r, CLI_EXIT_DEVICE_ERROR,
                            "tvm.graph_executor.create did not return a module");
  }
  r->module = ret.v.handle;
  rc = utvm_host_module_get_function(r->host, r->module, "get_input", &r->get_input);
  if (rc == UTVM_HOST_OK) {
    rc = utvm_host_module_get_function(r->host, r->module, "get_output", &r->get_output);
  }
  return (rc == UTVM_HOST_OK) ? -1 : remote_fail(r, rc, "the graph executor's functions");
}

static utvm_host_value_t str_value(const char *s) {
  utvm_host_value_t v;
  (void)memset(&v, 0, sizeof(v));
  v.type_code = UTVM_TC_STR;
  v.v.bytes.data = (const uint8_t *)s;
  v.v.bytes.len = SIZE_MAX;
  return v;
}

static utvm_host_value_t int_value(int64_t i) {
  utvm_host_value_t v;
  (void)memset(&v, 0, sizeof(v));
  v.type_code = UTVM_TC_INT;
  v.v.i = i;
  return v;
}

/* tvm.aot_executor.create(system library, cpu(0), name): the firmware's own model. */
static int create_aot_executor(remote_t *r) {
  uint64_t create = 0u;
  utvm_host_err_t rc = utvm_host_get_global(r->host, "tvm.aot_executor.create", &create);
  if (rc != UTVM_HOST_OK) {
    return remote_fail(r, rc, "looking up tvm.aot_executor.create");
  }
  if (create == 0u) {
    return remote_fail_text(r, CLI_EXIT_DEVICE_ERROR,
                            "the device has no AOT executor (tvm.aot_executor.create)");
  }
  utvm_host_value_t args[3];
  (void)memset(args, 0, sizeof(args));
  args[0].type_code = UTVM_TC_MODULE;
  args[0].v.handle = r->syslib;
  args[1].type_code = UTVM_TC_DEVICE;
  args[1].v.device.device_type = 1;
  args[1].v.device.device_id = 0;
  args[2] = str_value(r->ro->aot);
  utvm_host_value_t ret;
  rc = utvm_host_call(r->host, create, args, 3u, &ret);
  if (rc != UTVM_HOST_OK) {
    return remote_fail(r, rc, "tvm.aot_executor.create");
  }
  if (ret.type_code != UTVM_TC_MODULE) {
    return remote_fail_text(r, CLI_EXIT_DEVICE_ERROR,
                            "tvm.aot_executor.create did not return a module");
  }
  r->module = ret.v.handle;
  rc = utvm_host_module_get_function(r->host, r->module, "get_input", &r->get_input);
  if (rc == UTVM_HOST_OK) {
    rc = utvm_host_module_get_function(r->host, r->module, "get_output", &r->get_output);
  }
  return (rc == UTVM_HOST_OK) ? -1 : remote_fail(r, rc, "the AOT executor's functions");
}

/* AOT executor: the inputs by index into the executor's input tensors. */
static int upload_aot(remote_t *r, const cli_remote_buffer_t *inputs) {
  for (uint32_t i = 0u; i < r->g->n_inputs; i++) {
    utvm_host_value_t key = int_value((int64_t)i);
    utvm_host_err_t rc =
        copy_ndarray(r, r->get_input, &key, (void *)(uintptr_t)inputs[i].data, inputs[i].bytes,
                     true);
    if (rc != UTVM_HOST_OK) {
      return remote_fail(r, rc, "setting a model input (does the firmware's AOT model match "
                                "this .tflite?)");
    }
  }
  return -1;
}

/* Graph executor: every parameter into its input's storage (get_input + copy), then the
 * model inputs. */
static int upload_graph(remote_t *r, const cli_remote_buffer_t *inputs) {
  const utvm_compiled_graph_t *g = r->g;
  double t0 = remote_now();
  for (uint32_t k = 0u; k < g->n_params; k++) {
    utvm_host_value_t key = str_value(g->params[k].name);
    utvm_host_err_t rc = copy_ndarray(r, r->get_input, &key, (void *)(uintptr_t)g->params[k].data,
                                      g->params[k].bytes, true);
    if (rc != UTVM_HOST_OK) {
      char what[256];
      (void)snprintf(what, sizeof(what), "uploading parameter %s", g->params[k].name);
      return remote_fail(r, rc, what);
    }
    r->res->upload_bytes += g->params[k].bytes;
  }
  r->res->upload_seconds = remote_now() - t0;
  for (uint32_t i = 0u; i < g->n_inputs; i++) {
    utvm_host_value_t key = str_value(g->input_names[i]);
    utvm_host_err_t rc =
        copy_ndarray(r, r->get_input, &key, (void *)(uintptr_t)inputs[i].data, inputs[i].bytes,
                     true);
    if (rc != UTVM_HOST_OK) {
      return remote_fail(r, rc, "setting a model input");
    }
  }
  return -1;
}

/* Host-driven: one device buffer per storage id, the parameters and inputs copied into
 * theirs, and each operator's function looked up. */
static int upload_host_driven(remote_t *r, const cli_remote_buffer_t *inputs) {
  const utvm_compiled_graph_t *g = r->g;
  const utvm_host_device_t cpu0 = {1, 0};
  const utvm_host_dtype_t u8 = {1u, 8u, 1u};
  for (uint32_t s = 0u; s < g->n_storage; s++) {
    utvm_host_err_t rc = utvm_host_dev_alloc_data(r->host, cpu0, (int64_t)g->storage_bytes[s],
                                                  REMOTE_PAGE_BYTES, u8, &r->storage[s]);
    if (rc != UTVM_HOST_OK) {
      return remote_fail(r, rc, "allocating device memory");
    }
  }
  double t0 = remote_now();
  for (uint32_t k = 0u; k < g->n_params; k++) {
    utvm_host_tensor_t t;
    uint32_t eid = g->params[k].entry;
    entry_tensor(g, eid, r->storage[g->entries[eid].storage_id], &t);
    utvm_host_err_t rc = utvm_host_copy_to_device(r->host, &t, g->params[k].data,
                                                  (size_t)g->params[k].bytes);
    if (rc != UTVM_HOST_OK) {
      return remote_fail(r, rc, "uploading a parameter");
    }
    r->res->upload_bytes += g->params[k].bytes;
  }
  r->res->upload_seconds = remote_now() - t0;
  for (uint32_t i = 0u; i < g->n_inputs; i++) {
    utvm_host_tensor_t t;
    uint32_t eid = g->input_entries[i];
    entry_tensor(g, eid, r->storage[g->entries[eid].storage_id], &t);
    utvm_host_err_t rc = utvm_host_copy_to_device(r->host, &t, inputs[i].data, inputs[i].bytes);
    if (rc != UTVM_HOST_OK) {
      return remote_fail(r, rc, "setting a model input");
    }
  }
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    utvm_host_err_t rc = utvm_host_module_get_function(r->host, r->syslib, g->ops[k].func_name,
                                                       &r->op_functions[k]);
    if (rc != UTVM_HOST_OK) {
      char what[256];
      (void)snprintf(what, sizeof(what), "operator %u: kernel function %s", k,
                     g->ops[k].func_name);
      return remote_fail(r, rc, what);
    }
  }
  return -1;
}

static void time_params(const remote_t *r, utvm_host_time_params_t *p) {
  utvm_host_time_params_default(p);
  p->number = (r->ro->number > 0) ? r->ro->number : 1;
  p->repeat = (r->ro->repeat > 0) ? r->ro->repeat : 1;
  p->min_repeat_ms = r->ro->min_repeat_ms;
}

/* Mean of the evaluator's results. */
static double mean_of(const double *seconds, size_t count) {
  double sum = 0.0;
  for (size_t i = 0u; i < count; i++) {
    sum += seconds[i];
  }
  return (count > 0u) ? sum / (double)count : 0.0;
}

/* The executor's run (graph or AOT), under the time evaluator (its first, untimed call leaves the
 * outputs in place). */
static int run_graph(remote_t *r) {
  utvm_host_time_params_t p;
  time_params(r, &p);
  double *seconds = NULL;
  size_t count = 0u;
  utvm_host_err_t rc = utvm_host_time(r->host, r->module, "run", &p, NULL, 0u, &seconds, &count);
  r->res->seconds = mean_of(seconds, count);
  free(seconds);
  return (rc == UTVM_HOST_OK) ? -1 : remote_fail(r, rc, "running the model");
}

/* Host-driven: each operator's kernel function with its entries as tensors, in order, under
 * the time evaluator when per-layer times are wanted. */
static int run_host_driven(remote_t *r) {
  const utvm_compiled_graph_t *g = r->g;
  utvm_host_value_t args[CLI_REMOTE_MAX_OP_ARGS];
  for (uint32_t k = 0u; k < g->n_ops; k++) {
    const utvm_compiled_op_t *op = &g->ops[k];
    uint32_t n = op->n_inputs + op->n_outputs;
    if (n > CLI_REMOTE_MAX_OP_ARGS) {
      return remote_fail_text(r, CLI_EXIT_DEVICE_ERROR, "an operator has too many operands");
    }
    for (uint32_t a = 0u; a < n; a++) {
      uint32_t eid = op->entries[a];
      (void)memset(&args[a], 0, sizeof(args[a]));
      args[a].type_code = UTVM_TC_DLTENSOR;
      entry_tensor(g, eid, r->storage[g->entries[eid].storage_id], &args[a].v.tensor);
    }
    utvm_host_err_t rc;
    if (r->ro->per_layer || r->ro->timed) {
      utvm_host_time_params_t p;
      time_params(r, &p);
      double *seconds = NULL;
      size_t count = 0u;
      rc = utvm_host_time(r->host, r->syslib, op->func_name, &p, args, n, &seconds, &count);
      r->res->layer_seconds[k] = mean_of(seconds, count);
      r->res->seconds += r->res->layer_seconds[k];
      free(seconds);
    } else {
      rc = utvm_host_call(r->host, r->op_functions[k], args, n, NULL);
    }
    if (rc != UTVM_HOST_OK) {
      char what[256];
      (void)snprintf(what, sizeof(what), "operator %u (%s)", k, op->func_name);
      return remote_fail(r, rc, what);
    }
  }
  return -1;
}

/* Whether parameter k is a variable tensor's starting value (SVDF and LSTM state, updated in
 * place by its operator). */
static bool is_state(const utvm_compiled_graph_t *g, uint32_t k) { return g->params[k].state; }

/* A model with state: the timed runs (the graph executor's always, host-driven ones when
 * timed) advanced it, so the starting state is uploaded again and the model run once more,
 * untimed, for the outputs of one invocation (as TFLM's). */
static int rerun_from_start_state(remote_t *r) {
  const utvm_compiled_graph_t *g = r->g;
  bool any = false;
  utvm_host_err_t rc = UTVM_HOST_OK;
  if (r->ro->host_driven && !r->ro->timed && !r->ro->per_layer) {
    return -1; /* each operator ran once */
  }
  for (uint32_t k = 0u; (rc == UTVM_HOST_OK) && (k < g->n_params); k++) {
    if (!is_state(g, k)) {
      continue;
    }
    any = true;
    if (r->ro->host_driven) {
      utvm_host_tensor_t t;
      uint32_t eid = g->params[k].entry;
      entry_tensor(g, eid, r->storage[g->entries[eid].storage_id], &t);
      rc = utvm_host_copy_to_device(r->host, &t, g->params[k].data, (size_t)g->params[k].bytes);
    } else {
      utvm_host_value_t key = str_value(g->params[k].name);
      rc = copy_ndarray(r, r->get_input, &key, (void *)(uintptr_t)g->params[k].data,
                        g->params[k].bytes, true);
    }
  }
  if (rc != UTVM_HOST_OK) {
    return remote_fail(r, rc, "resetting the model's state");
  }
  if (!any) {
    return -1;
  }
  if (r->ro->host_driven) {
    cli_remote_options_t once = *r->ro;
    once.timed = false;
    once.per_layer = false;
    const cli_remote_options_t *saved = r->ro;
    r->ro = &once;
    const int code = run_host_driven(r);
    r->ro = saved;
    return code;
  }
  uint64_t run = 0u;
  rc = utvm_host_module_get_function(r->host, r->module, "run", &run);
  if (rc == UTVM_HOST_OK) {
    rc = utvm_host_call(r->host, run, NULL, 0u, NULL);
    const utvm_host_err_t freed = utvm_host_free_handle(r->host, run, UTVM_TC_FUNCTION);
    rc = (rc != UTVM_HOST_OK) ? rc : freed;
  }
  return (rc == UTVM_HOST_OK) ? -1 : remote_fail(r, rc, "running the model from its start state");
}

static int download_outputs(remote_t *r, cli_remote_buffer_t *outputs) {
  const utvm_compiled_graph_t *g = r->g;
  for (uint32_t i = 0u; i < g->n_outputs; i++) {
    utvm_host_err_t rc;
    if (r->ro->host_driven && (r->ro->aot == NULL)) {
      utvm_host_tensor_t t;
      uint32_t eid = g->output_entries[i];
      entry_tensor(g, eid, r->storage[g->entries[eid].storage_id], &t);
      rc = utvm_host_copy_from_device(r->host, &t, outputs[i].data, outputs[i].bytes);
    } else {
      utvm_host_value_t key = int_value((int64_t)i);
      rc = copy_ndarray(r, r->get_output, &key, outputs[i].data, outputs[i].bytes, false);
    }
    if (rc != UTVM_HOST_OK) {
      return remote_fail(r, rc, "reading a model output");
    }
  }
  return -1;
}

/* Frees everything the run created on the device; the first failure is kept. */
static int release(remote_t *r, int code) {
  const utvm_host_device_t cpu0 = {1, 0};
  utvm_host_err_t rc = UTVM_HOST_OK;
  utvm_host_err_t one;
  for (uint32_t k = 0u; (r->op_functions != NULL) && (k < r->g->n_ops); k++) {
    if (r->op_functions[k] != 0u) {
      one = utvm_host_free_handle(r->host, r->op_functions[k], UTVM_TC_FUNCTION);
      rc = (rc != UTVM_HOST_OK) ? rc : one;
    }
  }
  for (uint32_t s = 0u; (r->storage != NULL) && (s < r->g->n_storage); s++) {
    if (r->storage[s] != 0u) {
      one = utvm_host_dev_free_data(r->host, cpu0, r->storage[s]);
      rc = (rc != UTVM_HOST_OK) ? rc : one;
    }
  }
  const uint64_t functions[2] = {r->get_input, r->get_output};
  for (size_t k = 0u; k < 2u; k++) {
    if (functions[k] != 0u) {
      one = utvm_host_free_handle(r->host, functions[k], UTVM_TC_FUNCTION);
      rc = (rc != UTVM_HOST_OK) ? rc : one;
    }
  }
  if (r->module != 0u) {
    one = utvm_host_free_handle(r->host, r->module, UTVM_TC_MODULE);
    rc = (rc != UTVM_HOST_OK) ? rc : one;
  }
  free(r->storage);
  free(r->op_functions);
  if ((code < 0) && (rc != UTVM_HOST_OK)) {
    code = remote_fail(r, rc, "releasing device memory");
  }
  return code;
}

int cli_remote_run(utvm_host_t *host, const cli_remote_options_t *ro, const utvm_compiled_graph_t *g,
                   const cli_remote_buffer_t *inputs, cli_remote_buffer_t *outputs,
                   cli_remote_result_t *res) {
  remote_t r;
  (void)memset(&r, 0, sizeof(r));
  r.host = host;
  r.ro = ro;
  r.g = g;
  r.res = res;
  res->layer_seconds = (double *)calloc((size_t)g->n_ops + 1u, sizeof(double));
  if (ro->host_driven && (ro->aot == NULL)) {
    r.storage = (uint64_t *)calloc((size_t)g->n_storage + 1u, sizeof(uint64_t));
    r.op_functions = (uint64_t *)calloc((size_t)g->n_ops + 1u, sizeof(uint64_t));
  }
  if ((res->layer_seconds == NULL) ||
      (ro->host_driven && (ro->aot == NULL) &&
       ((r.storage == NULL) || (r.op_functions == NULL)))) {
    return release(&r, remote_fail_text(&r, CLI_EXIT_USAGE, "out of host memory"));
  }
  utvm_host_err_t rc = utvm_host_system_lib(host, &r.syslib);
  if (rc != UTVM_HOST_OK) {
    return release(&r, remote_fail(&r, rc, "runtime.SystemLib"));
  }
  int code = -1;
  if (ro->aot != NULL) {
    code = create_aot_executor(&r);
    if (code < 0) {
      code = upload_aot(&r, inputs);
    }
  } else {
    code = check_memory(&r);
    if (code < 0) {
      code = check_functions(&r);
    }
    if (code < 0) {
      code = ro->host_driven ? upload_host_driven(&r, inputs) : create_executor(&r);
    }
    if ((code < 0) && !ro->host_driven) {
      code = upload_graph(&r, inputs);
    }
  }
  if (code < 0) {
    code = (ro->host_driven && (ro->aot == NULL)) ? run_host_driven(&r) : run_graph(&r);
  }
  if ((code < 0) && (ro->aot == NULL)) {
    code = rerun_from_start_state(&r);
  }
  if (code < 0) {
    code = download_outputs(&r, outputs);
  }
  return release(&r, code);
}
