# The library targets a firmware links, under the names it uses both after add_subdirectory(utvm)
# and after find_package(utvm): utvm::<name>, the exported name of utvm_<library>.
#   utvm::rpc_server (utvm_minrpc: the RPC server, with crt, session, framing, common below it),
#   utvm::crt, utvm::graph, utvm::aot, utvm::kfuncs, utvm::kernels, utvm::model, utvm::runner,
#   utvm::ai, utvm::session, utvm::framing, utvm::common and utvm::tvm_headers (include/tvm and
#   dlpack/dlpack.h, for code built against the TVM C ABI).
set(UTVM_EXPORTED_LIBRARIES common framing session crt minrpc graph aot kernels model runner
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
