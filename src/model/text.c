/*
 * Error texts of the model layer: the TFLite operator names and how an operator is named in a
 * text (the builder is utvm/text.h).
 */
#include <stddef.h>
#include <stdint.h>

#include "utvm/model.h"

/* Every BuiltinOperator name from 0 (ADD) to 161 (RIGHT_SHIFT), in code order, each followed
 * by a NUL. Without error texts (UTVM_NO_ERROR_TEXTS) only the names of the supported
 * operators are kept (utvm_model_op_name gives "?" for the others). */
#ifndef UTVM_NO_ERROR_TEXTS
#define OP_NAME_COUNT 162u
static const char op_names[] =
    "ADD\0" "AVERAGE_POOL_2D\0" "CONCATENATION\0" "CONV_2D\0" "DEPTHWISE_CONV_2D\0"
    "DEPTH_TO_SPACE\0" "DEQUANTIZE\0" "EMBEDDING_LOOKUP\0" "FLOOR\0" "FULLY_CONNECTED\0"
    "HASHTABLE_LOOKUP\0" "L2_NORMALIZATION\0" "L2_POOL_2D\0" "LOCAL_RESPONSE_NORMALIZATION\0"
    "LOGISTIC\0" "LSH_PROJECTION\0" "LSTM\0" "MAX_POOL_2D\0" "MUL\0" "RELU\0" "RELU_N1_TO_1\0"
    "RELU6\0" "RESHAPE\0" "RESIZE_BILINEAR\0" "RNN\0" "SOFTMAX\0" "SPACE_TO_DEPTH\0" "SVDF\0"
    "TANH\0" "CONCAT_EMBEDDINGS\0" "SKIP_GRAM\0" "CALL\0" "CUSTOM\0" "EMBEDDING_LOOKUP_SPARSE\0"
    "PAD\0" "UNIDIRECTIONAL_SEQUENCE_RNN\0" "GATHER\0" "BATCH_TO_SPACE_ND\0"
    "SPACE_TO_BATCH_ND\0" "TRANSPOSE\0" "MEAN\0" "SUB\0" "DIV\0" "SQUEEZE\0"
    "UNIDIRECTIONAL_SEQUENCE_LSTM\0" "STRIDED_SLICE\0" "BIDIRECTIONAL_SEQUENCE_RNN\0" "EXP\0"
    "TOPK_V2\0" "SPLIT\0" "LOG_SOFTMAX\0" "DELEGATE\0" "BIDIRECTIONAL_SEQUENCE_LSTM\0" "CAST\0"
    "PRELU\0" "MAXIMUM\0" "ARG_MAX\0" "MINIMUM\0" "LESS\0" "NEG\0" "PADV2\0" "GREATER\0"
    "GREATER_EQUAL\0" "LESS_EQUAL\0" "SELECT\0" "SLICE\0" "SIN\0" "TRANSPOSE_CONV\0"
    "SPARSE_TO_DENSE\0" "TILE\0" "EXPAND_DIMS\0" "EQUAL\0" "NOT_EQUAL\0" "LOG\0" "SUM\0"
    "SQRT\0" "RSQRT\0" "SHAPE\0" "POW\0" "ARG_MIN\0" "FAKE_QUANT\0" "REDUCE_PROD\0"
    "REDUCE_MAX\0" "PACK\0" "LOGICAL_OR\0" "ONE_HOT\0" "LOGICAL_AND\0" "LOGICAL_NOT\0"
    "UNPACK\0" "REDUCE_MIN\0" "FLOOR_DIV\0" "REDUCE_ANY\0" "SQUARE\0" "ZEROS_LIKE\0" "FILL\0"
    "FLOOR_MOD\0" "RANGE\0" "RESIZE_NEAREST_NEIGHBOR\0" "LEAKY_RELU\0" "SQUARED_DIFFERENCE\0"
    "MIRROR_PAD\0" "ABS\0" "SPLIT_V\0" "UNIQUE\0" "CEIL\0" "REVERSE_V2\0" "ADD_N\0"
    "GATHER_ND\0" "COS\0" "WHERE\0" "RANK\0" "ELU\0" "REVERSE_SEQUENCE\0" "MATRIX_DIAG\0"
    "QUANTIZE\0" "MATRIX_SET_DIAG\0" "ROUND\0" "HARD_SWISH\0" "IF\0" "WHILE\0"
    "NON_MAX_SUPPRESSION_V4\0" "NON_MAX_SUPPRESSION_V5\0" "SCATTER_ND\0" "SELECT_V2\0"
    "DENSIFY\0" "SEGMENT_SUM\0" "BATCH_MATMUL\0" "PLACEHOLDER_FOR_GREATER_OP_CODES\0" "CUMSUM\0"
    "CALL_ONCE\0" "BROADCAST_TO\0" "RFFT2D\0" "CONV_3D\0" "IMAG\0" "REAL\0" "COMPLEX_ABS\0"
    "HASHTABLE\0" "HASHTABLE_FIND\0" "HASHTABLE_IMPORT\0" "HASHTABLE_SIZE\0" "REDUCE_ALL\0"
    "CONV_3D_TRANSPOSE\0" "VAR_HANDLE\0" "READ_VARIABLE\0" "ASSIGN_VARIABLE\0"
    "BROADCAST_ARGS\0" "RANDOM_STANDARD_NORMAL\0" "BUCKETIZE\0" "RANDOM_UNIFORM\0"
    "MULTINOMIAL\0" "GELU\0" "DYNAMIC_UPDATE_SLICE\0" "RELU_0_TO_1\0" "UNSORTED_SEGMENT_PROD\0"
    "UNSORTED_SEGMENT_MAX\0" "UNSORTED_SEGMENT_SUM\0" "ATAN2\0" "UNSORTED_SEGMENT_MIN\0"
    "SIGN\0" "BITCAST\0" "BITWISE_XOR\0" "RIGHT_SHIFT\0";

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
/* The supported operators' codes and names. */
#define OP_NAME_(name, code, op) {(code), #name},
static const struct {
  int32_t code;
  const char *name;
} op_names[] = {UTVM_OP_LIST(OP_NAME_)};
#undef OP_NAME_

const char *utvm_model_op_name(int32_t code) {
  for (size_t i = 0u; i < (sizeof(op_names) / sizeof(op_names[0])); i++) {
    if (op_names[i].code == code) {
      return op_names[i].name;
    }
  }
  return "?";
}
#endif

void utvm_model_text_operator(utvm_text_t *t, uint32_t index, int32_t code) {
  const char *name = utvm_model_op_name(code);
  utvm_text_str(t, "operator ");
  utvm_text_u64(t, index);
  utvm_text_str(t, " (");
  if (name[0] == '?') {
    utvm_text_str(t, "builtin ");
    utvm_text_i64(t, code);
  } else {
    utvm_text_str(t, name);
  }
  utvm_text_str(t, "): ");
}
