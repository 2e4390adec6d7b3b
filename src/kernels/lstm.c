/* UNIDIRECTIONAL_SEQUENCE_LSTM with int8 weights and an int16 cell (TFLM's integer LSTM,
 * lstm_eval): every step computes the four gates from the input row and the previous hidden
 * state (two matmuls rescaled to Q3.12, added with saturation, then sigmoid or tanh to Q0.15),
 * updates the cell (forget x cell + input x cell gate, saturated, optionally clipped) and the
 * hidden state (output gate x tanh(cell)), and copies the hidden state to the output. int8
 * activations sum in 32 bits (wrapping) with int32 biases, int16 ones in 64 bits with int64. */
#include <string.h>

#include "fixed_point.h"
#include "s16_accumulate.h"
#include "shape.h"
#include "utvm/kernels.h"

/* The gates' indices in utvm_lstm_weights_t and the scratch rows. */
enum { GATE_INPUT, GATE_FORGET, GATE_CELL, GATE_OUTPUT };

/* A zero point of the activation type, as value (offset false) or as minus it (offset true). */
static bool lstm_zero_point_valid(int32_t bits, int32_t v, bool offset) {
  const int32_t zp = (offset && (v != INT32_MIN)) ? -v : v; /* INT32_MIN is refused either way */
  return (bits == 16) ? ((zp >= INT16_MIN) && (zp <= INT16_MAX)) : utvm_zero_point_valid(zp);
}

/* A multiplier and shift the accumulator's rescale takes (64-bit: shift -31..7). */
static bool lstm_rescale_valid(int32_t bits, int32_t multiplier, int32_t shift) {
  return (multiplier >= 0) && utvm_shift_valid(shift) && ((bits == 8) || (shift <= 7));
}

/* Whether a * b (both at least 1) stays within int32, tested without multiplying. */
static bool lstm_fits(int32_t a, int32_t b) {
  return a <= (INT32_MAX / b);
}

static bool lstm_params_valid(const utvm_lstm_params_t *p) {
  bool ok = (p->batches >= 1) && (p->time_steps >= 1) && (p->input_size >= 1) &&
            (p->cell_size >= 1) && ((p->time_major == 0) || (p->time_major == 1)) &&
            ((p->act_bits == 8) || (p->act_bits == 16)) &&
            lstm_zero_point_valid(p->act_bits, p->input_offset, true) &&
            lstm_zero_point_valid(p->act_bits, p->hidden_zero_point, false) &&
            (p->forget_multiplier >= 0) && utvm_shift_valid(p->forget_shift) &&
            (p->update_multiplier >= 0) && utvm_shift_valid(p->update_shift) &&
            (p->output_multiplier >= 0) && utvm_shift_valid(p->output_shift) &&
            (p->cell_clip >= 0) && (p->cell_clip <= INT16_MAX) &&
            (p->cell_tanh_multiplier >= 0) && (p->cell_tanh_multiplier <= INT16_MAX) &&
            (p->cell_tanh_shift >= 0) && (p->cell_tanh_shift <= 31);
  for (int32_t g = 0; ok && (g < UTVM_LSTM_GATES); ++g) {
    ok = lstm_rescale_valid(p->act_bits, p->input_multiplier[g], p->input_shift[g]) &&
         lstm_rescale_valid(p->act_bits, p->recurrent_multiplier[g], p->recurrent_shift[g]);
  }
  if (ok) {
    ok = lstm_fits(p->batches, p->time_steps) &&
         lstm_fits(p->batches * p->time_steps, p->input_size) &&
         lstm_fits(p->batches * p->time_steps, p->cell_size) &&
         lstm_fits(p->cell_size, p->input_size) && lstm_fits(p->cell_size, p->cell_size) &&
         lstm_fits(p->cell_size, UTVM_LSTM_GATES * 2) &&
         lstm_fits(p->batches, p->cell_size * UTVM_LSTM_GATES * 2);
  }
  return ok;
}

/* Batch rows one step computes: all of them time-major, else one. */
static int32_t lstm_rows(const utvm_lstm_params_t *p) {
  return (p->time_major == 1) ? p->batches : 1;
}

size_t utvm_lstm_scratch_size(const utvm_lstm_params_t *params) {
  size_t bytes = 0u;
  if ((params != NULL) && lstm_params_valid(params)) {
    bytes = (size_t)lstm_rows(params) * (size_t)params->cell_size * (size_t)UTVM_LSTM_GATES *
            sizeof(int16_t);
  }
  return bytes;
}

/* The dot product of depth weights with activations (int8 or int16) plus offset. */
static int64_t lstm_dot(int32_t bits, const void *x, size_t first, const int8_t *w,
                        int32_t depth, int32_t offset) {
  int64_t sum = 0;
  if (bits == 16) {
    const int16_t *v = &((const int16_t *)x)[first];
    for (int32_t d = 0; d < depth; ++d) {
      sum += (int64_t)w[d] * ((int32_t)v[d] + offset);
    }
  } else {
    const int8_t *v = &((const int8_t *)x)[first];
    for (int32_t d = 0; d < depth; ++d) {
      sum += (int64_t)w[d] * ((int32_t)v[d] + offset);
    }
  }
  return sum;
}

/* One matmul of a gate: rows x depth activations (from row `first`) times the [cell, depth]
 * weights, plus the bias when given, rescaled to int16; accumulated into out with saturation
 * when add is true, else stored. */
typedef struct {
  const void *x;
  size_t first;      /* element index of the first row */
  int32_t depth;
  int32_t offset;    /* added to every activation */
  const int8_t *weights;
  const void *bias;
  int32_t multiplier;
  int32_t shift;
} lstm_matmul_t;

static void lstm_matmul(const utvm_lstm_params_t *p, const lstm_matmul_t *m, int32_t rows,
                        bool add, int16_t *out) {
  const utvm_accumulator_t acc = (p->act_bits == 16) ? UTVM_ACCUMULATE_64 : UTVM_ACCUMULATE_32;
  for (int32_t r = 0; r < rows; ++r) {
    const size_t row = m->first + ((size_t)r * (size_t)m->depth);
    for (int32_t c = 0; c < p->cell_size; ++c) {
      const int64_t sum =
          utvm_s16_bias(acc, m->bias, c) +
          lstm_dot(p->act_bits, m->x, row, &m->weights[(size_t)c * (size_t)m->depth], m->depth,
                   m->offset);
      const int16_t v =
          utvm_s16_output(acc, sum, m->multiplier, m->shift, INT16_MIN, INT16_MAX);
      const size_t o = ((size_t)r * (size_t)p->cell_size) + (size_t)c;
      out[o] = add ? (int16_t)utvm_clamp_s32((int32_t)out[o] + v, INT16_MIN, INT16_MAX) : v;
    }
  }
}

/* a x b rescaled, plus zero_point, clamped to [lo, hi] (TFLite's MulElementwise). */
static int32_t lstm_mul(int32_t a, int32_t b, int32_t multiplier, int32_t shift,
                        int32_t zero_point, int32_t lo, int32_t hi) {
  const int32_t v = utvm_multiply_by_quantized_multiplier(a * b, multiplier, shift);
  return utvm_clamp_s32(zero_point + v, lo, hi);
}

/* Where one step reads and writes: rows of input, state and output. */
typedef struct {
  size_t input;
  size_t state;
  size_t output;
} lstm_step_t;

/* The four gates of one step into gates[GATE][rows x cell]. */
static utvm_err_t lstm_gates(const utvm_lstm_params_t *p, const utvm_lstm_weights_t *w,
                             const void *input, const void *hidden, const lstm_step_t *at,
                             int16_t *gates) {
  const int32_t rows = lstm_rows(p);
  const size_t n = (size_t)rows * (size_t)p->cell_size;
  const utvm_sigmoid_s16_params_t q312 = {3, 0}; /* Q3.12 input: TFLM's power-of-two case */
  utvm_err_t err = UTVM_OK;
  for (int32_t g = 0; (g < UTVM_LSTM_GATES) && (err == UTVM_OK); ++g) {
    int16_t *out = &gates[(size_t)g * n];
    const lstm_matmul_t from_input = {input, at->input, p->input_size, p->input_offset,
                                      w->input_weights[g], w->biases[g],
                                      p->input_multiplier[g], p->input_shift[g]};
    const lstm_matmul_t from_hidden = {hidden, at->state, p->cell_size, -p->hidden_zero_point,
                                       w->recurrent_weights[g], NULL,
                                       p->recurrent_multiplier[g], p->recurrent_shift[g]};
    lstm_matmul(p, &from_input, rows, false, out);
    lstm_matmul(p, &from_hidden, rows, true, out);
    err = (g == GATE_CELL) ? utvm_tanh_s16(&q312, (int32_t)n, out, out)
                           : utvm_logistic_s16(&q312, (int32_t)n, out, out);
  }
  return err;
}

/* The cell update: cell = forget x cell + input x cell gate (saturated), clipped. */
static void lstm_update_cell(const utvm_lstm_params_t *p, const int16_t *gates, size_t n,
                             int16_t *cell) {
  const int16_t *forget = &gates[(size_t)GATE_FORGET * n];
  const int16_t *in = &gates[(size_t)GATE_INPUT * n];
  const int16_t *candidate = &gates[(size_t)GATE_CELL * n];
  const int32_t clip = (p->cell_clip > 0) ? p->cell_clip : INT16_MAX;
  const int32_t lo = (p->cell_clip > 0) ? -p->cell_clip : INT16_MIN;
  for (size_t i = 0u; i < n; ++i) {
    const int32_t kept = lstm_mul(forget[i], cell[i], p->forget_multiplier, p->forget_shift, 0,
                                  INT16_MIN, INT16_MAX);
    const int32_t added = lstm_mul(in[i], candidate[i], p->update_multiplier, p->update_shift, 0,
                                   INT16_MIN, INT16_MAX);
    const int32_t sum = utvm_clamp_s32(kept + added, INT16_MIN, INT16_MAX);
    cell[i] = (int16_t)utvm_clamp_s32(sum, lo, clip);
  }
}

/* The hidden state: output gate x tanh(cell), at the activation type. */
static utvm_err_t lstm_update_hidden(const utvm_lstm_params_t *p, int16_t *gates, size_t n,
                                     const int16_t *cell, void *hidden) {
  const utvm_sigmoid_s16_params_t tanh_cell = {p->cell_tanh_multiplier, p->cell_tanh_shift};
  int16_t *activated = &gates[(size_t)GATE_CELL * n];
  const int16_t *out_gate = &gates[(size_t)GATE_OUTPUT * n];
  const int32_t lo = (p->act_bits == 16) ? INT16_MIN : INT8_MIN;
  const int32_t hi = (p->act_bits == 16) ? INT16_MAX : INT8_MAX;
  const utvm_err_t err = utvm_tanh_s16(&tanh_cell, (int32_t)n, cell, activated);
  for (size_t i = 0u; (err == UTVM_OK) && (i < n); ++i) {
    const int32_t v = lstm_mul(activated[i], out_gate[i], p->output_multiplier, p->output_shift,
                               p->hidden_zero_point, lo, hi);
    if (p->act_bits == 16) {
      ((int16_t *)hidden)[i] = (int16_t)v;
    } else {
      ((int8_t *)hidden)[i] = (int8_t)v;
    }
  }
  return err;
}

/* Step s's rows: time-major steps are time steps over every batch, else (batch, time) pairs. */
static lstm_step_t lstm_step_at(const utvm_lstm_params_t *p, int32_t s) {
  lstm_step_t at;
  const size_t rows = (size_t)lstm_rows(p);
  const size_t b = (p->time_major == 1) ? 0u : (size_t)(s / p->time_steps);
  at.input = (size_t)s * rows * (size_t)p->input_size;
  at.output = (size_t)s * rows * (size_t)p->cell_size;
  at.state = b * (size_t)p->cell_size;
  return at;
}

utvm_err_t utvm_lstm(const utvm_lstm_params_t *params, const utvm_lstm_weights_t *weights,
                     const void *input, void *hidden_state, int16_t *cell_state, void *output,
                     void *scratch) {
  bool ok = (params != NULL) && (weights != NULL) && (input != NULL) && (hidden_state != NULL) &&
            (cell_state != NULL) && (output != NULL) && (scratch != NULL);
  for (int32_t g = 0; ok && (g < UTVM_LSTM_GATES); ++g) {
    ok = (weights->input_weights[g] != NULL) && (weights->recurrent_weights[g] != NULL) &&
         (weights->biases[g] != NULL);
  }
  if (!ok || !lstm_params_valid(params)) {
    return UTVM_ERR_KERNEL_BAD_PARAM;
  }
  const int32_t steps = (params->time_major == 1) ? params->time_steps
                                                  : (params->batches * params->time_steps);
  const size_t n = (size_t)lstm_rows(params) * (size_t)params->cell_size;
  const size_t element = (params->act_bits == 16) ? 2u : 1u;
  int16_t *gates = (int16_t *)scratch;
  utvm_err_t err = UTVM_OK;
  for (int32_t s = 0; (s < steps) && (err == UTVM_OK); ++s) {
    const lstm_step_t at = lstm_step_at(params, s);
    uint8_t *hidden = &((uint8_t *)hidden_state)[at.state * element];
    err = lstm_gates(params, weights, input, hidden_state, &at, gates);
    if (err == UTVM_OK) {
      lstm_update_cell(params, gates, n, &cell_state[at.state]);
      err = lstm_update_hidden(params, gates, n, &cell_state[at.state], hidden);
    }
    if (err == UTVM_OK) {
      (void)memcpy(&((uint8_t *)output)[at.output * element], hidden, n * element);
    }
  }
  return err;
}
