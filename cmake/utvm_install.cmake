# Install rules and the CMake package (UTVM_INSTALL; on by default when utvm is the top-level
# project): `cmake --install <build> --prefix <prefix>` installs
#   include/                       utvm/*.h, tvm/..., dlpack/dlpack.h
#   lib/ or lib/<core>/            the static libraries (lib/<core>/ in a cross build: the core of
#                                  UTVM_CPU_FLAGS' -mcpu=, e.g. lib/cortex-m4/), so the builds of
#                                  several cores share one prefix
#   lib/cmake/utvm/                utvmConfig.cmake, utvmConfigVersion.cmake and one
#                                  utvm-targets-<core>.cmake per installed core ("host" for a
#                                  native build); utvm_cortex_m.cmake
#   share/utvm/cortex-m/           the Cortex-M port's sources, sections.ld and in-tree boards
#                                  (cross builds), for utvm_cortex_m_port
# find_package(utvm 0.1 REQUIRED) then gives the utvm:: targets of cmake/utvm_targets.cmake.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if(CMAKE_CROSSCOMPILING)
  string(REGEX MATCH "-mcpu=([^ ]+)" cpu_flag "${UTVM_CPU_FLAGS}")
  if(NOT cpu_flag)
    message(FATAL_ERROR "UTVM_INSTALL: no -mcpu= in UTVM_CPU_FLAGS ('${UTVM_CPU_FLAGS}') to name "
                        "the core of the installed libraries")
  endif()
  set(UTVM_INSTALL_CORE ${CMAKE_MATCH_1})
  set(library_dir ${CMAKE_INSTALL_LIBDIR}/${UTVM_INSTALL_CORE})
else()
  set(UTVM_INSTALL_CORE host)
  set(library_dir ${CMAKE_INSTALL_LIBDIR})
endif()
set(package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/utvm)

set(installed_targets "")
foreach(library IN LISTS UTVM_EXPORTED_LIBRARIES)
  list(APPEND installed_targets utvm_${library})
endforeach()
install(TARGETS ${installed_targets} EXPORT utvm-targets-${UTVM_INSTALL_CORE}
        ARCHIVE DESTINATION ${library_dir})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/utvm ${PROJECT_SOURCE_DIR}/include/tvm
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${PROJECT_BINARY_DIR}/generated/dlpack-include/dlpack/dlpack.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/dlpack)
install(EXPORT utvm-targets-${UTVM_INSTALL_CORE} NAMESPACE utvm:: DESTINATION ${package_dir})

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/utvmConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/utvmConfig.cmake
                              INSTALL_DESTINATION ${package_dir}
                              PATH_VARS CMAKE_INSTALL_DATADIR)
# 0.x: a minor version may change the API, so 0.1 accepts 0.1.* only.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/utvmConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${PROJECT_BINARY_DIR}/utvmConfig.cmake ${PROJECT_BINARY_DIR}/utvmConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/utvm_cortex_m.cmake
        DESTINATION ${package_dir})

if(CMAKE_CROSSCOMPILING)
  set(port_dir ${PROJECT_SOURCE_DIR}/ports/cortex-m)
  install(FILES ${port_dir}/startup.c ${port_dir}/crash.c ${port_dir}/format.c
                ${port_dir}/rx_ring.c ${port_dir}/timer.c ${port_dir}/port.h ${port_dir}/cortex_m.h
                ${port_dir}/sections.ld
          DESTINATION ${CMAKE_INSTALL_DATADIR}/utvm/cortex-m)
  install(DIRECTORY ${port_dir}/drivers ${port_dir}/boards
          DESTINATION ${CMAKE_INSTALL_DATADIR}/utvm/cortex-m)
endif()
