# SPDX-License-Identifier: Apache-2.0
# weft_mpi's tests: each scenario of tests/mpi_edges.c under
# `mpirun -np 2` and `mpirun -np 4 --oversubscribe`, on this machine's
# shared memory (Open MPI's vader transport; tcp would also do on
# loopback).  Included from tests/CMakeLists.txt only where weft_mpi is
# built, so only where MPI is found.
#
# Open MPI refuses to run as root unless told; CI and the developers' machines run as root.
find_program(WEFT_MPIEXEC NAMES mpiexec mpirun HINTS ${MPIEXEC_EXECUTABLE})
if(NOT WEFT_MPIEXEC)
  message(STATUS "weft: no mpiexec found; the MPI tests are not added")
  return()
endif()
set(WEFT_MPI_TEST_ENV
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    OMPI_MCA_btl=self,vader OMPI_MCA_rmaps_base_oversubscribe=1)
set(WEFT_MPI_RUN_FLAGS --allow-run-as-root --oversubscribe --bind-to none)

add_executable(test_mpi_edges mpi_edges.c)
target_link_libraries(test_mpi_edges PRIVATE weft_mpi_static)
target_compile_definitions(test_mpi_edges PRIVATE _GNU_SOURCE)
target_compile_options(test_mpi_edges PRIVATE -Wall -Wextra)

# weft_mpi_test(NAME name NP n [EXE target] [LABELS ...] [TIMEOUT s] ARGS ...)
function(weft_mpi_test)
  cmake_parse_arguments(T "" "NAME;NP;EXE;TIMEOUT" "LABELS;ARGS" ${ARGN})
  if(NOT T_EXE)
    set(T_EXE test_mpi_edges)
  endif()
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  add_test(NAME ${T_NAME}
    COMMAND ${WEFT_MPIEXEC} ${WEFT_MPI_RUN_FLAGS} -np ${T_NP}
            $<TARGET_FILE:${T_EXE}> ${T_ARGS})
  set_tests_properties(${T_NAME} PROPERTIES
    LABELS "mpi;${T_LABELS}" TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "${WEFT_MPI_TEST_ENV}"
    # Two mpiruns at once would share the two cores with each other's ranks.
    RESOURCE_LOCK mpi)
endfunction()

foreach(np 2 4)
  weft_mpi_test(NAME mpi_edges_counts_np${np} NP ${np} LABELS unit normal
                ARGS counts multiple 1000 32)
  weft_mpi_test(NAME mpi_edges_counts_large_np${np} NP ${np} LABELS unit normal
                ARGS counts multiple 40 200000)
  # The largest message that lands in a posted receive, and the smallest
  # that travels on the bulk communicator after its announcement.
  weft_mpi_test(NAME mpi_edges_counts_4096_np${np} NP ${np} LABELS unit normal
                ARGS counts multiple 200 4096)
  weft_mpi_test(NAME mpi_edges_counts_4097_np${np} NP ${np} LABELS unit normal
                ARGS counts multiple 200 4097)
  weft_mpi_test(NAME mpi_edges_backpressure_np${np} NP ${np} LABELS unit normal
                ARGS backpressure multiple 200)
  # Work made by work on other ranks: termination detection's own test.
  weft_mpi_test(NAME mpi_edges_potato_np${np} NP ${np} LABELS stress normal
                ARGS potato multiple 200 20)
  foreach(s fail cancel badargs mismatch unmatched destroy_busy)
    weft_mpi_test(NAME mpi_edges_${s}_np${np} NP ${np} LABELS fault normal
                  ARGS ${s})
  endforeach()
  # The drain takes bulk messages and their announcements too.
  weft_mpi_test(NAME mpi_edges_destroy_busy_bulk_np${np} NP ${np}
                LABELS fault normal ARGS destroy_busy multiple 8192)
endforeach()
# The other thread levels: one progress thread makes every MPI call
# (serialized), or only the main thread does, inside wait_all (funneled).
foreach(level serialized funneled)
  weft_mpi_test(NAME mpi_edges_counts_${level}_np2 NP 2 LABELS unit normal
                ARGS counts ${level} 1000 32)
  weft_mpi_test(NAME mpi_edges_counts_large_${level}_np2 NP 2 LABELS unit normal
                ARGS counts ${level} 40 200000)
  weft_mpi_test(NAME mpi_edges_counts_4097_${level}_np2 NP 2 LABELS unit normal
                ARGS counts ${level} 200 4097)
  weft_mpi_test(NAME mpi_edges_fail_${level}_np2 NP 2 LABELS fault normal
                ARGS fail ${level})
  weft_mpi_test(NAME mpi_edges_potato_${level}_np2 NP 2 LABELS stress normal
                ARGS potato ${level} 200 20)
  weft_mpi_test(NAME mpi_edges_destroy_busy_${level}_np2 NP 2
                LABELS fault normal
                ARGS destroy_busy ${level})
  weft_mpi_test(NAME mpi_edges_destroy_busy_bulk_${level}_np2 NP 2
                LABELS fault normal
                ARGS destroy_busy ${level} 8192)
endforeach()
weft_mpi_test(NAME mpi_edges_idle_np2 NP 2 LABELS unit normal ARGS idle)

# ThreadSanitizer, one rank: every channel goes from the rank to itself
# through MPI, so the engine, the workers' sends and the waiter race as
# they do with more ranks.  Open MPI itself is not instrumented: its
# internal synchronisation is invisible to TSan, hence the suppressions.
if(TARGET weft_mpi_tsan)
  add_executable(test_mpi_edges_tsan mpi_edges.c)
  target_link_libraries(test_mpi_edges_tsan PRIVATE weft_mpi_tsan)
  target_compile_definitions(test_mpi_edges_tsan PRIVATE _GNU_SOURCE)
  target_compile_options(test_mpi_edges_tsan PRIVATE -Wall -Wextra
                         ${WEFT_TSAN_FLAGS})
  foreach(s counts potato fail cancel badargs mismatch unmatched destroy_busy)
    weft_mpi_test(NAME mpi_edges_${s}_np1.tsan NP 1 EXE test_mpi_edges_tsan
                  LABELS unit tsan TIMEOUT 120 ARGS ${s})
    set_property(TEST mpi_edges_${s}_np1.tsan APPEND PROPERTY ENVIRONMENT
      "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=${CMAKE_CURRENT_SOURCE_DIR}/mpi_tsan.supp")
  endforeach()
endif()

# The examples, each one line checked exactly (tests/expect_output.cmake).
# weft_mpi_example(NAME name NP n EXPECT line ARGS ...)
function(weft_mpi_example)
  cmake_parse_arguments(E "" "NAME;TARGET;NP;EXPECT" "ARGS" ${ARGN})
  if(NOT TARGET ${E_TARGET})
    return()
  endif()
  set(args ${WEFT_MPI_RUN_FLAGS} -np ${E_NP} $<TARGET_FILE:${E_TARGET}> ${E_ARGS})
  string(REPLACE ";" "$<SEMICOLON>" args "${args}")
  add_test(NAME ${E_NAME}
    COMMAND ${CMAKE_COMMAND} -DPROG=${WEFT_MPIEXEC} "-DARGS=${args}"
            "-DEXPECT=${E_EXPECT}" -P ${CMAKE_CURRENT_SOURCE_DIR}/expect_output.cmake)
  set_tests_properties(${E_NAME} PROPERTIES LABELS "mpi;unit;normal"
    TIMEOUT 60 ENVIRONMENT "${WEFT_MPI_TEST_ENV}" RESOURCE_LOCK mpi)
endfunction()

set(pipeline_sum "checksum 0x43228118c84330f8, same as sequential (ok)")
weft_mpi_example(NAME example_mpi_pipeline_np2 TARGET example_mpi_pipeline
  NP 2 ARGS 1000 EXPECT "mpi_pipeline: 1000 items, middle stage on 2 ranks (500 500), written in input order, ${pipeline_sum}")
weft_mpi_example(NAME example_mpi_pipeline_np4 TARGET example_mpi_pipeline
  NP 4 ARGS 1000 EXPECT "mpi_pipeline: 1000 items, middle stage on 4 ranks (250 250 250 250), written in input order, ${pipeline_sum}")
# UTS: 2000 children of the root, 1127377 nodes; the count is checked
# against a sequential count made by rank 0.
weft_mpi_example(NAME example_mpi_uts_np2 TARGET example_mpi_uts NP 2
  ARGS --kids 2000
  EXPECT "mpi_uts: 2 ranks x 1 thread: 1127377 nodes, same as sequential (ok)")
weft_mpi_example(NAME example_mpi_uts_np4 TARGET example_mpi_uts NP 4
  ARGS --kids 2000 --threads 2
  EXPECT "mpi_uts: 4 ranks x 2 threads: 1127377 nodes, same as sequential (ok)")
