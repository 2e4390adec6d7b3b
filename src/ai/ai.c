/*
 * The ai_ runtime API (utvm/ai.h): instances from a fixed pool, each an activations buffer
 * bound to a generated model's descriptor; calls check their arguments and keep a bounded
 * error text (no printf on the device).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "utvm/ai.h"
#include "utvm/text.h"

/* An instance of the pool. */
struct ai_instance_s {
  const ai_model *model;       /* NULL: free */
  uint8_t *activations;
  void *io[UTVM_AI_MAX_IO];    /* the buffers of the inputs, then of the outputs */
  ai_error error;
};

static struct ai_instance_s ai_pool[UTVM_AI_MAX_INSTANCES];
static ai_error ai_library_error;

/* ---- bounded error texts ---- */

/* Appends to e's text (utvm/text.h). */
static void ai_text_str(ai_error *e, const char *s) {
  utvm_text_t t;
  utvm_text_resume(&t, e->text, sizeof(e->text));
  utvm_text_str(&t, s);
}

static void ai_text_u64(ai_error *e, uint64_t v) {
  utvm_text_t t;
  utvm_text_resume(&t, e->text, sizeof(e->text));
  utvm_text_u64(&t, v);
}

static utvm_err_t ai_fail(ai_error *e, utvm_err_t code, const char *text) {
  e->code = code;
  e->text[0] = '\0';
  ai_text_str(e, text);
  return code;
}

static void ai_clear(ai_error *e) {
  e->code = UTVM_OK;
  e->text[0] = '\0';
}

/* The error a call reports into: the live instance's (h), else the library's (h NULL). */
static ai_error *ai_error_of(struct ai_instance_s *h) {
  return (h != NULL) ? &h->error : &ai_library_error;
}

/* UTVM_ERR_AI_ARGUMENT with the text "<call>: <problem>" in ai_error_of(h). */
static utvm_err_t ai_fail_call(struct ai_instance_s *h, const char *call, const char *problem) {
  ai_error *e = ai_error_of(h);
  (void)ai_fail(e, UTVM_ERR_AI_ARGUMENT, call);
  ai_text_str(e, ": ");
  ai_text_str(e, problem);
  return UTVM_ERR_AI_ARGUMENT;
}

/* ---- checks ---- */

static bool ai_tensors_fit(const ai_tensor_info *t, uint32_t n, size_t activations_size) {
  bool ok = (n == 0u) || (t != NULL);
  uint32_t i;
  for (i = 0u; ok && (i < n); i++) {
    ok = (t[i].ndim <= UTVM_AI_MAX_DIMS) &&
         ((t[i].offset == UTVM_AI_OWN_BUFFER) ||
          ((t[i].offset <= activations_size) && (t[i].bytes <= (activations_size - t[i].offset))));
  }
  return ok;
}

static bool ai_model_valid(const ai_model *m) {
  return (m->api_version == UTVM_AI_API_VERSION) && (m->network != NULL) &&
         ((m->params != NULL) || (m->params_size == 0u)) &&
         (m->n_inputs <= UTVM_AI_MAX_IO) && (m->n_outputs <= (UTVM_AI_MAX_IO - m->n_inputs)) &&
         ai_tensors_fit(m->inputs, m->n_inputs, m->activations_size) &&
         ai_tensors_fit(m->outputs, m->n_outputs, m->activations_size);
}

/* The live instance handle points to, or NULL. */
static struct ai_instance_s *ai_live(ai_handle handle) {
  struct ai_instance_s *found = NULL;
  uint32_t i;
  for (i = 0u; i < UTVM_AI_MAX_INSTANCES; i++) {
    if ((handle == &ai_pool[i]) && (ai_pool[i].model != NULL)) {
      found = &ai_pool[i];
    }
  }
  return found;
}

/* Input or output k (inputs first) of h's model. */
static const ai_tensor_info *ai_io_info(const struct ai_instance_s *h, uint32_t k) {
  const ai_model *m = h->model;
  return (k < m->n_inputs) ? &m->inputs[k] : &m->outputs[k - m->n_inputs];
}

/* Each input's and output's place: in the activations, or its built-in buffer (or none). */
static void ai_bind_defaults(struct ai_instance_s *h) {
  uint32_t k;
  for (k = 0u; k < UTVM_AI_MAX_IO; k++) {
    h->io[k] = NULL;
    if (k < (h->model->n_inputs + h->model->n_outputs)) {
      const ai_tensor_info *t = ai_io_info(h, k);
      if (t->offset == UTVM_AI_OWN_BUFFER) {
        h->io[k] = t->buffer;
      } else {
        h->io[k] = &h->activations[t->offset];
      }
    }
  }
}

/* Every variable tensor of h's model to its starting value. */
static void ai_reset_states(const struct ai_instance_s *h) {
  if (h->model->reset_state != NULL) {
    h->model->reset_state(h->activations);
  }
}

/* ---- the API ---- */

utvm_err_t ai_create(const ai_model *model, void *activations, size_t activations_size,
                     ai_handle *handle) {
  ai_error *e = &ai_library_error;
  uint8_t *act = (uint8_t *)activations;
  size_t size = activations_size;
  uint32_t i;
  if (handle == NULL) {
    return ai_fail(e, UTVM_ERR_AI_ARGUMENT, "ai_create: handle is NULL");
  }
  *handle = NULL;
  if (model == NULL) {
    return ai_fail(e, UTVM_ERR_AI_ARGUMENT, "ai_create: model is NULL");
  }
  if (!ai_model_valid(model)) {
    return ai_fail(e, UTVM_ERR_AI_MODEL,
                   "ai_create: model descriptor malformed, with more than UTVM_AI_MAX_IO inputs "
                   "and outputs, or not of API version 3");
  }
  if (act == NULL) {
    act = model->builtin_activations;
    size = model->activations_size;
    if ((act == NULL) && (size > 0u)) {
      return ai_fail(e, UTVM_ERR_AI_ACTIVATIONS,
                     "ai_create: activations are NULL and the model has no built-in buffer");
    }
  }
  if (size < model->activations_size) {
    (void)ai_fail(e, UTVM_ERR_AI_ACTIVATIONS, "ai_create: activations of ");
    ai_text_u64(e, (uint64_t)size);
    ai_text_str(e, " bytes, the model needs ");
    ai_text_u64(e, (uint64_t)model->activations_size);
    return UTVM_ERR_AI_ACTIVATIONS;
  }
  if (((uintptr_t)act % UTVM_AI_ACTIVATIONS_ALIGNMENT) != 0u) {
    return ai_fail(e, UTVM_ERR_AI_ACTIVATIONS, "ai_create: activations not 16-byte aligned");
  }
  i = 0u;
  while ((i < UTVM_AI_MAX_INSTANCES) && (ai_pool[i].model != NULL)) {
    i++;
  }
  if (i == UTVM_AI_MAX_INSTANCES) {
    return ai_fail(e, UTVM_ERR_AI_INSTANCES,
                   "ai_create: every instance is in use (UTVM_AI_MAX_INSTANCES)");
  }
  struct ai_instance_s *h = &ai_pool[i];
  h->model = model;
  h->activations = act;
  ai_bind_defaults(h);
  ai_reset_states(h);
  ai_clear(&h->error);
  ai_clear(e);
  *handle = h;
  return UTVM_OK;
}

utvm_err_t ai_destroy(ai_handle handle) {
  struct ai_instance_s *h = ai_live(handle);
  if (h == NULL) {
    return ai_fail(&ai_library_error, UTVM_ERR_AI_ARGUMENT, "ai_destroy: handle is not live");
  }
  h->model = NULL;
  h->activations = NULL;
  return UTVM_OK;
}

/* The live instance of handle that has input (input) or output i, else NULL with the error
 * set: the library's for a dead handle, the instance's for an index out of range. */
static struct ai_instance_s *ai_live_io(ai_handle handle, bool input, uint32_t i,
                                        const char *what) {
  struct ai_instance_s *h = ai_live(handle);
  if (h == NULL) {
    (void)ai_fail_call(NULL, what, "handle is not live");
    return NULL;
  }
  const uint32_t n = input ? h->model->n_inputs : h->model->n_outputs;
  if (i >= n) {
    (void)ai_fail_call(h, what, "index ");
    ai_text_u64(&h->error, (uint64_t)i);
    ai_text_str(&h->error, " out of range (");
    ai_text_u64(&h->error, (uint64_t)n);
    ai_text_str(&h->error, input ? " inputs)" : " outputs)");
    return NULL;
  }
  return h;
}

/* ai_set_input / ai_set_output: binds io[k] of tensor t. A failure on a live handle is the
 * instance's error, a success clears it. */
static utvm_err_t ai_set_io(ai_handle handle, bool input, uint32_t i, void *data, size_t bytes) {
  const char *what = input ? "ai_set_input" : "ai_set_output";
  struct ai_instance_s *h = ai_live_io(handle, input, i, what);
  if (h == NULL) {
    return UTVM_ERR_AI_ARGUMENT;
  }
  const uint32_t k = input ? i : (h->model->n_inputs + i);
  if (ai_io_info(h, k)->offset != UTVM_AI_OWN_BUFFER) {
    return ai_fail_call(
        h, what, "the tensor lives in the activations (model generated with --io-in-activations)");
  }
  if ((data == NULL) || (((uintptr_t)(const uint8_t *)data % UTVM_AI_IO_ALIGNMENT) != 0u)) {
    return ai_fail_call(h, what, "data is NULL or not 4-byte aligned");
  }
  if (bytes < ai_io_info(h, k)->bytes) {
    (void)ai_fail_call(h, what, "");
    ai_text_u64(&h->error, (uint64_t)bytes);
    ai_text_str(&h->error, " bytes, the tensor needs ");
    ai_text_u64(&h->error, (uint64_t)ai_io_info(h, k)->bytes);
    return UTVM_ERR_AI_ARGUMENT;
  }
  h->io[k] = data;
  ai_clear(&h->error);
  return UTVM_OK;
}

utvm_err_t ai_set_input(ai_handle handle, uint32_t i, void *data, size_t bytes) {
  return ai_set_io(handle, true, i, data, bytes);
}

utvm_err_t ai_set_output(ai_handle handle, uint32_t i, void *data, size_t bytes) {
  return ai_set_io(handle, false, i, data, bytes);
}

utvm_err_t ai_run(ai_handle handle) {
  struct ai_instance_s *h = ai_live(handle);
  if (h == NULL) {
    return ai_fail(&ai_library_error, UTVM_ERR_AI_ARGUMENT, "ai_run: handle is not live");
  }
  const uint32_t n_io = h->model->n_inputs + h->model->n_outputs;
  uint32_t k;
  for (k = 0u; k < n_io; k++) {
    if (h->io[k] == NULL) {
      (void)ai_fail(&h->error, UTVM_ERR_AI_ARGUMENT,
                    (k < h->model->n_inputs) ? "ai_run: no buffer for input "
                                             : "ai_run: no buffer for output ");
      ai_text_u64(&h->error, (uint64_t)((k < h->model->n_inputs) ? k : (k - h->model->n_inputs)));
      ai_text_str(&h->error, (k < h->model->n_inputs) ? " (ai_set_input)" : " (ai_set_output)");
      return UTVM_ERR_AI_ARGUMENT;
    }
  }
  const utvm_err_t err = h->model->network(h->activations, h->io);
  if (err != UTVM_OK) {
    (void)ai_fail(&h->error, UTVM_ERR_AI_RUN, "ai_run: ");
    ai_text_str(&h->error, h->model->name);
    ai_text_str(&h->error, ": ");
    ai_text_str(&h->error, utvm_strerror(err));
    return UTVM_ERR_AI_RUN;
  }
  ai_clear(&h->error);
  return UTVM_OK;
}

utvm_err_t ai_get_input_size(ai_handle handle, uint32_t *n_inputs) {
  struct ai_instance_s *h = ai_live(handle);
  if ((h == NULL) || (n_inputs == NULL)) {
    return ai_fail_call(h, "ai_get_input_size",
                        (h == NULL) ? "handle is not live" : "n_inputs is NULL");
  }
  *n_inputs = h->model->n_inputs;
  return UTVM_OK;
}

utvm_err_t ai_get_output_size(ai_handle handle, uint32_t *n_outputs) {
  struct ai_instance_s *h = ai_live(handle);
  if ((h == NULL) || (n_outputs == NULL)) {
    return ai_fail_call(h, "ai_get_output_size",
                        (h == NULL) ? "handle is not live" : "n_outputs is NULL");
  }
  *n_outputs = h->model->n_outputs;
  return UTVM_OK;
}

static void ai_fill_tensor(const struct ai_instance_s *h, uint32_t k, ai_tensor *t) {
  const ai_tensor_info *info = ai_io_info(h, k);
  uint32_t d;
  for (d = 0u; d < UTVM_AI_MAX_DIMS; d++) {
    t->shape[d] = (d < info->ndim) ? info->shape[d] : 0;
  }
  t->dl.data = h->io[k];
  t->dl.device.device_type = kDLCPU;
  t->dl.device.device_id = 0;
  t->dl.ndim = (int32_t)info->ndim;
  t->dl.dtype = info->dtype;
  t->dl.shape = t->shape;
  t->dl.strides = NULL;
  t->dl.byte_offset = 0u;
  t->scale = info->scale;
  t->zero_point = info->zero_point;
  t->bytes = (size_t)info->bytes;
}

/* ai_get_input / ai_get_output: tensor i of the inputs or outputs into *t. */
static utvm_err_t ai_get_io(ai_handle handle, bool input, uint32_t i, ai_tensor *t) {
  const char *what = input ? "ai_get_input" : "ai_get_output";
  struct ai_instance_s *h = ai_live_io(handle, input, i, what);
  if (h == NULL) {
    return UTVM_ERR_AI_ARGUMENT;
  }
  if (t == NULL) {
    return ai_fail_call(h, what, "tensor is NULL");
  }
  ai_fill_tensor(h, input ? i : (h->model->n_inputs + i), t);
  return UTVM_OK;
}

utvm_err_t ai_get_input(ai_handle handle, uint32_t i, ai_tensor *t) {
  return ai_get_io(handle, true, i, t);
}

utvm_err_t ai_get_output(ai_handle handle, uint32_t i, ai_tensor *t) {
  return ai_get_io(handle, false, i, t);
}

utvm_err_t ai_get_activations(ai_handle handle, uint8_t **activations) {
  struct ai_instance_s *h = ai_live(handle);
  if ((h == NULL) || (activations == NULL)) {
    return ai_fail_call(h, "ai_get_activations",
                        (h == NULL) ? "handle is not live" : "activations is NULL");
  }
  *activations = h->activations;
  return UTVM_OK;
}

utvm_err_t ai_get_activations_size(ai_handle handle, size_t *size) {
  struct ai_instance_s *h = ai_live(handle);
  if ((h == NULL) || (size == NULL)) {
    return ai_fail_call(h, "ai_get_activations_size",
                        (h == NULL) ? "handle is not live" : "size is NULL");
  }
  *size = h->model->activations_size;
  return UTVM_OK;
}

utvm_err_t ai_get_params(ai_handle handle, const uint8_t **params) {
  struct ai_instance_s *h = ai_live(handle);
  if ((h == NULL) || (params == NULL)) {
    return ai_fail_call(h, "ai_get_params", (h == NULL) ? "handle is not live" : "params is NULL");
  }
  *params = h->model->params;
  return UTVM_OK;
}

utvm_err_t ai_get_params_size(ai_handle handle, size_t *size) {
  struct ai_instance_s *h = ai_live(handle);
  if ((h == NULL) || (size == NULL)) {
    return ai_fail_call(h, "ai_get_params_size",
                        (h == NULL) ? "handle is not live" : "size is NULL");
  }
  *size = h->model->params_size;
  return UTVM_OK;
}

utvm_err_t ai_get_error(ai_handle handle, ai_error *e) {
  const ai_error *src = &ai_library_error;
  if (e == NULL) {
    return UTVM_ERR_AI_ARGUMENT;
  }
  if (handle != NULL) {
    const struct ai_instance_s *h = ai_live(handle);
    if (h == NULL) {
      return UTVM_ERR_AI_ARGUMENT;
    }
    src = &h->error;
  }
  *e = *src;
  return UTVM_OK;
}

utvm_err_t ai_reset_state(ai_handle handle) {
  struct ai_instance_s *h = ai_live(handle);
  utvm_err_t err = UTVM_OK;
  if (h == NULL) {
    err = ai_fail(&ai_library_error, UTVM_ERR_AI_ARGUMENT, "ai_reset_state: handle is not live");
  } else {
    ai_reset_states(h);
  }
  return err;
}
