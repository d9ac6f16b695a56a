# SPDX-License-Identifier: Apache-2.0
# Run a program and check its output.
#   cmake -DPROG=exe "-DARGS=a;b" [-DINPUT=file] -DEXPECT=file [-DRC=0]
#         [-DABSENT=text] -P check_output.cmake
# EXPECT lists substrings, one per line ('#' lines and blank lines are
# skipped); each must occur in the output (stdout then stderr), in order.
# ABSENT, if given, must not occur anywhere in it.
if(NOT DEFINED RC)
  set(RC 0)
endif()
if(DEFINED INPUT)
  execute_process(COMMAND ${PROG} ${ARGS} INPUT_FILE ${INPUT}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
else()
  execute_process(COMMAND ${PROG} ${ARGS}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
endif()
set(all "${out}${err}")
if(NOT rc EQUAL RC)
  message("${all}")
  message(FATAL_ERROR "exit status ${rc}, expected ${RC}")
endif()
file(STRINGS ${EXPECT} lines ENCODING UTF-8)
set(rest "${all}")
set(n 0)
foreach(line IN LISTS lines)
  if(line STREQUAL "" OR line MATCHES "^#")
    continue()
  endif()
  string(FIND "${rest}" "${line}" at)
  if(at EQUAL -1)
    message("${all}")
    message(FATAL_ERROR "expected (in order) but not found:\n  ${line}")
  endif()
  string(LENGTH "${line}" len)
  math(EXPR at "${at} + ${len}")
  string(SUBSTRING "${rest}" ${at} -1 rest)
  math(EXPR n "${n} + 1")
endforeach()
if(DEFINED ABSENT)
  string(FIND "${all}" "${ABSENT}" at)
  if(NOT at EQUAL -1)
    message("${all}")
    message(FATAL_ERROR "found, but must not be there:\n  ${ABSENT}")
  endif()
endif()
message("all ${n} expected lines found")
