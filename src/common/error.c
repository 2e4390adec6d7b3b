#include "utvm/error.h"

const char *utvm_strerror(utvm_err_t err) {
  switch (err) {
    case UTVM_OK: return "ok";
    case UTVM_ERR_FUNC_NAME_NOT_FOUND: return "function name not found";
    case UTVM_ERR_FUNC_INDEX_INVALID: return "function index invalid";
    case UTVM_ERR_REGISTRY_FULL: return "function registry full";
    case UTVM_ERR_FUNC_ALREADY_DEFINED: return "function already defined";
    case UTVM_ERR_BUFFER_TOO_SMALL: return "buffer too small";
    case UTVM_ERR_FRAMING_INVALID_STATE: return "framing: invalid state";
    case UTVM_ERR_FRAMING_SHORT_PACKET: return "framing: packet start inside a packet";
    case UTVM_ERR_FRAMING_INVALID_ESCAPE: return "framing: invalid escape";
    case UTVM_ERR_FRAMING_PAYLOAD_OVERFLOW: return "framing: more payload than declared";
    case UTVM_ERR_FRAMING_PAYLOAD_INCOMPLETE: return "framing: less payload than declared";
    case UTVM_ERR_FRAMING_LENGTH_TOO_LARGE: return "framing: length above the maximum";
    case UTVM_ERR_FRAMING_BAD_CRC: return "framing: CRC mismatch";
    case UTVM_ERR_WRITE_SHORT: return "write stream: short write";
    case UTVM_ERR_WRITE_LONG: return "write stream: long write";
    case UTVM_ERR_WRITE_FAILED: return "transport write failed";
    case UTVM_ERR_SESSION_INVALID_STATE: return "session: invalid state";
    case UTVM_ERR_SESSION_RX_BUSY: return "session: receive buffer busy";
    case UTVM_ERR_SESSION_RX_SHORT_WRITE: return "session: receive buffer short write";
    case UTVM_ERR_SESSION_BAD_ARGUMENT: return "session: bad argument";
    case UTVM_ERR_SESSION_TOO_LARGE: return "session: message above the transmit limit";
    case UTVM_ERR_SESSION_NO_RANDOM: return "session: random source failed";
    case UTVM_ERR_PLATFORM_CHECK_FAILURE: return "platform: check failure";
    case UTVM_ERR_PLATFORM_MEMORY_MANAGER_INITIALIZED: return "platform: memory manager already initialised";
    case UTVM_ERR_PLATFORM_SHUTDOWN: return "platform: shut down";
    case UTVM_ERR_PLATFORM_NO_MEMORY: return "platform: out of memory";
    case UTVM_ERR_PLATFORM_TIMER_BAD_STATE: return "platform: timer in wrong state";
    case UTVM_ERR_PLATFORM_STACK_ALLOC_BAD_FREE: return "platform: workspace freed out of order";
    case UTVM_ERR_FUNC_CALL_NUM_ARGS: return "call: wrong number of arguments";
    case UTVM_ERR_FUNC_CALL_WRONG_ARG_TYPE: return "call: wrong argument type";
    case UTVM_ERR_FUNC_CALL_NOT_IMPLEMENTED: return "call: not implemented";
    case UTVM_ERR_FUNC_CALL_INVALID_ARG: return "call: invalid argument";
    case UTVM_ERR_TIME_EVAL_BAD_HANDLE: return "time evaluator: bad handle";
    case UTVM_ERR_TIME_EVAL_TIMER_OVERFLOW: return "time evaluator: timer overflow";
    case UTVM_ERR_KERNEL_BAD_PARAM: return "kernel: bad parameter";
    case UTVM_ERR_KERNEL_BAD_SHAPE: return "kernel: bad tensor shape";
    case UTVM_ERR_KERNEL_UNSUPPORTED: return "kernel: unsupported quantization or option";
    case UTVM_ERR_KERNEL_NO_F32:
      return "kernel: float32 operators are not in this build (UTVM_HAVE_F32 0: no FPU)";
#if defined(UTVM_WITH_ACL) /* the backend's texts only where it is built: no device pays */
    case UTVM_ERR_ACL_UNSUPPORTED: return "ACL: layer not supported by Arm Compute Library";
    case UTVM_ERR_ACL_MEMORY: return "ACL: the layer's memory could not be allocated";
    case UTVM_ERR_ACL_FAILED: return "ACL: a library call failed";
#endif
    case UTVM_ERR_MODEL_ARGUMENT: return "model: bad argument";
    case UTVM_ERR_MODEL_TRUNCATED: return "model: file truncated";
    case UTVM_ERR_MODEL_MALFORMED: return "model: malformed flatbuffer";
    case UTVM_ERR_MODEL_NOT_TFLITE: return "model: not a TFLite schema 3 file";
    case UTVM_ERR_MODEL_SUBGRAPHS: return "model: not exactly one subgraph";
    case UTVM_ERR_MODEL_INDEX: return "model: index out of range";
    case UTVM_ERR_MODEL_UNSUPPORTED_OPERATOR: return "model: unsupported operator";
    case UTVM_ERR_MODEL_UNSUPPORTED_TYPE: return "model: unsupported tensor type";
    case UTVM_ERR_MODEL_BAD_OPTION: return "model: unsupported or invalid option";
    case UTVM_ERR_MODEL_BAD_OPERANDS: return "model: wrong operator inputs or outputs";
    case UTVM_ERR_MODEL_BAD_SHAPE: return "model: bad tensor shape";
    case UTVM_ERR_MODEL_BAD_QUANTIZATION: return "model: bad quantization";
    case UTVM_ERR_MODEL_BAD_DATA: return "model: bad constant data";
    case UTVM_ERR_MODEL_BAD_GRAPH: return "model: bad data flow";
    case UTVM_ERR_MODEL_PLAN_WORKSPACE: return "model: planner workspace too small";
    case UTVM_ERR_MODEL_PLAN_OVERFLOW: return "model: planner size overflow";
    case UTVM_ERR_MODEL_SCRATCH: return "model: scratch size callback failed";
    case UTVM_ERR_RUNNER_ARGUMENT: return "runner: bad argument";
    case UTVM_ERR_RUNNER_WORKSPACE: return "runner: workspace too small";
    case UTVM_ERR_RUNNER_ARENA: return "runner: arena too small or misaligned";
    case UTVM_ERR_RUNNER_OPERANDS: return "runner: operands do not fit the operator";
    case UTVM_ERR_RUNNER_UNSUPPORTED: return "runner: unsupported operand types";
    case UTVM_ERR_GRAPH_ARGUMENT: return "graph executor: bad argument";
    case UTVM_ERR_GRAPH_JSON: return "graph executor: bad graph JSON";
    case UTVM_ERR_GRAPH_LIMIT: return "graph executor: graph over a limit";
    case UTVM_ERR_GRAPH_MEMORY: return "graph executor: memory too small";
    case UTVM_ERR_GRAPH_FUNCTION: return "graph executor: operator function missing or failed";
    case UTVM_ERR_GRAPH_PARAMS: return "graph executor: bad parameter blob";
    case UTVM_ERR_GRAPH_TENSOR: return "graph executor: tensor size or dtype mismatch";
    case UTVM_ERR_AOT_ARGUMENT: return "aot executor: bad argument";
    case UTVM_ERR_AOT_METADATA: return "aot executor: bad or missing metadata";
    case UTVM_ERR_AOT_MEMORY: return "aot executor: memory too small";
    case UTVM_ERR_AOT_FUNCTION: return "aot executor: run function missing or failed";
    case UTVM_ERR_KFUNC_PARAMS: return "kfuncs: bad operator parameters";
    case UTVM_ERR_KFUNC_CAPACITY: return "kfuncs: parameter buffer too small";
    case UTVM_ERR_COMPILE_ARGUMENT: return "compile: bad argument";
    case UTVM_ERR_COMPILE_MEMORY: return "compile: out of memory";
    case UTVM_ERR_COMPILE_LIMIT: return "compile: model exceeds a graph limit";
    case UTVM_ERR_AI_ARGUMENT: return "ai: bad argument";
    case UTVM_ERR_AI_ACTIVATIONS: return "ai: activations buffer too small or misaligned";
    case UTVM_ERR_AI_INSTANCES: return "ai: no free instance";
    case UTVM_ERR_AI_MODEL: return "ai: bad model descriptor";
    case UTVM_ERR_AI_RUN: return "ai: network run failed";
    case UTVM_ERR_EMIT_ARGUMENT: return "emit: bad argument";
    case UTVM_ERR_EMIT_MEMORY: return "emit: out of memory";
    case UTVM_ERR_EMIT_WRITE: return "emit: cannot write output";
    default: return "unknown error";
  }
}
