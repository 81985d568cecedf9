# SPDX-License-Identifier: GPL-2.0-only
# One ctest per row of verdicts.tsv: label `model` for tier quick, `model-full` for tier full.
# Filter with anchored patterns: ctest -L '^model$' (a bare `model` also matches model-full).
set(_verdicts ${CMAKE_CURRENT_LIST_DIR}/verdicts.tsv)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_verdicts})
file(STRINGS ${_verdicts} _rows REGEX "^[^#]")
foreach(_row IN LISTS _rows)
  string(REPLACE "\t" ";" _f "${_row}")
  list(LENGTH _f _n)
  if(NOT _n EQUAL 5)
    message(FATAL_ERROR "verdicts.tsv: malformed row: ${_row}")
  endif()
  list(GET _f 0 _name)
  list(GET _f 1 _search)
  list(GET _f 4 _tier)
  set(_label model)
  if(_tier STREQUAL "full")
    set(_label model-full)
  endif()
  add_test(NAME "${_label}:${_name}:${_search}"
           COMMAND kverify check ${_name} ${_search} --expected ${_verdicts})
  set_tests_properties("${_label}:${_name}:${_search}" PROPERTIES LABELS ${_label})
endforeach()
