/*
 * Error texts of the model layer: a bounded string builder and the TFLite operator names.
 */
#include <stddef.h>
#include <stdint.h>

#include "model_internal.h"
#include "utvm/model.h"

/* Every BuiltinOperator name from 0 (ADD) to 161 (RIGHT_SHIFT), in code order, each followed
 * by a NUL. Without error texts (UTVM_NO_ERROR_TEXTS) only the names of the supported
 * operators are kept (utvm_model_op_name gives "?" for the others). */
#ifndef UTVM_NO_ERROR_TEXTS
#define OP_NAME_COUNT 162u
static const char op_names[] =
    "ADD\0AVERAGE_POOL_2D\0CONCATENATION\0CONV_2D\0DEPTHWISE_CONV_2D\0DEPTH_TO_SPACE\0"
    "DEQUANTIZE\0EMBEDDING_LOOKUP\0FLOOR\0FULLY_CONNECTED\0HASHTABLE_LOOKUP\0"
    "L2_NORMALIZATION\0L2_POOL_2D\0LOCAL_RESPONSE_NORMALIZATION\0LOGISTIC\0LSH_PROJECTION\0"
    "LSTM\0MAX_POOL_2D\0MUL\0RELU\0RELU_N1_TO_1\0RELU6\0RESHAPE\0RESIZE_BILINEAR\0RNN\0"
    "SOFTMAX\0SPACE_TO_DEPTH\0SVDF\0TANH\0CONCAT_EMBEDDINGS\0SKIP_GRAM\0CALL\0CUSTOM\0"
    "EMBEDDING_LOOKUP_SPARSE\0PAD\0UNIDIRECTIONAL_SEQUENCE_RNN\0GATHER\0BATCH_TO_SPACE_ND\0"
    "SPACE_TO_BATCH_ND\0TRANSPOSE\0MEAN\0SUB\0DIV\0SQUEEZE\0UNIDIRECTIONAL_SEQUENCE_LSTM\0"
    "STRIDED_SLICE\0BIDIRECTIONAL_SEQUENCE_RNN\0EXP\0TOPK_V2\0SPLIT\0LOG_SOFTMAX\0DELEGATE\0"
    "BIDIRECTIONAL_SEQUENCE_LSTM\0CAST\0PRELU\0MAXIMUM\0ARG_MAX\0MINIMUM\0LESS\0NEG\0PADV2\0"
    "GREATER\0GREATER_EQUAL\0LESS_EQUAL\0SELECT\0SLICE\0SIN\0TRANSPOSE_CONV\0SPARSE_TO_DENSE\0"
    "TILE\0EXPAND_DIMS\0EQUAL\0NOT_EQUAL\0LOG\0SUM\0SQRT\0RSQRT\0SHAPE\0POW\0ARG_MIN\0"
    "FAKE_QUANT\0REDUCE_PROD\0REDUCE_MAX\0PACK\0LOGICAL_OR\0ONE_HOT\0LOGICAL_AND\0"
    "LOGICAL_NOT\0UNPACK\0REDUCE_MIN\0FLOOR_DIV\0REDUCE_ANY\0SQUARE\0ZEROS_LIKE\0FILL\0"
    "FLOOR_MOD\0RANGE\0RESIZE_NEAREST_NEIGHBOR\0LEAKY_RELU\0SQUARED_DIFFERENCE\0MIRROR_PAD\0"
    "ABS\0SPLIT_V\0UNIQUE\0CEIL\0REVERSE_V2\0ADD_N\0GATHER_ND\0COS\0WHERE\0RANK\0ELU\0"
    "REVERSE_SEQUENCE\0MATRIX_DIAG\0QUANTIZE\0MATRIX_SET_DIAG\0ROUND\0HARD_SWISH\0IF\0WHILE\0"
    "NON_MAX_SUPPRESSION_V4\0NON_MAX_SUPPRESSION_V5\0SCATTER_ND\0SELECT_V2\0DENSIFY\0"
    "SEGMENT_SUM\0BATCH_MATMUL\0PLACEHOLDER_FOR_GREATER_OP_CODES\0CUMSUM\0CALL_ONCE\0"
    "BROADCAST_TO\0RFFT2D\0CONV_3D\0IMAG\0REAL\0COMPLEX_ABS\0HASHTABLE\0HASHTABLE_FIND\0"
    "HASHTABLE_IMPORT\0HASHTABLE_SIZE\0REDUCE_ALL\0CONV_3D_TRANSPOSE\0VAR_HANDLE\0"
    "READ_VARIABLE\0ASSIGN_VARIABLE\0BROADCAST_ARGS\0RANDOM_STANDARD_NORMAL\0BUCKETIZE\0"
    "RANDOM_UNIFORM\0MULTINOMIAL\0GELU\0DYNAMIC_UPDATE_SLICE\0RELU_0_TO_1\0"
    "UNSORTED_SEGMENT_PROD\0UNSORTED_SEGMENT_MAX\0UNSORTED_SEGMENT_SUM\0ATAN2\0"
    "UNSORTED_SEGMENT_MIN\0SIGN\0BITCAST\0BITWISE_XOR\0RIGHT_SHIFT\0";

const char *utvm_model_op_name(int32_t code) {
  const char *p = op_names;
  uint32_t i;
  if (code < 0 || (uint32_t)code >= OP_NAME_COUNT) {
    return "?";
  }
  /* Skip code names; each step is bounded by the table's length. */
  for (i = 0u; i < (uint32_t)code; i++) {
    while (*p != '\0') {
      p++;
    }
    p++;
  }
  return p;
}
#else
const char *utvm_model_op_name(int32_t code) {
  switch (code) {
    case (int32_t)UTVM_MODEL_OP_ADD: return "ADD";
    case (int32_t)UTVM_MODEL_OP_AVERAGE_POOL_2D: return "AVERAGE_POOL_2D";
    case (int32_t)UTVM_MODEL_OP_CONCATENATION: return "CONCATENATION";
    case (int32_t)UTVM_MODEL_OP_CONV_2D: return "CONV_2D";
    case (int32_t)UTVM_MODEL_OP_DEPTHWISE_CONV_2D: return "DEPTHWISE_CONV_2D";
    case (int32_t)UTVM_MODEL_OP_DEQUANTIZE: return "DEQUANTIZE";
    case (int32_t)UTVM_MODEL_OP_FULLY_CONNECTED: return "FULLY_CONNECTED";
    case (int32_t)UTVM_MODEL_OP_LOGISTIC: return "LOGISTIC";
    case (int32_t)UTVM_MODEL_OP_MAX_POOL_2D: return "MAX_POOL_2D";
    case (int32_t)UTVM_MODEL_OP_MUL: return "MUL";
    case (int32_t)UTVM_MODEL_OP_RESHAPE: return "RESHAPE";
    case (int32_t)UTVM_MODEL_OP_SOFTMAX: return "SOFTMAX";
    case (int32_t)UTVM_MODEL_OP_TANH: return "TANH";
    case (int32_t)UTVM_MODEL_OP_PAD: return "PAD";
    case (int32_t)UTVM_MODEL_OP_MEAN: return "MEAN";
    case (int32_t)UTVM_MODEL_OP_SQUEEZE: return "SQUEEZE";
    case (int32_t)UTVM_MODEL_OP_QUANTIZE: return "QUANTIZE";
    default: return "?";
  }
}
#endif

void utvm_model_text_init(utvm_model_text_t *t, char *buf, size_t cap) {
  t->buf = (cap > 0u) ? buf : NULL;
  t->len = 0u;
  t->cap = cap;
  if (t->buf != NULL) {
    t->buf[0] = '\0';
  }
}

static void text_char(utvm_model_text_t *t, char c) {
  if (t->buf != NULL && t->len + 1u < t->cap) {
    t->buf[t->len] = c;
    t->len++;
    t->buf[t->len] = '\0';
  }
}

void utvm_model_text_str(utvm_model_text_t *t, const char *s) {
  size_t i;
  if (t->buf == NULL || s == NULL) {
    return;
  }
  /* Bounded by the capacity: characters past it are dropped. */
  for (i = 0u; s[i] != '\0' && t->len + 1u < t->cap; i++) {
    text_char(t, s[i]);
  }
}

void utvm_model_text_u32(utvm_model_text_t *t, uint32_t v) {
  char digits[10];
  uint32_t n = 0u;
  uint32_t x = v;
  do {
    digits[n] = (char)('0' + (char)(x % 10u));
    n++;
    x /= 10u;
  } while (x != 0u && n < 10u);
  while (n > 0u) {
    n--;
    text_char(t, digits[n]);
  }
}

void utvm_model_text_i32(utvm_model_text_t *t, int32_t v) {
  if (v < 0) {
    text_char(t, '-');
    utvm_model_text_u32(t, 0u - (uint32_t)v);
  } else {
    utvm_model_text_u32(t, (uint32_t)v);
  }
}

void utvm_model_text_hex(utvm_model_text_t *t, uint32_t v) {
  static const char hex[] = "0123456789abcdef";
  uint32_t shift = 28u;
  bool started = false;
  utvm_model_text_str(t, "0x");
  for (;;) {
    uint32_t nibble = (v >> shift) & 0xFu;
    if (nibble != 0u || started || shift == 0u) {
      started = true;
      text_char(t, hex[nibble]);
    }
    if (shift == 0u) {
      break;
    }
    shift -= 4u;
  }
}

void utvm_model_text_operator(utvm_model_text_t *t, uint32_t index, int32_t code) {
  utvm_model_text_str(t, "operator ");
  utvm_model_text_u32(t, index);
  utvm_model_text_str(t, " (");
  if (utvm_model_op_name(code)[0] == '?') {
    utvm_model_text_str(t, "builtin ");
    utvm_model_text_i32(t, code);
  } else {
    utvm_model_text_str(t, utvm_model_op_name(code));
  }
  utvm_model_text_str(t, "): ");
}
