# The operator case sets the tests run, each a folder with a cases.json ({about, golden,
# cases: [{name, model, pairs: [[input, output], ...], ...}]}, files next to it) and, for a
# set with cases utvm does not run yet, a pending list (one case name per line):
#   ops2: ${UTVM_SHARED_DIR}/models/ops2 less tests/data/ops2_pending.txt (issue 25);
#   tflm: tests/data/tflm, TFLM-oracle cases generated in the repository
#         (tests/tools/gen_tflm_cases.py);
#   tflm_float: tests/data/tflm_float less tests/data/tflm_float_pending.txt, the float32
#         TFLM-oracle cases (tests/tools/gen_tflm_float_cases.py; issue 30).
# UTVM_OP_CASE_SETS lists them as "<set>|<folder>|<pending list or empty>". Read at configure
# time; the files re-run the configure step when they change.
set(UTVM_OP_CASE_SETS
    "ops2|${UTVM_SHARED_DIR}/models/ops2|${PROJECT_SOURCE_DIR}/tests/data/ops2_pending.txt"
    "tflm|${PROJECT_SOURCE_DIR}/tests/data/tflm|"
    "tflm_float|${PROJECT_SOURCE_DIR}/tests/data/tflm_float|${PROJECT_SOURCE_DIR}/tests/data/tflm_float_pending.txt")

# The float32 sets (tflm_float, issue 30): not in every board's utvm-ops-test.elf
# (qemu_op_cases_<board>) but in utvm-ops-f32-test.elf on cores with a single-precision FPU
# (qemu_op_cases_f32_<board>), compared there within the per-case tolerances of
# tests/data/tflm_float_board_tolerance.txt (LOGISTIC, TANH and SOFTMAX call newlib's
# expf/tanhf, which may round otherwise than glibc's; docs/TFLITE.md "float32 on boards").
set(UTVM_OP_CASE_FLOAT_SETS tflm_float)

# utvm_op_case_split_sets(<int var> <float var>): sets <int var> to UTVM_OP_CASE_SETS less the
# float32 sets (UTVM_OP_CASE_FLOAT_SETS), <float var> to those float32 sets' entries.
function(utvm_op_case_split_sets int_var float_var)
  set(int_sets "")
  set(float_sets "")
  foreach(entry IN LISTS UTVM_OP_CASE_SETS)
    string(REPLACE "|" ";" f "${entry}")
    list(GET f 0 set_name)
    if(set_name IN_LIST UTVM_OP_CASE_FLOAT_SETS)
      list(APPEND float_sets "${entry}")
    else()
      list(APPEND int_sets "${entry}")
    endif()
  endforeach()
  set(${int_var} "${int_sets}" PARENT_SCOPE)
  set(${float_var} "${float_sets}" PARENT_SCOPE)
endfunction()

# utvm_op_case_pairs(<var>): sets <var> to a list of "<set>|<folder>|<case index>|<name>|<model>|
# <pair index>|<input>|<output>" (file names relative to <folder>), every pair of every set of
# UTVM_OP_CASE_SETS whose case is not pending; a set whose cases.json is absent adds nothing.
function(utvm_op_case_pairs var)
  set(pairs "")
  foreach(entry IN LISTS UTVM_OP_CASE_SETS)
    string(REPLACE "|" ";" f "${entry}")
    list(GET f 0 set_name)
    list(GET f 1 dir)
    list(GET f 2 pending_file)
    if(NOT EXISTS ${dir}/cases.json)
      continue()
    endif()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${dir}/cases.json)
    set(pending "")
    if(pending_file)
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${pending_file})
      file(STRINGS ${pending_file} pending REGEX "^[a-z0-9_]+$")
    endif()
    file(READ ${dir}/cases.json json)
    string(JSON count LENGTH "${json}" cases)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON name GET "${json}" cases ${i} name)
      if(name IN_LIST pending)
        continue()
      endif()
      string(JSON model GET "${json}" cases ${i} model)
      string(JSON n_pairs LENGTH "${json}" cases ${i} pairs)
      math(EXPR last_pair "${n_pairs} - 1")
      foreach(k RANGE ${last_pair})
        string(JSON input GET "${json}" cases ${i} pairs ${k} 0)
        string(JSON output GET "${json}" cases ${i} pairs ${k} 1)
        list(APPEND pairs "${set_name}|${dir}|${i}|${name}|${model}|${k}|${input}|${output}")
      endforeach()
    endforeach()
  endforeach()
  set(${var} "${pairs}" PARENT_SCOPE)
endfunction()

# utvm_pairs_header(<output.h> <array> <set>...): a custom command writing <output.h>, the C
# array <array> of every pair of the given sets ("<set>|<folder>|<pending list or empty>", as in
# UTVM_OP_CASE_SETS) with their paths, pending cases marked (tests/unit/runner/pairs_to_c.py).
function(utvm_pairs_header output array)
  set(script ${PROJECT_SOURCE_DIR}/tests/unit/runner/pairs_to_c.py)
  set(depends ${script})
  foreach(entry IN LISTS ARGN)
    string(REPLACE "|" ";" f "${entry}")
    list(GET f 1 dir)
    list(GET f 2 pending_file)
    list(APPEND depends ${dir}/cases.json)
    if(pending_file)
      list(APPEND depends ${pending_file})
    endif()
  endforeach()
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${Python3_EXECUTABLE} ${script} ${output} ${array} ${ARGN}
    DEPENDS ${depends}
    COMMENT "Listing the pairs of ${array}"
    VERBATIM)
endfunction()
