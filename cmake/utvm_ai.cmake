# utvm_add_model(<target> <model.tflite> <NAME> [TOOL <utvm>] [BUILTIN_ACTIVATIONS]
#                [IO_IN_ACTIVATIONS] [CPU <cpu>] [PARAMS <graph.params>]
#                [PATCHES auto|<N>|off] [REQUANT call|tables]
#                [DEPENDS <tool target or files>])
#
# Turns a model (a .tflite, a TVM graph JSON with PARAMS its parameter blob, or a graph MLF
# archive) into a linked standalone model for <target> (docs/AI.md): at build time runs
# `<utvm> compile <model> -o <dir> --name <NAME> --cpu <cpu>` and compiles the generated NAME.c
# and NAME_data.c into <target> (in utvm's own tree with the project's warning flags); <dir>
# (holding NAME.h) becomes an include directory and utvm::ai (the ai_ API) and utvm::kernels are
# linked. Works in utvm's tree (add_subdirectory) and after find_package(utvm), which installs
# this file. TOOL defaults to the utvm target of a native build, else to UTVM_HOST_TOOL (a host
# build's bin/utvm; find_package(utvm) looks for it in the package's bin/ and PATH);
# BUILTIN_ACTIVATIONS makes the generated code carry its activations buffer (section
# .bss.utvm.activations) and IO buffers (.bss.utvm.io); IO_IN_ACTIVATIONS puts the inputs and
# outputs inside the activations; PATCHES runs the model's first convolutions patch by patch
# (`utvm compile --patches`, default off); REQUANT tables makes the requantization entries at
# compile time (`utvm compile --requant`, default call). CPU (the core whose kernel paths and scratch to plan; `utvm
# compile` requires it) defaults to the -mcpu= of UTVM_CPU_FLAGS or CMAKE_C_FLAGS in a cross
# build, else to the installed core (utvm_CORE) after find_package(utvm), a configure error when
# there is none; host in a native build and in a Linux cross build (aarch64-linux).
function(utvm_add_model target model MODEL_NAME)
  cmake_parse_arguments(AI "BUILTIN_ACTIVATIONS;IO_IN_ACTIVATIONS" "TOOL;CPU;PARAMS;PATCHES;REQUANT"
                        "DEPENDS" ${ARGN})
  get_filename_component(model ${model} ABSOLUTE)
  if(NOT AI_TOOL)
    if(TARGET utvm AND NOT CMAKE_CROSSCOMPILING)
      set(AI_TOOL $<TARGET_FILE:utvm>)
      list(APPEND AI_DEPENDS utvm)
    elseif(UTVM_HOST_TOOL AND EXISTS "${UTVM_HOST_TOOL}")
      set(AI_TOOL ${UTVM_HOST_TOOL})
      list(APPEND AI_DEPENDS ${UTVM_HOST_TOOL})
    else()
      message(FATAL_ERROR
              "utvm_add_model: no TOOL given, no utvm target in this build and no host tool in "
              "UTVM_HOST_TOOL ('${UTVM_HOST_TOOL}'): install a host build of utvm into the "
              "package's prefix (cmake --install build/host --prefix <prefix> puts bin/utvm "
              "there) or configure with -DUTVM_HOST_TOOL=/path/to/utvm")
    endif()
  endif()
  set(flags)
  if(AI_BUILTIN_ACTIVATIONS)
    list(APPEND flags --builtin-activations)
  endif()
  if(AI_IO_IN_ACTIVATIONS)
    list(APPEND flags --io-in-activations)
  endif()
  if(AI_PATCHES)
    list(APPEND flags --patches ${AI_PATCHES})
  endif()
  if(AI_REQUANT)
    list(APPEND flags --requant ${AI_REQUANT})
  endif()
  if(NOT AI_CPU AND NOT (CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_NAME STREQUAL "Generic"))
    set(AI_CPU host)
  elseif(NOT AI_CPU)
    if("${UTVM_CPU_FLAGS} ${CMAKE_C_FLAGS}" MATCHES "-mcpu=([a-z0-9]+-[a-z0-9]+)")
      set(AI_CPU ${CMAKE_MATCH_1})
    elseif(utvm_CORE MATCHES "^cortex-")
      set(AI_CPU ${utvm_CORE}) # find_package(utvm): the core of the installed libraries
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
  target_link_libraries(${lib} PUBLIC utvm::ai utvm::kernels)
  if(COMMAND utvm_target_warnings)
    utvm_target_warnings(${lib})
  endif()
  target_sources(${target} PRIVATE $<TARGET_OBJECTS:${lib}>)
  target_include_directories(${target} PRIVATE ${dir})
  target_link_libraries(${target} PRIVATE utvm::ai utvm::kernels)
endfunction()
