# Calibration, the tools, the progress thread.
# Included from tests/CMakeLists.txt, in its order.

# Calibration output format and the benchmark's own correctness checks.
add_test(NAME calibrate_and_bench_np2
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tools_check.sh ${CMAKE_BINARY_DIR} ${launch2})
set_tests_properties(calibrate_and_bench_np2 PROPERTIES TIMEOUT 300 LABELS mpi)
# Every tool answers --help without side effects; install-deps.sh is idempotent.
add_test(NAME tools_help COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tools_help_check.sh ${CMAKE_BINARY_DIR})
set_tests_properties(tools_help PROPERTIES TIMEOUT 120)

adacomp_mpi_test(threads_np2 2 300 ENV ${FORCE_COMPRESSION} ${NONBLOCKING_ON} COMMAND $<TARGET_FILE:test_threads>)
adacomp_mpi_test(threads_np3 3 300 ENV ${FORCE_COMPRESSION} ${NONBLOCKING_ON} COMMAND $<TARGET_FILE:test_threads>)
# The progress thread (docs/nonblocking.md): the same threads advancing
# schedules alongside it; a rank computing without MPI calls whose
# collectives finish meanwhile; the fallback to polling, with its warning,
# when MPI_THREAD_MULTIPLE was not asked for.
adacomp_mpi_test(threads_progress_np2 2 300
                 ENV ${FORCE_COMPRESSION} ${NONBLOCKING_ON} ADACOMP_PROGRESS=thread
                 COMMAND $<TARGET_FILE:test_threads>)
foreach(np 2 3)
  adacomp_mpi_test(progress_thread_np${np} ${np} 300
                   ENV ${FORCE_COMPRESSION} ${NONBLOCKING_ON} ADACOMP_PROGRESS=thread
                   COMMAND $<TARGET_FILE:test_progress_thread>)
endforeach()
adacomp_mpi_test(progress_thread_fallback_np2 2 120
                 ENV ${FORCE_COMPRESSION} ${NONBLOCKING_ON} ADACOMP_PROGRESS=thread
                 COMMAND $<TARGET_FILE:test_progress_thread> --fallback)
