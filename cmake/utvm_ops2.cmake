# The ops2 operator cases the tests run: every input/output pair of
# ${UTVM_SHARED_DIR}/models/ops2/cases.json whose case is not in tests/data/ops2_pending.txt
# (the cases utvm does not run yet). Read at configure time; both files re-run the configure
# step when they change.

# utvm_ops2_pairs(<var>): sets <var> to a list of "<case index>|<name>|<model>|<pair
# index>|<input>|<output>" (file names relative to models/ops2), empty when ops2 is absent.
function(utvm_ops2_pairs var)
  set(dir ${UTVM_SHARED_DIR}/models/ops2)
  set(pending_file ${PROJECT_SOURCE_DIR}/tests/data/ops2_pending.txt)
  set(pairs "")
  if(EXISTS ${dir}/cases.json)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${dir}/cases.json
                 ${pending_file})
    file(READ ${dir}/cases.json json)
    file(STRINGS ${pending_file} pending REGEX "^[a-z0-9_]+$")
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
        list(APPEND pairs "${i}|${name}|${model}|${k}|${input}|${output}")
      endforeach()
    endforeach()
  endif()
  set(${var} "${pairs}" PARENT_SCOPE)
endfunction()
