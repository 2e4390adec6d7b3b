# cmake -P utvm_sizes_probe.cmake: measures what each entry point of the standalone-model
# runtime pulls into a firmware (docs/AI.md, "The memory report") and writes the table that
# `utvm compile --report --sizes TABLE` reads.
#
# For each group (one kernel function, or the ai_ calls of the runtime) it links a probe with
# this build's compiler and linker flags, the group's functions as the only roots and the
# libraries LIBS, and reads the link map: every input section the linker keeps from LIBS, with
# its size in the object (before the linker merges strings across objects). A firmware that
# calls several groups links the union of their sections (garbage collection keeps what is
# reachable from the roots, so the union of the groups' sets is exactly the set of the union).
#
# Variables: CC, FLAGS (compile flags of code linked with the libraries, e.g. the generated
# model), LINK_FLAGS, LIBS (the archives, |-separated), CORE (cortex-m4, host, ...), INCLUDES
# (|-separated: what generated code needs), WORK (scratch directory), OUT (the table).
foreach(var CC CORE LIBS WORK OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "utvm_sizes_probe: ${var} not set")
  endif()
endforeach()

set(kernels utvm_conv2d_s8 utvm_depthwise_conv2d_s8 utvm_fully_connected_s8 utvm_avg_pool2d_s8
    utvm_max_pool2d_s8 utvm_add_s8 utvm_mul_s8 utvm_softmax_s8 utvm_logistic_s8 utvm_tanh_s8
    utvm_pad_s8 utvm_concatenation_s8 utvm_mean_s8 utvm_quantize_f32_s8 utvm_requantize_s8
    utvm_dequantize_s8_f32 utvm_reshape utvm_conv2d_s8_inplace utvm_depthwise_conv2d_s8_inplace
    utvm_stage_s8)
# The ai_ calls of a firmware that runs a model with buffers of its own (ports/cortex-m/ai_main.c).
set(runtime ai_create ai_destroy ai_set_input ai_set_output ai_run ai_get_input ai_get_output
    ai_get_error)

string(REPLACE "|" ";" libs "${LIBS}")
string(REPLACE "|" ";" includes "${INCLUDES}")
separate_arguments(flags UNIX_COMMAND "${FLAGS}")
separate_arguments(link_flags UNIX_COMMAND "${LINK_FLAGS}")
file(MAKE_DIRECTORY ${WORK})
set(table "utvm-sizes 1\ncore ${CORE}\ncc ${CC}\ncflags ${FLAGS}\n")
foreach(dir ${includes})
  string(APPEND table "include ${dir}\n")
endforeach()

# Appends to table one line "section GROUP OBJECT SECTION BYTES" per input section of code or
# data (.text*, .rodata*, .data*, .bss*) that the probe rooted at the functions in ARGN keeps
# from LIBS.
function(probe group)
  set(roots)
  foreach(f ${ARGN})
    list(APPEND roots -Wl,--undefined=${f})
  endforeach()
  list(GET ARGN 0 entry)
  set(map ${WORK}/${group}.map)
  execute_process(
    COMMAND ${CC} ${flags} ${link_flags} -nostartfiles -Wl,--entry=${entry} ${roots}
            -Wl,-Map=${map} -o ${WORK}/${group}.elf -Wl,--start-group ${libs} -Wl,--end-group
            -lm
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "utvm_sizes_probe: the probe of ${group} does not link:\n${out}")
  endif()
  file(STRINGS ${map} lines)
  set(in_map FALSE)
  set(pending "")  # a section name whose address and size are on the next line
  set(held "")     # the last kept section ("OBJECT SECTION"), its size in held_size
  set(result "")
  foreach(line IN LISTS lines)
    if((NOT held STREQUAL "") AND (line MATCHES "^ +0x([0-9a-f]+) \\(size before relaxing\\)$"))
      # a string section the linker merged with others: the object's own size counts
      math(EXPR held_size "0x${CMAKE_MATCH_1}")
      continue()
    endif()
    if((NOT held STREQUAL "") AND (held_size GREATER 0))
      string(APPEND result "section ${group} ${held} ${held_size}\n")
    endif()
    set(held "")
    set(name "")
    if(line MATCHES "^Linker script and memory map")
      set(in_map TRUE)
    elseif(NOT in_map)
    elseif(line MATCHES "^ (\\.[^ ]+|COMMON)$")
      set(pending ${CMAKE_MATCH_1})
    elseif(line MATCHES "^ (\\.[^ ]+|COMMON) +0x[0-9a-f]+ +0x([0-9a-f]+) (.+)$")
      set(name ${CMAKE_MATCH_1})
      set(size ${CMAKE_MATCH_2})
      set(file ${CMAKE_MATCH_3})
    elseif((NOT pending STREQUAL "") AND (line MATCHES "^ +0x[0-9a-f]+ +0x([0-9a-f]+) (.+)$"))
      set(name ${pending})
      set(size ${CMAKE_MATCH_1})
      set(file ${CMAKE_MATCH_2})
    endif()
    if(NOT line MATCHES "^ (\\.[^ ]+|COMMON)$")
      set(pending "")
    endif()
    if(NOT name STREQUAL "")
      math(EXPR held_size "0x${size}")
      # Held even at size 0: a string section merged away entirely still has its own size on
      # the next line ("size before relaxing").
      if((name MATCHES "^\\.(text|rodata|data|bss)")
         AND (file MATCHES "/(libutvm_[a-z_]+\\.a\\([^)]+\\))$"))
        set(held "${CMAKE_MATCH_1} ${name}")
      endif()
    endif()
  endforeach()
  if((NOT held STREQUAL "") AND (held_size GREATER 0))
    string(APPEND result "section ${group} ${held} ${held_size}\n")
  endif()
  if(result STREQUAL "")
    message(FATAL_ERROR "utvm_sizes_probe: the probe of ${group} keeps nothing of ${libs}")
  endif()
  set(table "${table}${result}" PARENT_SCOPE)
endfunction()

foreach(k ${kernels})
  probe(${k} ${k})
endforeach()
probe(ai_runtime ${runtime})
file(WRITE ${OUT}.tmp "${table}")
file(RENAME ${OUT}.tmp ${OUT})
