# utvm-sizes.txt: the flash and RAM that each kernel and the ai_ runtime pull into a firmware
# of this build, measured at build time by linking one probe per entry point with this build's
# compiler, flags and libraries (cmake/utvm_sizes_probe.cmake), and the flags that generated
# model code is compiled with. `utvm compile MODEL --report --cpu CPU --sizes
# build/<preset>/utvm-sizes.txt` reads it (docs/AI.md, "The memory report"). Rebuilt whenever
# one of the libraries is.
set(UTVM_SIZES_TABLE ${PROJECT_BINARY_DIR}/utvm-sizes.txt)
set(sizes_core host)
if(CMAKE_CROSSCOMPILING AND UTVM_CPU_FLAGS MATCHES "-mcpu=([a-z0-9]+-[a-z0-9]+)")
  set(sizes_core ${CMAKE_MATCH_1})
endif()
string(TOUPPER "${CMAKE_BUILD_TYPE}" sizes_config)
get_directory_property(sizes_defs COMPILE_DEFINITIONS)
list(TRANSFORM sizes_defs PREPEND -D)
string(JOIN " " sizes_flags ${CMAKE_C_FLAGS} ${CMAKE_C_FLAGS_${sizes_config}} ${sizes_defs})
add_custom_command(
  OUTPUT ${UTVM_SIZES_TABLE}
  COMMAND ${CMAKE_COMMAND} -DCC=${CMAKE_C_COMPILER} -DCORE=${sizes_core}
          "-DFLAGS=${sizes_flags} $<JOIN:$<TARGET_PROPERTY:utvm_tvm_headers,INTERFACE_COMPILE_OPTIONS>, > -std=c99"
          "-DLINK_FLAGS=${CMAKE_EXE_LINKER_FLAGS} ${CMAKE_EXE_LINKER_FLAGS_${sizes_config}}"
          "-DLIBS=$<TARGET_FILE:utvm_ai>|$<TARGET_FILE:utvm_kernels>|$<TARGET_FILE:utvm_common>"
          "-DINCLUDES=${PROJECT_SOURCE_DIR}/include|${PROJECT_BINARY_DIR}/generated/dlpack-include"
          -DWORK=${PROJECT_BINARY_DIR}/sizes-probes -DOUT=${UTVM_SIZES_TABLE}
          -P ${PROJECT_SOURCE_DIR}/cmake/utvm_sizes_probe.cmake
  DEPENDS utvm_ai utvm_kernels utvm_common ${PROJECT_SOURCE_DIR}/cmake/utvm_sizes_probe.cmake
  COMMENT "Measuring the kernels and the ai_ runtime per entry point (utvm-sizes.txt)"
  VERBATIM)
add_custom_target(utvm_sizes ALL DEPENDS ${UTVM_SIZES_TABLE})
