# Running this build's programs, natively or in a Linux cross build (the aarch64-linux preset)
# under its CMAKE_CROSSCOMPILING_EMULATOR (qemu-aarch64). ctest and custom commands prepend the
# emulator to a target named as the command themselves; these cover the other cases.
#
# UTVM_BUILD_TOOL (with UTVM_BUILD_TOOL_DEPENDS for the custom commands' DEPENDS): the utvm that
# compiles models at build time (the AOT server's archive, the tests' generated models). A native
# build runs its own; a Linux cross build the host build's, UTVM_HOST_TOOL (default
# build/host/bin/utvm: `cmake --preset host && cmake --build build/host --target utvm` first),
# as the board presets do.
if(NOT UTVM_BARE_METAL)
  if(CMAKE_CROSSCOMPILING)
    set(UTVM_HOST_TOOL ${PROJECT_SOURCE_DIR}/build/host/bin/utvm CACHE FILEPATH
        "utvm host tool that compiles models at build time")
    if((UTVM_BUILD_TESTS OR UTVM_BUILD_TOOLS) AND NOT EXISTS ${UTVM_HOST_TOOL})
      message(FATAL_ERROR "UTVM_HOST_TOOL '${UTVM_HOST_TOOL}' not found: build the host tool "
              "first (cmake --preset host && cmake --build build/host --target utvm) or "
              "configure with -DUTVM_HOST_TOOL=/path/to/utvm")
    endif()
    set(UTVM_BUILD_TOOL ${UTVM_HOST_TOOL})
    set(UTVM_BUILD_TOOL_DEPENDS ${UTVM_HOST_TOOL})
  else()
    set(UTVM_BUILD_TOOL $<TARGET_FILE:utvm>)
    set(UTVM_BUILD_TOOL_DEPENDS utvm)
  endif()
endif()

# utvm_run_command(<var> <target> [RESTART_STATUS <n>]): sets <var> to what runs the executable
# <target> when a script or another program starts it (a Python test, an "exec:" transport's
# /bin/sh -c): its file in a native build; with an emulator, the shell script emulated/<target>
# of the build directory, which runs it under the emulator with the script's arguments and, with
# RESTART_STATUS, starts it again (same arguments and pipes) whenever it exits with status <n>:
# the posix server's reboot when it cannot execute itself (ports/posix/main.c).
function(utvm_run_command var target)
  cmake_parse_arguments(RUN "" "RESTART_STATUS" "" ${ARGN})
  if(CMAKE_CROSSCOMPILING AND CMAKE_CROSSCOMPILING_EMULATOR)
    set(script ${PROJECT_BINARY_DIR}/emulated/${target})
    list(JOIN CMAKE_CROSSCOMPILING_EMULATOR " " emulator)
    set(run "${emulator} $<TARGET_FILE:${target}> \"$@\"")
    if(DEFINED RUN_RESTART_STATUS)
      string(CONCAT content "#!/bin/sh\nwhile :; do\n  ${run}\n  status=$?\n"
             "  [ \"$status\" -eq ${RUN_RESTART_STATUS} ] || exit \"$status\"\ndone\n")
    else()
      set(content "#!/bin/sh\nexec ${run}\n")
    endif()
    file(GENERATE OUTPUT ${script} CONTENT "${content}"
         FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                          WORLD_READ WORLD_EXECUTE)
    set(${var} ${script} PARENT_SCOPE)
  else()
    set(${var} $<TARGET_FILE:${target}> PARENT_SCOPE)
  endif()
endfunction()
