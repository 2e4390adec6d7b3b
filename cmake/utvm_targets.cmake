# The library targets a firmware links, under the names it uses both after add_subdirectory(utvm)
# and after find_package(utvm): utvm::<name>, the exported name of utvm_<library>.
#   utvm::rpc_server (utvm_minrpc: the RPC server, with crt, session, framing, common below it),
#   utvm::crt, utvm::graph, utvm::aot, utvm::kfuncs, utvm::kernels, utvm::model, utvm::ops,
#   utvm::runner,
#   utvm::ai, utvm::session, utvm::framing, utvm::common and utvm::tvm_headers (include/tvm and
#   dlpack/dlpack.h, for code built against the TVM C ABI).
set(UTVM_EXPORTED_LIBRARIES common framing session crt minrpc graph aot kernels model ops runner
    kfuncs ai tvm_headers)
foreach(library IN LISTS UTVM_EXPORTED_LIBRARIES)
  if(library STREQUAL "minrpc")
    set(export_name rpc_server)
  else()
    set(export_name ${library})
  endif()
  set_target_properties(utvm_${library} PROPERTIES EXPORT_NAME ${export_name})
  add_library(utvm::${export_name} ALIAS utvm_${library})
endforeach()
# arm-none-eabi's newlib is built with short enums and exchanges no enum with utvm, while utvm
# builds with -fno-short-enums (utvm::tvm_headers): the linker's enum-size notes are noise, so
# whatever links the TVM headers links with --no-enum-size-warning, also after find_package with
# a toolchain file of one's own.
if(CMAKE_CROSSCOMPILING AND CMAKE_C_COMPILER_ID STREQUAL "GNU"
   AND CMAKE_SYSTEM_PROCESSOR MATCHES "^arm")
  target_link_options(utvm_tvm_headers INTERFACE LINKER:--no-enum-size-warning)
endif()
