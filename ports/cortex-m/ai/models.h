/* The standalone models built into utvm_ai_models (KWS, IC, person detection). */
#ifndef UTVM_AI_MODELS_H
#define UTVM_AI_MODELS_H

#include <stdint.h>

#include "utvm/ai.h"

/* Model i (0 KWS, 1 IC, 2 person detection), or NULL past the last. */
const ai_model *utvm_ai_models_get(uint32_t i);

#endif /* UTVM_AI_MODELS_H */
