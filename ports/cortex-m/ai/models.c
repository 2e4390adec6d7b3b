/* The standalone models of utvm_ai_models, listed for a firmware that picks one by index. */
#include <stddef.h>
#include <stdint.h>

#include "ic.h"
#include "kws.h"
#include "models.h"
#include "person.h"

static const ai_model *const models[] = {&ai_model_kws, &ai_model_ic, &ai_model_person};

const ai_model *utvm_ai_models_get(uint32_t i) {
  return (i < (uint32_t)(sizeof(models) / sizeof(models[0]))) ? models[i] : NULL;
}
