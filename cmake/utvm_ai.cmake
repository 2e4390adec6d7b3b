# utvm_add_model(<target> <model.tflite> <NAME> [TOOL <utvm>] [BUILTIN_ACTIVATIONS]
#                [IO_IN_ACTIVATIONS] [CPU <cpu>] [PARAMS <graph.params>]
#                [DEPENDS <tool target or files>])
#
# Turns a model (a .tflite, a TVM graph JSON with PARAMS its parameter blob, or a graph MLF
# archive) into a linked standalone model for <target> (docs/AI.md): at build time runs
# `<utvm> compile <model> -o <dir> --name <NAME> --cpu <cpu>` and compiles the generated NAME.c
# and NAME_data.c into <target> with the project's warning flags; <dir> (holding NAME.h)
# becomes an include directory and utvm_ai (the ai_ API) and utvm_kernels are linked. TOOL
# defaults to the utvm target of this build (a cross build passes a host build's bin/utvm);
# BUILTIN_ACTIVATIONS makes the generated code carry its activations buffer (section
# .bss.utvm.activations) and IO buffers (.bss.utvm.io); IO_IN_ACTIVATIONS puts the inputs and
# outputs inside the activations. CPU (the core whose kernel paths and scratch to plan; `utvm
# compile` requires it) defaults to the -mcpu= of UTVM_CPU_FLAGS or CMAKE_C_FLAGS in a cross
# build (a configure error when neither has one), else host.
function(utvm_add_model target model MODEL_NAME)
  cmake_parse_arguments(AI "BUILTIN_ACTIVATIONS;IO_IN_ACTIVATIONS" "TOOL;CPU;PARAMS" "DEPENDS"
                        ${ARGN})
  get_filename_component(model ${model} ABSOLUTE)
  if(NOT AI_TOOL)
    if(NOT TARGET utvm)
      message(FATAL_ERROR "utvm_add_model: no TOOL given and no utvm target in this build")
    endif()
    set(AI_TOOL $<TARGET_FILE:utvm>)
    list(APPEND AI_DEPENDS utvm)
  endif()
  set(flags)
  if(AI_BUILTIN_ACTIVATIONS)
    list(APPEND flags --builtin-activations)
  endif()
  if(AI_IO_IN_ACTIVATIONS)
    list(APPEND flags --io-in-activations)
  endif()
  if(NOT AI_CPU AND NOT CMAKE_CROSSCOMPILING)
    set(AI_CPU host)
  elseif(NOT AI_CPU)
    if("${UTVM_CPU_FLAGS} ${CMAKE_C_FLAGS}" MATCHES "-mcpu=([a-z0-9]+-[a-z0-9]+)")
      set(AI_CPU ${CMAKE_MATCH_1})
    else()
      message(FATAL_ERROR "utvm_add_model(${target} ... ${MODEL_NAME}): no -mcpu= in "
              "UTVM_CPU_FLAGS or CMAKE_C_FLAGS; pass CPU <core> (cortex-m4, ...)")
    endif()
  endif()
  list(APPEND flags --cpu ${AI_CPU})
  if(AI_PARAMS)
    get_filename_component(AI_PARAMS ${AI_PARAMS} ABSOLUTE)
    list(APPEND flags --params ${AI_PARAMS})
    list(APPEND AI_DEPENDS ${AI_PARAMS})
  endif()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/ai/${target}_${MODEL_NAME})
  set(sources ${dir}/${MODEL_NAME}.c ${dir}/${MODEL_NAME}_data.c)
  add_custom_command(
    OUTPUT ${sources} ${dir}/${MODEL_NAME}.h
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${AI_TOOL} compile ${model} -o ${dir} --name ${MODEL_NAME} ${flags}
    DEPENDS ${model} ${AI_DEPENDS}
    COMMENT "utvm compile ${MODEL_NAME} (standalone C)"
    VERBATIM)
  set(lib ${target}_ai_${MODEL_NAME})
  add_library(${lib} OBJECT ${sources})
  target_include_directories(${lib} PUBLIC ${dir})
  target_link_libraries(${lib} PUBLIC utvm_ai utvm_kernels)
  utvm_target_warnings(${lib})
  target_sources(${target} PRIVATE $<TARGET_OBJECTS:${lib}>)
  target_include_directories(${target} PRIVATE ${dir})
  target_link_libraries(${target} PRIVATE utvm_ai utvm_kernels)
endfunction()
