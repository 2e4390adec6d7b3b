/* utvm run/time MODEL.tflite on a device: the model compiled for the generic kernel functions
 * (utvm/host_compile.h), then run by the device's graph executor (tvm.graph_executor.create) or
 * walked by the host (--host-driven: one call per operator); or, with --executor aot, the
 * firmware's own AOT-compiled model run by tvm.aot_executor.create.
 *
 * The run is a list of steps (remote_step_t). A step that fails on the link is done again from
 * its first unfinished item when the session survived (UTVM_HOST_ERR_LINK), else the session is
 * restarted and the device steps run again from the first; host-side work is never redone. All
 * of it ends by the run's deadline (docs/RECOVERY.md, "A whole `utvm run`"). */
#define _DEFAULT_SOURCE

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "utvm/graph.h"

/* Tensor allocations on a utvm device are rounded to pages of at least this many bytes. */
#define REMOTE_PAGE_BYTES 64u
/* A graph JSON goes as a Str argument when the request stays this far below the device's
 * packet limit; otherwise it is uploaded as a uint8 tensor first. */
#define REMOTE_REQUEST_OVERHEAD 128u
/* Most recoveries (a step done again or a new session) of one run. */
#define REMOTE_MAX_RECOVERIES 20u
/* Most steps of a run (host-driven has the most: 10). */
#define REMOTE_MAX_STEPS 12u
/* The default deadline: BASE + FACTOR x the time the run's bytes take on the link at 10 bits
 * per byte (a UART's start and stop bits), at the baud of a serial: transport (115200 when not
 * given) or else a nominal 1 Mbit/s. */
#define REMOTE_DEADLINE_BASE_S 30.0
#define REMOTE_DEADLINE_FACTOR 20.0
#define REMOTE_BITS_PER_BYTE 10.0
#define REMOTE_NOMINAL_BITS_PER_S 1e6
#define REMOTE_SERIAL_DEFAULT_BAUD 115200.0

typedef struct remote remote_t;

/* One step of a run: its name (the progress line and a deadline message show it), what does
 * it (returns -1, or an exit code with the failure recorded) and whether a
 * UTVM_HOST_ERR_LINK failure is redone in the same session (false for a step that creates
 * something on the device: an executor, device memory, a time evaluator (the device holds a
 * few live ones); the lost request may have created it, so a new session starts over). */
typedef struct {
  const char *name;
  int (*run)(remote_t *r);
  bool redo_on_link;
} remote_step_t;

struct remote {
  utvm_host_t *host;
  const cli_remote_options_t *ro;
  const utvm_compiled_graph_t *g;
  const cli_remote_buffer_t *inputs;
  cli_remote_buffer_t *outputs;
  cli_remote_result_t *res;
  uint64_t syslib;
  uint64_t module;          /* the executor module, 0 when none */
  uint64_t get_input;       /* its functions, 0 when not looked up */
  uint64_t get_output;
  uint64_t *storage;        /* host-driven: device address per storage id (0 = none) */
  uint64_t *op_functions;   /* host-driven: function handle per operator */
  remote_step_t steps[REMOTE_MAX_STEPS];
  uint32_t n_steps;
  uint32_t step;            /* the step running or failed */
  uint32_t item;            /* its first unfinished item (parameter, input, operator...) */
  uint32_t n_items;
  const char *item_name;    /* "parameter"...; NULL for a step of no items */
  double deadline_at;       /* cli_now_s() by which the run ends */
  bool final;               /* the failure recorded is not recovered from */
  bool deadline_passed;     /* that failure is the deadline's (its text counts recoveries) */
  bool handshake_failed;    /* the failure recorded is remote_reconnect's handshake */
  bool reconnecting;        /* from remote_reconnect until the steps run again */
  char failure[CLI_REMOTE_ERROR_BYTES]; /* the last failure before a recovery */
  cli_progress_t progress;
};

static uint64_t round_page(uint64_t n) {
  return (n + (REMOTE_PAGE_BYTES - 1u)) & ~(uint64_t)(REMOTE_PAGE_BYTES - 1u);
}

static bool blank(const char *s) {
  for (; *s != '\0'; s++) {
    if (isspace((unsigned char)*s) == 0) {
      return false;
    }
  }
  return true;
}

/* Records a failure of step what with host library error rc and its cause (the library's
 * generic text for rc when cause is NULL or blank, so a cause is never empty); returns the
 * exit code. */
static int remote_fail_cause(remote_t *r, utvm_host_err_t rc, const char *what,
                             const char *cause) {
  (void)snprintf(r->res->error, sizeof(r->res->error), "%s: %s", what,
                 ((cause != NULL) && !blank(cause)) ? cause : utvm_host_strerror(rc));
  r->res->host_error = rc;
  return cli_exit_code(rc);
}

/* Records the failure of the host library request just made. Call it before any cleanup
 * request: the next request replaces the library's text (utvm_host_last_error). */
static int remote_fail(remote_t *r, utvm_host_err_t rc, const char *what) {
  return remote_fail_cause(r, rc, what, utvm_host_last_error(r->host));
}

static int remote_fail_text(remote_t *r, int code, const char *text) {
  (void)snprintf(r->res->error, sizeof(r->res->error), "%s", text);
  r->res->host_error = UTVM_HOST_OK;
  return code;
}

/* A failure on the link (the device may do the request again in this session or a new one). */
static bool link_failure(utvm_host_err_t rc) {
  return (rc == UTVM_HOST_ERR_LINK) || (rc == UTVM_HOST_ERR_TIMEOUT) ||
         (rc == UTVM_HOST_ERR_BROKEN) || (rc == UTVM_HOST_ERR_DEVICE_RESET) ||
         (rc == UTVM_HOST_ERR_IO) || (rc == UTVM_HOST_ERR_HANDSHAKE);
}

/* "step 5 of 9, parameter 16 of 20, 35840 of 79872 bytes, 2 recoveries". */
static void describe_progress(const remote_t *r, char *buf, size_t size) {
  int n = snprintf(buf, size, "step %u of %u", (unsigned)r->step + 1u, (unsigned)r->n_steps);
  if ((r->item_name != NULL) && (r->item < r->n_items) && (n >= 0) && ((size_t)n < size)) {
    n += snprintf(&buf[n], size - (size_t)n, ", %s %u of %u", r->item_name,
                  (unsigned)r->item + 1u, (unsigned)r->n_items);
  }
  if ((r->progress.step_total > 0u) && (n >= 0) && ((size_t)n < size)) {
    n += snprintf(&buf[n], size - (size_t)n, ", %llu of %llu bytes",
                  (unsigned long long)r->progress.step_done,
                  (unsigned long long)r->progress.step_total);
  }
  if ((r->res->recoveries > 0u) && (n >= 0) && ((size_t)n < size)) {
    (void)snprintf(&buf[n], size - (size_t)n, ", %u %s", (unsigned)r->res->recoveries,
                   (r->res->recoveries == 1u) ? "recovery" : "recoveries");
  }
}

/* -1 while the run's deadline has not passed; else records "deadline of N s passed during
 * STEP (PROGRESS)" (with the last failure if the run recovered from any), which ends the
 * run, and returns the exit code. */
static int remote_check_deadline(remote_t *r) {
  if (cli_now_s() <= r->deadline_at) {
    return -1;
  }
  char where[256];
  char text[CLI_REMOTE_ERROR_BYTES];
  describe_progress(r, where, sizeof(where));
  (void)snprintf(text, sizeof(text), "deadline of %g s passed during %s (%s)%s%.600s",
                 r->res->deadline_s,
                 r->reconnecting ? "reconnecting to the device" : r->steps[r->step].name, where,
                 (r->res->recoveries > 0u) ? "; the last failure: " : "",
                 (r->res->recoveries > 0u) ? r->failure : "");
  (void)memcpy(r->res->error, text, sizeof(text));
  r->res->host_error = UTVM_HOST_ERR_TIMEOUT;
  r->final = true;
  r->deadline_passed = true;
  return CLI_EXIT_CONNECTION;
}

/* A step with items: the progress line counts total bytes over them. */
static void begin_items(remote_t *r, const char *item_name, uint32_t n_items, uint64_t total) {
  r->item_name = item_name;
  r->n_items = n_items;
  r->progress.step_total = total;
  cli_progress_show(&r->progress, 0u);
}

/* Item r->item is done; it copied bytes. */
static void item_done(remote_t *r, uint64_t bytes) {
  r->item++;
  r->progress.step_done += bytes;
  cli_progress_show(&r->progress, 0u);
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

/* utvm_graph_init_lookup's lookup for sizing only: every function exists (nothing is run). */
static int32_t any_function(void *ctx, const char *name, TVMFunctionHandle *func) {
  (void)ctx;
  (void)name;
  *func = (TVMFunctionHandle)(uintptr_t)1u;
  return 0;
}

/* Bytes tvm.graph_executor.create takes for g from the device's tensor arena: the executor and
 * the exact memory its init plans (the device's code, run here; its tables sized for this
 * host's pointers, so at least a 32-bit device's), or 0 when the graph cannot be planned here. */
static uint64_t graph_executor_bytes(const utvm_compiled_graph_t *g) {
  utvm_graph_t probe;
  uint64_t bytes = 0u;
  if (utvm_graph_memory_size(&probe, g->json, g->json_len) != UTVM_OK) {
    return 0u;
  }
  const size_t size = probe.plan_memory_size;
  void *memory = malloc(size);
  if (memory != NULL) {
    const utvm_err_t err =
        utvm_graph_init_lookup(&probe, g->json, g->json_len, any_function, NULL, memory, size);
    if ((err == UTVM_OK) || (err == UTVM_ERR_GRAPH_MEMORY)) {
      bytes = (uint64_t)sizeof(utvm_graph_t) + probe.memory_size;
    }
  }
  free(memory);
  return bytes;
}

/* Device tensor memory the run needs, with every allocation rounded to a page: host-driven and
 * AOT, one buffer per storage id; the graph executor, its planned block (graph_executor_bytes)
 * and the JSON. */
static uint64_t memory_needed(const remote_t *r) {
  const utvm_compiled_graph_t *g = r->g;
  uint64_t need = 0u;
  const uint64_t executor = (!r->ro->host_driven && (r->ro->aot == NULL))
                                ? graph_executor_bytes(g) : 0u;
  if (executor > 0u) {
    need = round_page(executor);
  } else {
    for (uint32_t s = 0u; s < g->n_storage; s++) {
      need += round_page(g->storage_bytes[s]);
    }
  }
  if (!r->ro->host_driven) {
    need += round_page(g->json_len);
  }
  return need;
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

/* runtime.SystemLib. */
static int step_syslib(remote_t *r) {
  utvm_host_err_t rc = utvm_host_system_lib(r->host, &r->syslib);
  return (rc == UTVM_HOST_OK) ? -1
                              : remote_fail(r, rc, "opening the system library (runtime.SystemLib)");
}

/* Refuses a model larger than the device's free tensor memory before anything is uploaded. */
static int step_check_memory(remote_t *r) {
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
static int step_check_functions(remote_t *r) {
  const utvm_compiled_graph_t *g = r->g;
  begin_items(r, "operator", g->n_ops, 0u);
  for (; r->item < g->n_ops; item_done(r, 0u)) {
    const uint32_t k = r->item;
    bool seen = false;
    for (uint32_t j = 0u; (j < k) && !seen; j++) {
      seen = strcmp(g->ops[j].func_name, g->ops[k].func_name) == 0;
    }
    if (seen) {
      continue;
    }
    int code = remote_check_deadline(r);
    if (code >= 0) {
      return code;
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

/* Copies bytes between the host and the NDArray that fname(key) returns (function: the
 * executor's get_input or get_output), then releases the NDArray. A failure is recorded under
 * what before the release. Returns -1 or the exit code. */
static int copy_ndarray(remote_t *r, uint64_t function, const char *fname,
                        const utvm_host_value_t *key, void *data, uint64_t bytes, bool to_device,
                        const char *what) {
  char call[192];
  char cause[320];
  if (key->type_code == UTVM_TC_STR) {
    (void)snprintf(call, sizeof(call), "%s(%s)", fname, (const char *)key->v.bytes.data);
  } else {
    (void)snprintf(call, sizeof(call), "%s(%lld)", fname, (long long)key->v.i);
  }
  utvm_host_value_t nd;
  utvm_host_err_t rc = utvm_host_call(r->host, function, key, 1u, &nd);
  if (rc != UTVM_HOST_OK) {
    return remote_fail(r, rc, what);
  }
  if (nd.type_code != UTVM_TC_NDARRAY) {
    (void)snprintf(cause, sizeof(cause), "%s returned type code %d, not an NDArray (13)", call,
                   (int)nd.type_code);
    return remote_fail_cause(r, UTVM_HOST_ERR_PROTOCOL, what, cause);
  }
  const size_t have = utvm_host_tensor_nbytes(&nd.v.tensor);
  int code = -1;
  if (have != bytes) {
    (void)snprintf(cause, sizeof(cause), "%s returned %zu bytes, expected %llu", call, have,
                   (unsigned long long)bytes);
    code = remote_fail_cause(r, UTVM_HOST_ERR_PROTOCOL, what, cause);
  } else {
    rc = to_device ? utvm_host_copy_to_device(r->host, &nd.v.tensor, data, (size_t)bytes)
                   : utvm_host_copy_from_device(r->host, &nd.v.tensor, data, (size_t)bytes);
    code = (rc == UTVM_HOST_OK) ? -1 : remote_fail(r, rc, what);
  }
  rc = utvm_host_free_handle(r->host, nd.ndarray_handle, UTVM_TC_NDARRAY);
  if ((code < 0) && (rc != UTVM_HOST_OK)) {
    (void)snprintf(cause, sizeof(cause), "%s (releasing the NDArray of %s)", what, call);
    code = remote_fail(r, rc, cause);
  }
  return code;
}

/* The largest request the device takes: its GetCRTMaxPacketSize (copies may be larger on a
 * utvm device, requests are not); 0 when it does not tell. */
static int read_packet_limit(remote_t *r, uint64_t *max_packet) {
  static const char what[] = "reading the device's packet limit";
  uint64_t packet_size = 0u;
  *max_packet = 0u;
  utvm_host_err_t rc = utvm_host_get_global(r->host, "tvm.rpc.server.GetCRTMaxPacketSize",
                                            &packet_size);
  if (rc != UTVM_HOST_OK) {
    return remote_fail(r, rc, what);
  }
  if (packet_size == 0u) {
    return -1;
  }
  utvm_host_value_t size;
  rc = utvm_host_call_idempotent(r->host, packet_size, NULL, 0u, &size);
  int code = (rc == UTVM_HOST_OK) ? -1 : remote_fail(r, rc, what);
  if ((code < 0) && (size.type_code == UTVM_TC_INT) && (size.v.i > 0)) {
    *max_packet = (uint64_t)size.v.i;
  }
  rc = utvm_host_free_handle(r->host, packet_size, UTVM_TC_FUNCTION);
  return ((code < 0) && (rc != UTVM_HOST_OK)) ? remote_fail(r, rc, what) : code;
}

/* The executor module's get_input and get_output. */
static int executor_functions(remote_t *r, const char *what) {
  utvm_host_err_t rc = utvm_host_module_get_function(r->host, r->module, "get_input",
                                                     &r->get_input);
  if (rc == UTVM_HOST_OK) {
    rc = utvm_host_module_get_function(r->host, r->module, "get_output", &r->get_output);
  }
  return (rc == UTVM_HOST_OK) ? -1 : remote_fail(r, rc, what);
}

/* tvm.graph_executor.create(json, system library, 1, 0): the JSON as a Str when it fits one
 * request, else uploaded as a uint8 tensor (a utvm extension). */
static int step_create_executor(remote_t *r) {
  static const char what[] = "creating the graph executor (tvm.graph_executor.create)";
  const utvm_compiled_graph_t *g = r->g;
  uint64_t create = 0u;
  utvm_host_err_t rc = utvm_host_get_global(r->host, "tvm.graph_executor.create", &create);
  if (rc != UTVM_HOST_OK) {
    return remote_fail(r, rc, what);
  }
  if (create == 0u) {
    return remote_fail_text(r, CLI_EXIT_DEVICE_ERROR,
                            "the device has no graph executor (tvm.graph_executor.create); "
                            "use --host-driven");
  }
  uint64_t max_packet = 0u;
  int code = read_packet_limit(r, &max_packet);
  if (code >= 0) {
    return code;
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
    begin_items(r, NULL, 0u, g->json_len);
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
      code = remote_fail(r, rc, "uploading the graph JSON");
      if (json_data != 0u) {
        (void)utvm_host_dev_free_data(r->host, json_tensor.device, json_data);
      }
      return code;
    }
    args[0].type_code = UTVM_TC_DLTENSOR;
    args[0].v.tensor = json_tensor;
    r->res->upload_bytes += g->json_len;
    item_done(r, g->json_len);
  }
  args[1].type_code = UTVM_TC_MODULE;
  args[1].v.handle = r->syslib;
  args[2].type_code = UTVM_TC_INT;
  args[2].v.i = 1;
  args[3].type_code = UTVM_TC_INT;
  args[3].v.i = 0;
  utvm_host_value_t ret;
  rc = utvm_host_call(r->host, create, args, 4u, &ret);
  code = (rc == UTVM_HOST_OK) ? -1 : remote_fail(r, rc, what);
  if (json_data != 0u) {
    rc = utvm_host_dev_free_data(r->host, json_tensor.device, json_data);
    if ((code < 0) && (rc != UTVM_HOST_OK)) {
      code = remote_fail(r, rc, "freeing the uploaded graph JSON");
    }
  }
  if (code >= 0) {
    return code;
  }
  if (ret.type_code != UTVM_TC_MODULE) {
    return remote_fail_text(r, CLI_EXIT_DEVICE_ERROR,
                            "tvm.graph_executor.create did not return a module");
  }
  r->module = ret.v.handle;
  return executor_functions(r, "the graph executor's functions");
}

/* tvm.aot_executor.create(system library, cpu(0), name): the firmware's own model. */
static int step_create_aot_executor(remote_t *r) {
  static const char what[] = "creating the AOT executor (tvm.aot_executor.create)";
  uint64_t create = 0u;
  utvm_host_err_t rc = utvm_host_get_global(r->host, "tvm.aot_executor.create", &create);
  if (rc != UTVM_HOST_OK) {
    return remote_fail(r, rc, what);
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
    return remote_fail(r, rc, what);
  }
  if (ret.type_code != UTVM_TC_MODULE) {
    return remote_fail_text(r, CLI_EXIT_DEVICE_ERROR,
                            "tvm.aot_executor.create did not return a module");
  }
  r->module = ret.v.handle;
  return executor_functions(r, "the AOT executor's functions");
}

/* Bytes of the model's inputs (or outputs). */
static uint64_t buffer_bytes(const cli_remote_buffer_t *b, uint32_t n) {
  uint64_t total = 0u;
  for (uint32_t i = 0u; i < n; i++) {
    total += b[i].bytes;
  }
  return total;
}

/* Graph executor: every parameter into its input's storage (get_input + copy); host-driven:
 * into its storage buffer. */
static int step_params(remote_t *r) {
  const utvm_compiled_graph_t *g = r->g;
  uint64_t total = 0u;
  for (uint32_t k = 0u; k < g->n_params; k++) {
    total += g->params[k].bytes;
  }
  begin_items(r, "parameter", g->n_params, total);
  const double t0 = cli_now_s();
  int code = -1;
  while ((code < 0) && (r->item < g->n_params)) {
    const uint32_t k = r->item;
    char what[256];
    (void)snprintf(what, sizeof(what), "uploading parameter %s", g->params[k].name);
    code = remote_check_deadline(r);
    if ((code < 0) && r->ro->host_driven) {
      utvm_host_tensor_t t;
      const uint32_t eid = g->params[k].entry;
      entry_tensor(g, eid, r->storage[g->entries[eid].storage_id], &t);
      utvm_host_err_t rc = utvm_host_copy_to_device(r->host, &t, g->params[k].data,
                                                    (size_t)g->params[k].bytes);
      code = (rc == UTVM_HOST_OK) ? -1 : remote_fail(r, rc, what);
    } else if (code < 0) {
      utvm_host_value_t key = str_value(g->params[k].name);
      code = copy_ndarray(r, r->get_input, "get_input", &key,
                          (void *)(uintptr_t)g->params[k].data, g->params[k].bytes, true, what);
    } else {
      /* The deadline passed. */
    }
    if (code < 0) {
      r->res->upload_bytes += g->params[k].bytes;
      item_done(r, g->params[k].bytes);
    }
  }
  r->res->upload_seconds += cli_now_s() - t0;
  return code;
}

/* The model inputs: by name (graph executor), by index (AOT executor: does the firmware's model
 * match this .tflite?) or into their storage buffers (host-driven). */
static int step_inputs(remote_t *r) {
  const utvm_compiled_graph_t *g = r->g;
  begin_items(r, "input", g->n_inputs, buffer_bytes(r->inputs, g->n_inputs));
  while (r->item < g->n_inputs) {
    const uint32_t i = r->item;
    char what[256];
    (void)snprintf(what, sizeof(what), "setting model input %u%s", i,
                   (r->ro->aot != NULL) ? " (does the firmware's AOT model match this .tflite?)"
                                        : "");
    int code = remote_check_deadline(r);
    if (code >= 0) {
      return code;
    }
    void *data = (void *)(uintptr_t)r->inputs[i].data;
    if ((r->ro->aot == NULL) && r->ro->host_driven) {
      utvm_host_tensor_t t;
      const uint32_t eid = g->input_entries[i];
      entry_tensor(g, eid, r->storage[g->entries[eid].storage_id], &t);
      utvm_host_err_t rc = utvm_host_copy_to_device(r->host, &t, data, r->inputs[i].bytes);
      code = (rc == UTVM_HOST_OK) ? -1 : remote_fail(r, rc, what);
    } else {
      utvm_host_value_t key = (r->ro->aot != NULL) ? int_value((int64_t)i)
                                                   : str_value(g->input_names[i]);
      code = copy_ndarray(r, r->get_input, "get_input", &key, data, r->inputs[i].bytes, true,
                          what);
    }
    if (code >= 0) {
      return code;
    }
    item_done(r, r->inputs[i].bytes);
  }
  return -1;
}

/* Host-driven: one device buffer per storage id. */
static int step_allocate(remote_t *r) {
  const utvm_compiled_graph_t *g = r->g;
  const utvm_host_device_t cpu0 = {1, 0};
  const utvm_host_dtype_t u8 = {1u, 8u, 1u};
  begin_items(r, "buffer", g->n_storage, 0u);
  for (; r->item < g->n_storage; item_done(r, 0u)) {
    int code = remote_check_deadline(r);
    if (code >= 0) {
      return code;
    }
    const uint32_t s = r->item;
    utvm_host_err_t rc = utvm_host_dev_alloc_data(r->host, cpu0, (int64_t)g->storage_bytes[s],
                                                  REMOTE_PAGE_BYTES, u8, &r->storage[s]);
    if (rc != UTVM_HOST_OK) {
      return remote_fail(r, rc, "allocating device memory");
    }
  }
  return -1;
}

/* Host-driven: each operator's kernel function. */
static int step_op_functions(remote_t *r) {
  const utvm_compiled_graph_t *g = r->g;
  begin_items(r, "operator", g->n_ops, 0u);
  for (; r->item < g->n_ops; item_done(r, 0u)) {
    const uint32_t k = r->item;
    int code = remote_check_deadline(r);
    if (code >= 0) {
      return code;
    }
    utvm_host_err_t rc = utvm_host_module_get_function(r->host, r->syslib, g->ops[k].func_name,
                                                       &r->op_functions[k]);
    if (rc != UTVM_HOST_OK) {
      char what[256];
      (void)snprintf(what, sizeof(what), "looking up operator %u's kernel function %s", k,
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
static int step_run_executor(remote_t *r) {
  utvm_host_time_params_t p;
  time_params(r, &p);
  double *seconds = NULL;
  size_t count = 0u;
  utvm_host_err_t rc = utvm_host_time(r->host, r->module, "run", &p, NULL, 0u, &seconds, &count);
  int code = (rc == UTVM_HOST_OK) ? -1 : remote_fail(r, rc, "running the model");
  r->res->seconds = mean_of(seconds, count);
  free(seconds);
  return code;
}

/* Host-driven: the operators from *next on, each kernel function with its entries as tensors,
 * in order, under the time evaluator when timed. */
static int run_ops(remote_t *r, uint32_t *next, bool timed) {
  const utvm_compiled_graph_t *g = r->g;
  utvm_host_value_t args[CLI_REMOTE_MAX_OP_ARGS];
  for (; *next < g->n_ops; (*next)++) {
    const uint32_t k = *next;
    const utvm_compiled_op_t *op = &g->ops[k];
    uint32_t n = op->n_inputs + op->n_outputs;
    if (n > CLI_REMOTE_MAX_OP_ARGS) {
      return remote_fail_text(r, CLI_EXIT_DEVICE_ERROR, "an operator has too many operands");
    }
    int code = remote_check_deadline(r);
    if (code >= 0) {
      return code;
    }
    for (uint32_t a = 0u; a < n; a++) {
      uint32_t eid = op->entries[a];
      (void)memset(&args[a], 0, sizeof(args[a]));
      args[a].type_code = UTVM_TC_DLTENSOR;
      entry_tensor(g, eid, r->storage[g->entries[eid].storage_id], &args[a].v.tensor);
    }
    utvm_host_err_t rc;
    if (timed) {
      utvm_host_time_params_t p;
      time_params(r, &p);
      double *seconds = NULL;
      size_t count = 0u;
      rc = utvm_host_time(r->host, r->syslib, op->func_name, &p, args, n, &seconds, &count);
      r->res->layer_seconds[k] = mean_of(seconds, count);
      free(seconds);
    } else {
      rc = utvm_host_call(r->host, r->op_functions[k], args, n, NULL);
    }
    if (rc != UTVM_HOST_OK) {
      char what[256];
      (void)snprintf(what, sizeof(what), "running operator %u (%s)", k, op->func_name);
      return remote_fail(r, rc, what);
    }
    cli_progress_show(&r->progress, 0u);
  }
  return -1;
}

/* Host-driven: every operator (timed when per-layer times are wanted); the run's time is their
 * sum. */
static int step_run_host_driven(remote_t *r) {
  begin_items(r, "operator", r->g->n_ops, 0u);
  int code = run_ops(r, &r->item, r->ro->per_layer || r->ro->timed);
  r->res->seconds = 0.0;
  for (uint32_t k = 0u; k < r->g->n_ops; k++) {
    r->res->seconds += r->res->layer_seconds[k];
  }
  return code;
}

/* Whether the model has state (SVDF and LSTM variables, updated in place by their operator)
 * that the timed runs advanced: then the rerun step is part of the run. */
static bool has_state_to_reset(const remote_t *r) {
  if (r->ro->host_driven && !r->ro->timed && !r->ro->per_layer) {
    return false; /* each operator ran once */
  }
  for (uint32_t k = 0u; k < r->g->n_params; k++) {
    if (r->g->params[k].state) {
      return true;
    }
  }
  return false;
}

/* A model with state: the starting state is uploaded again and the model run once more,
 * untimed, for the outputs of one invocation (as TFLM's). Done whole when redone. */
static int step_rerun_from_start_state(remote_t *r) {
  static const char what[] = "resetting the model's state";
  const utvm_compiled_graph_t *g = r->g;
  begin_items(r, NULL, 0u, 0u);
  for (uint32_t k = 0u; k < g->n_params; k++) {
    if (!g->params[k].state) {
      continue;
    }
    int code = remote_check_deadline(r);
    if ((code < 0) && r->ro->host_driven) {
      utvm_host_tensor_t t;
      uint32_t eid = g->params[k].entry;
      entry_tensor(g, eid, r->storage[g->entries[eid].storage_id], &t);
      utvm_host_err_t rc =
          utvm_host_copy_to_device(r->host, &t, g->params[k].data, (size_t)g->params[k].bytes);
      code = (rc == UTVM_HOST_OK) ? -1 : remote_fail(r, rc, what);
    } else if (code < 0) {
      utvm_host_value_t key = str_value(g->params[k].name);
      code = copy_ndarray(r, r->get_input, "get_input", &key,
                          (void *)(uintptr_t)g->params[k].data, g->params[k].bytes, true, what);
    } else {
      /* The deadline passed. */
    }
    if (code >= 0) {
      return code;
    }
  }
  if (r->ro->host_driven) {
    uint32_t next = 0u;
    return run_ops(r, &next, false);
  }
  static const char run_what[] = "running the model from its start state";
  uint64_t run = 0u;
  utvm_host_err_t rc = utvm_host_module_get_function(r->host, r->module, "run", &run);
  if (rc != UTVM_HOST_OK) {
    return remote_fail(r, rc, run_what);
  }
  rc = utvm_host_call(r->host, run, NULL, 0u, NULL);
  int code = (rc == UTVM_HOST_OK) ? -1 : remote_fail(r, rc, run_what);
  rc = utvm_host_free_handle(r->host, run, UTVM_TC_FUNCTION);
  return ((code < 0) && (rc != UTVM_HOST_OK)) ? remote_fail(r, rc, run_what) : code;
}

static int step_outputs(remote_t *r) {
  const utvm_compiled_graph_t *g = r->g;
  begin_items(r, "output", g->n_outputs, buffer_bytes(r->outputs, g->n_outputs));
  while (r->item < g->n_outputs) {
    const uint32_t i = r->item;
    char what[64];
    (void)snprintf(what, sizeof(what), "reading model output %u", i);
    int code = remote_check_deadline(r);
    if (code >= 0) {
      return code;
    }
    if (r->ro->host_driven && (r->ro->aot == NULL)) {
      utvm_host_tensor_t t;
      uint32_t eid = g->output_entries[i];
      entry_tensor(g, eid, r->storage[g->entries[eid].storage_id], &t);
      utvm_host_err_t rc = utvm_host_copy_from_device(r->host, &t, r->outputs[i].data,
                                                      r->outputs[i].bytes);
      code = (rc == UTVM_HOST_OK) ? -1 : remote_fail(r, rc, what);
    } else {
      utvm_host_value_t key = int_value((int64_t)i);
      code = copy_ndarray(r, r->get_output, "get_output", &key, r->outputs[i].data,
                          r->outputs[i].bytes, false, what);
    }
    if (code >= 0) {
      return code;
    }
    item_done(r, r->outputs[i].bytes);
  }
  return -1;
}

static void add_step(remote_t *r, const char *name, int (*run)(remote_t *r), bool redo_on_link) {
  remote_step_t *s = &r->steps[r->n_steps];
  s->name = name;
  s->run = run;
  s->redo_on_link = redo_on_link;
  r->n_steps++;
}

/* The steps of the run's path: AOT executor, host-driven or graph executor. */
static void plan_steps(remote_t *r) {
  const bool host_driven = r->ro->host_driven && (r->ro->aot == NULL);
  add_step(r, "opening the system library", step_syslib, true);
  if (r->ro->aot != NULL) {
    add_step(r, "creating the AOT executor", step_create_aot_executor, false);
    add_step(r, "setting the model inputs", step_inputs, true);
    add_step(r, "running the model", step_run_executor, false);
    add_step(r, "reading the model outputs", step_outputs, true);
    return;
  }
  add_step(r, "checking the device's free memory", step_check_memory, true);
  add_step(r, "checking the kernel functions", step_check_functions, true);
  if (host_driven) {
    add_step(r, "allocating device memory", step_allocate, false);
  } else {
    add_step(r, "creating the graph executor", step_create_executor, false);
  }
  add_step(r, "uploading parameters", step_params, true);
  add_step(r, "setting the model inputs", step_inputs, true);
  if (host_driven) {
    add_step(r, "looking up the kernel functions", step_op_functions, true);
    add_step(r, "running the model", step_run_host_driven, false);
  } else {
    add_step(r, "running the model", step_run_executor, false);
  }
  if (has_state_to_reset(r)) {
    add_step(r, "running the model from its start state", step_rerun_from_start_state, true);
  }
  add_step(r, "reading the model outputs", step_outputs, true);
}

/* Runs the steps from r->step (at its item r->item) to the end; -1 or the exit code of the
 * failure, with r->step the step that failed. */
static int run_steps(remote_t *r) {
  r->reconnecting = false;
  for (; r->step < r->n_steps; r->step++) {
    if (r->item == 0u) {
      r->progress.step_done = 0u;
      r->progress.step_total = 0u;
    }
    r->item_name = NULL;
    r->progress.step = r->step + 1u;
    r->progress.label = r->steps[r->step].name;
    cli_progress_show(&r->progress, 0u);
    int code = remote_check_deadline(r);
    if (code < 0) {
      code = r->steps[r->step].run(r);
    }
    if (code >= 0) {
      return code;
    }
    r->item = 0u;
  }
  return -1;
}

/* Forgets every device handle: a new session freed them all on the device. */
static void forget_device_handles(remote_t *r) {
  r->syslib = 0u;
  r->module = 0u;
  r->get_input = 0u;
  r->get_output = 0u;
  if (r->storage != NULL) {
    (void)memset(r->storage, 0, ((size_t)r->g->n_storage + 1u) * sizeof(uint64_t));
  }
  if (r->op_functions != NULL) {
    (void)memset(r->op_functions, 0, ((size_t)r->g->n_ops + 1u) * sizeof(uint64_t));
  }
}

/* A new session after r->failure: the device freed everything, so every handle is forgotten
 * and the device steps start again from the first; the device's free and total tensor memory
 * (DevGetAttr kinds 15 and 14) go to the progress line. -1, or the exit code of a failure
 * (a closed transport ends the run). */
static int remote_reconnect(remote_t *r) {
  (void)snprintf(r->progress.note, sizeof(r->progress.note), "reconnecting");
  cli_progress_show(&r->progress, 0u);
  r->reconnecting = true;
  utvm_host_err_t rc = utvm_host_reconnect(r->host);
  r->handshake_failed = rc != UTVM_HOST_OK;
  if (rc != UTVM_HOST_OK) {
    char text[CLI_REMOTE_ERROR_BYTES];
    const char *cause = utvm_host_last_error(r->host);
    (void)snprintf(text, sizeof(text), "%.600s; then reconnecting: %.380s", r->failure,
                   blank(cause) ? utvm_host_strerror(rc) : cause);
    (void)memcpy(r->res->error, text, sizeof(text));
    r->res->host_error = rc;
    r->final = (rc == UTVM_HOST_ERR_IO) || (rc == UTVM_HOST_ERR_CONNECT);
    return cli_exit_code(rc);
  }
  forget_device_handles(r);
  r->step = 0u;
  r->item = 0u;
  r->res->upload_bytes = 0u;
  r->res->upload_seconds = 0.0;
  const utvm_host_device_t cpu0 = {1, 0};
  utvm_host_value_t free_bytes;
  utvm_host_value_t total_bytes;
  rc = utvm_host_dev_get_attr(r->host, cpu0, 15, &free_bytes);
  if (rc == UTVM_HOST_OK) {
    rc = utvm_host_dev_get_attr(r->host, cpu0, 14, &total_bytes);
  }
  if (link_failure(rc)) {
    return remote_fail(r, rc, "reading the device's memory after reconnecting");
  }
  if ((rc == UTVM_HOST_OK) && (free_bytes.type_code == UTVM_TC_INT) &&
      (total_bytes.type_code == UTVM_TC_INT)) {
    (void)snprintf(r->progress.note, sizeof(r->progress.note),
                   "new session: %lld of %lld KB free", (long long)(free_bytes.v.i / 1024),
                   (long long)(total_bytes.v.i / 1024));
  } else {
    (void)snprintf(r->progress.note, sizeof(r->progress.note), "new session");
  }
  return -1;
}

/* Frees everything the run created on the device. A failure fails a run that succeeded, unless
 * it is a failure on the link: the device frees it all at the next session, so the outputs
 * stand and the progress line tells. */
static int release(remote_t *r, int code) {
  const utvm_host_device_t cpu0 = {1, 0};
  utvm_host_err_t rc = UTVM_HOST_OK;
  char cause[512] = "";
  uint64_t *handles[3] = {&r->get_input, &r->get_output, &r->module};
  const int32_t kinds[3] = {UTVM_TC_FUNCTION, UTVM_TC_FUNCTION, UTVM_TC_MODULE};
  const bool skip = (code >= 0) && link_failure(r->res->host_error); /* the next session frees */
  for (uint32_t k = 0u; !skip && (r->op_functions != NULL) && (k < r->g->n_ops); k++) {
    utvm_host_err_t one = UTVM_HOST_OK;
    if (r->op_functions[k] != 0u) {
      one = utvm_host_free_handle(r->host, r->op_functions[k], UTVM_TC_FUNCTION);
    }
    if ((one != UTVM_HOST_OK) && (rc == UTVM_HOST_OK)) {
      rc = one;
      (void)snprintf(cause, sizeof(cause), "%s", utvm_host_last_error(r->host));
    }
  }
  for (uint32_t s = 0u; !skip && (r->storage != NULL) && (s < r->g->n_storage); s++) {
    utvm_host_err_t one = UTVM_HOST_OK;
    if (r->storage[s] != 0u) {
      one = utvm_host_dev_free_data(r->host, cpu0, r->storage[s]);
    }
    if ((one != UTVM_HOST_OK) && (rc == UTVM_HOST_OK)) {
      rc = one;
      (void)snprintf(cause, sizeof(cause), "%s", utvm_host_last_error(r->host));
    }
  }
  for (size_t k = 0u; !skip && (k < 3u); k++) {
    utvm_host_err_t one = UTVM_HOST_OK;
    if (*handles[k] != 0u) {
      one = utvm_host_free_handle(r->host, *handles[k], kinds[k]);
    }
    if ((one != UTVM_HOST_OK) && (rc == UTVM_HOST_OK)) {
      rc = one;
      (void)snprintf(cause, sizeof(cause), "%s", utvm_host_last_error(r->host));
    }
  }
  free(r->storage);
  free(r->op_functions);
  r->storage = NULL;
  r->op_functions = NULL;
  if ((code < 0) && link_failure(rc)) {
    (void)snprintf(r->progress.note, sizeof(r->progress.note),
                   "device memory left to the next session");
    cli_progress_show(&r->progress, 0u);
  } else if ((code < 0) && (rc != UTVM_HOST_OK)) {
    code = remote_fail_cause(r, rc, "releasing device memory", cause);
  } else {
    /* Released, or the run failed and keeps its own failure. */
  }
  return code;
}

/* Link rate in bits per second of a transport specification: the baud of a serial: transport
 * (also behind fault:), else a nominal 1 Mbit/s. */
static double link_bits_per_second(const char *connect) {
  const char *serial = (connect != NULL) ? strstr(connect, "serial:") : NULL;
  if (serial == NULL) {
    return REMOTE_NOMINAL_BITS_PER_S;
  }
  const char *at = strchr(serial, '@');
  double baud = (at != NULL) ? strtod(at + 1, NULL) : 0.0;
  return (baud > 0.0) ? baud : REMOTE_SERIAL_DEFAULT_BAUD;
}

/* The deadline of a run without --deadline (seconds, whole). */
static double default_deadline(const cli_remote_options_t *ro, const utvm_compiled_graph_t *g,
                               uint64_t io_bytes) {
  uint64_t bytes = io_bytes;
  if (ro->aot == NULL) {
    bytes += g->param_bytes + (ro->host_driven ? 0u : g->json_len);
  }
  const double link_s = (double)bytes * REMOTE_BITS_PER_BYTE / link_bits_per_second(ro->connect);
  return ceil(REMOTE_DEADLINE_BASE_S + REMOTE_DEADLINE_FACTOR * link_s);
}

int cli_remote_run(utvm_host_t *host, const cli_remote_options_t *ro, const utvm_compiled_graph_t *g,
                   const cli_remote_buffer_t *inputs, cli_remote_buffer_t *outputs,
                   cli_remote_result_t *res) {
  remote_t r;
  (void)memset(&r, 0, sizeof(r));
  r.host = host;
  r.ro = ro;
  r.g = g;
  r.inputs = inputs;
  r.outputs = outputs;
  r.res = res;
  const uint64_t io_bytes = buffer_bytes(inputs, g->n_inputs) + buffer_bytes(outputs, g->n_outputs);
  res->deadline_s = (ro->deadline_s > 0.0) ? ro->deadline_s : default_deadline(ro, g, io_bytes);
  r.deadline_at = ro->start_s + res->deadline_s;
  plan_steps(&r);
  cli_progress_begin(host, &r.progress, NULL);
  r.progress.steps = r.n_steps;
  res->layer_seconds = (double *)calloc((size_t)g->n_ops + 1u, sizeof(double));
  if (ro->host_driven && (ro->aot == NULL)) {
    r.storage = (uint64_t *)calloc((size_t)g->n_storage + 1u, sizeof(uint64_t));
    r.op_functions = (uint64_t *)calloc((size_t)g->n_ops + 1u, sizeof(uint64_t));
  }
  int code = -1;
  if ((res->layer_seconds == NULL) ||
      (ro->host_driven && (ro->aot == NULL) &&
       ((r.storage == NULL) || (r.op_functions == NULL)))) {
    code = remote_fail_text(&r, CLI_EXIT_USAGE, "out of host memory");
    r.final = true;
  }
  bool new_session = false;
  bool gave_up = false; /* the limit of recoveries stopped the run */
  while (code < 0) {
    code = new_session ? remote_reconnect(&r) : -1;
    if (code < 0) {
      code = run_steps(&r);
    }
    if ((code < 0) || r.final || !link_failure(res->host_error)) {
      break;
    }
    if (res->recoveries >= REMOTE_MAX_RECOVERIES) {
      gave_up = true;
      break;
    }
    if (!r.handshake_failed) {
      (void)memcpy(r.failure, res->error, sizeof(r.failure));
    }
    int late = remote_check_deadline(&r);
    if (late >= 0) {
      code = late;
      break;
    }
    res->recoveries++;
    r.progress.recoveries = res->recoveries;
    new_session = (res->host_error != UTVM_HOST_ERR_LINK) || !r.steps[r.step].redo_on_link;
    code = -1;
  }
  if ((code >= 0) && !r.deadline_passed && (res->recoveries > 0u)) {
    const size_t len = strlen(res->error);
    (void)snprintf(&res->error[len], sizeof(res->error) - len, " (%s %u %s)",
                   gave_up ? "gave up after" : "after",
                   (unsigned)res->recoveries, (res->recoveries == 1u) ? "recovery" : "recoveries");
  }
  code = release(&r, code);
  cli_progress_end(host, &r.progress);
  return code;
}
