# SPDX-License-Identifier: Apache-2.0
# cmake -DPROG=exe -DARGS="a;b" -DEXPECT=text -P expect_output.cmake
# Passes when PROG exits 0 and its standard output is exactly EXPECT plus
# one newline (ctest's PASS_REGULAR_EXPRESSION would ignore the exit code).
execute_process(COMMAND ${PROG} ${ARGS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROG} ${ARGS}: exit status ${rc}\nstderr: ${err}")
endif()
if(NOT out STREQUAL "${EXPECT}\n")
  message(FATAL_ERROR "${PROG} ${ARGS}: output\n[${out}]\nexpected\n[${EXPECT}\n]")
endif()
message(STATUS "output as expected: ${EXPECT}")
