/* Names in the runner's error texts (the builder is utvm/text.h). */
#include "runner_internal.h"

const char *runner_type_name(utvm_model_type_t type) {
  const char *name;
  switch (type) {
    case UTVM_MODEL_FLOAT32: name = "float32"; break;
    case UTVM_MODEL_INT32: name = "int32"; break;
    case UTVM_MODEL_UINT8: name = "uint8"; break;
    case UTVM_MODEL_INT64: name = "int64"; break;
    case UTVM_MODEL_BOOL: name = "bool"; break;
    case UTVM_MODEL_INT16: name = "int16"; break;
    case UTVM_MODEL_INT8: name = "int8"; break;
    default: name = "?"; break;
  }
  return name;
}
