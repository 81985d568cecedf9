# SPDX-License-Identifier: GPL-2.0-only
# One ctest per row of verdicts.tsv, named LABEL:CHECK:ENGINE:SEARCH, with label `model` for tier
# quick and `model-full` for tier full. Filter with anchored patterns: ctest -L '^model$' (a bare
# `model` also matches model-full).
set(_verdicts ${CMAKE_CURRENT_LIST_DIR}/verdicts.tsv)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_verdicts})
file(STRINGS ${_verdicts} _rows REGEX "^[^#]")
foreach(_row IN LISTS _rows)
  string(REPLACE "\t" ";" _f "${_row}")
  list(LENGTH _f _n)
  if(NOT _n EQUAL 6)
    message(FATAL_ERROR "verdicts.tsv: malformed row (expected 6 tab-separated fields: "
                        "check engine search expected executions tier): ${_row}")
  endif()
  list(GET _f 0 _name)
  list(GET _f 1 _engine)
  list(GET _f 2 _search)
  list(GET _f 5 _tier)
  set(_label model)
  if(_tier STREQUAL "full")
    set(_label model-full)
  endif()
  set(_test "${_label}:${_name}:${_engine}:${_search}")
  add_test(NAME "${_test}"
           COMMAND kverify check ${_name} ${_search} --engine ${_engine} --expected ${_verdicts})
  set_tests_properties("${_test}" PROPERTIES LABELS ${_label})
endforeach()
