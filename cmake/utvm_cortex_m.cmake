# The reusable Cortex-M port (ports/cortex-m) for any board: in-tree boards and a firmware
# project's own board use the same function. Included by the top-level CMakeLists.txt and, from
# an installed package, by utvmConfig.cmake (cross builds), which sets UTVM_CORTEX_M_PORT_DIR to
# the installed copy of the port's sources.
#
# utvm_cortex_m_port(<target> BOARD_DIR <dir> [LINKER_SCRIPT <file>] [DRIVERS <source>...])
#   Adds the OBJECT library <target>: start-up code and vector table (startup.c), SysTick 64-bit
#   timer and the TVM platform timer hooks (timer.c), UART receive ring (rx_ring.c), crash
#   record in .noinit and TVMPlatformAbort (crash.c), TVMLogf / formatting (format.c), plus
#   DRIVERS: paths relative to the port directory (drivers/cmsdk_uart.c, drivers/stm32_usart.c,
#   drivers/cmsdk_watchdog.c) or absolute paths of the board's own drivers.
#   BOARD_DIR holds board.h (the UTVM_BOARD_* macros: README.md, "Porting to your board");
#   LINKER_SCRIPT (default BOARD_DIR/linker.ld) defines the memory regions and includes the
#   port's sections.ld. An executable linking <target> gets the objects, the include
#   directories (port.h, cortex_m.h, board.h), utvm::common and utvm::tvm_headers, and the link
#   options -nostartfiles, -T<LINKER_SCRIPT> and -L<port directory> (for sections.ld); the
#   script is in the target's UTVM_LINKER_SCRIPT property (for LINK_DEPENDS).
if(NOT DEFINED UTVM_CORTEX_M_PORT_DIR)
  set(UTVM_CORTEX_M_PORT_DIR ${CMAKE_CURRENT_LIST_DIR}/../ports/cortex-m)
endif()
get_filename_component(UTVM_CORTEX_M_PORT_DIR ${UTVM_CORTEX_M_PORT_DIR} ABSOLUTE)
set_property(GLOBAL PROPERTY UTVM_CORTEX_M_PORT_DIR ${UTVM_CORTEX_M_PORT_DIR})

function(utvm_cortex_m_port target)
  cmake_parse_arguments(PORT "" "BOARD_DIR;LINKER_SCRIPT" "DRIVERS" ${ARGN})
  get_property(port_dir GLOBAL PROPERTY UTVM_CORTEX_M_PORT_DIR)
  if(NOT PORT_BOARD_DIR)
    message(FATAL_ERROR "utvm_cortex_m_port(${target}): BOARD_DIR (with board.h) is required")
  endif()
  get_filename_component(board_dir ${PORT_BOARD_DIR} ABSOLUTE)
  if(NOT EXISTS ${board_dir}/board.h)
    message(FATAL_ERROR "utvm_cortex_m_port(${target}): no board.h in ${board_dir}")
  endif()
  if(PORT_LINKER_SCRIPT)
    get_filename_component(linker_script ${PORT_LINKER_SCRIPT} ABSOLUTE)
  else()
    set(linker_script ${board_dir}/linker.ld)
  endif()
  if(NOT EXISTS ${linker_script})
    message(FATAL_ERROR "utvm_cortex_m_port(${target}): linker script ${linker_script} not found")
  endif()
  set(drivers "")
  foreach(driver IN LISTS PORT_DRIVERS)
    if(IS_ABSOLUTE ${driver})
      list(APPEND drivers ${driver})
    else()
      list(APPEND drivers ${port_dir}/${driver})
    endif()
  endforeach()
  # Object library: the vector table must be linked even though nothing references it.
  add_library(${target} OBJECT ${port_dir}/startup.c ${port_dir}/crash.c ${port_dir}/format.c
              ${port_dir}/rx_ring.c ${port_dir}/timer.c ${drivers})
  target_include_directories(${target} PUBLIC ${port_dir} ${board_dir})
  target_link_libraries(${target} PUBLIC utvm::tvm_headers utvm::common)
  target_link_options(${target} INTERFACE -nostartfiles -T${linker_script} -L${port_dir})
  set_target_properties(${target} PROPERTIES UTVM_LINKER_SCRIPT ${linker_script})
  if(COMMAND utvm_target_warnings)
    utvm_target_warnings(${target})
  endif()
endfunction()
