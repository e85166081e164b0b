# Corrupt frames and errors.
# Included from tests/CMakeLists.txt, in its order.

# Corrupt frames: an error through MPI's error handler, never a hang.
foreach(np 2 3 4)
  adacomp_mpi_test(corrupt_frames_return_np${np} ${np} 120
                   ENV ${FORCE_COMPRESSION} ADACOMP_FAULT=corrupt-frames
                   COMMAND $<TARGET_FILE:test_errors>)
endforeach()
foreach(np 1 2 3)
  adacomp_mpi_test(p2p_corrupt_frames_np${np} ${np} 120
                   ENV ${FORCE_COMPRESSION} ADACOMP_FAULT=corrupt-frames
                   COMMAND $<TARGET_FILE:test_p2p_errors>)
endforeach()
# Receive buffers of 2 GiB and more for small messages: coded and stored frames.
adacomp_mpi_test(big_recv_np2 2 120 ENV ${FORCE_COMPRESSION} COMMAND $<TARGET_FILE:test_big_recv>)
adacomp_mpi_test(big_recv_stored_np2 2 120 ENV ADACOMP_MODE=lossless
                 COMMAND $<TARGET_FILE:test_big_recv>)
# No heap growth per nonblocking receive, Sendrecv, nonblocking or persistent send.
adacomp_mpi_test(recv_leak_np2 2 120 ENV ${FORCE_COMPRESSION} COMMAND $<TARGET_FILE:test_recv_leak>)
# Device memory, through a stand-in CUDA driver (no GPU here): calls on device
# buffers pass straight to PMPI.
add_library(fake_cuda SHARED device/fake_cuda.c)
set_target_properties(fake_cuda PROPERTIES OUTPUT_NAME cuda SOVERSION 1)
add_executable(test_device mpi/device.cpp)
target_link_libraries(test_device PRIVATE adacomp fake_cuda MPI::MPI_C)
adacomp_mpi_test(device_np2 2 120 ENV ${FORCE_COMPRESSION} COMMAND $<TARGET_FILE:test_device>)
# Argument errors: the class and message PMPI gives, on the user's communicator.
foreach(np 1 2)
  adacomp_mpi_test(arg_errors_np${np} ${np} 120 ENV ${FORCE_COMPRESSION}
                   COMMAND $<TARGET_FILE:test_arg_errors>)
endforeach()
# Erroneous collectives MPI detects alone: aliased buffers, Bcast and Gather
# counts that differ (MPICH's errors/coll); 4 ranks make a tree of three levels, and
# declared nodes a node stage after the tree.
foreach(np 2 4)
  adacomp_mpi_test(erroneous_coll_np${np} ${np} 120 ENV ${FORCE_COMPRESSION}
                   COMMAND $<TARGET_FILE:test_erroneous_coll>)
endforeach()
foreach(map 1,2 2,2)
  string(REPLACE "," "_" tag ${map})
  string(REPLACE "," "+" sum ${map})
  math(EXPR np "${sum}")
  adacomp_mpi_test(erroneous_coll_nodes_${tag} ${np} 120
                   ENV ${FORCE_COMPRESSION} ADACOMP_NODE_MAP=${map}
                   COMMAND $<TARGET_FILE:test_erroneous_coll>)
endforeach()
adacomp_mpi_command(launch3 3)
add_test(NAME corrupt_frames_fatal_np3
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect_failure.sh
                 "AdaComp: a compressed frame arrived corrupt \\(its header, checksum or coded data do not verify\\)"
                 ${launch3} $<TARGET_FILE:test_errors> --fatal)
set_tests_properties(corrupt_frames_fatal_np3 PROPERTIES TIMEOUT 120 LABELS mpi
                     ENVIRONMENT "${FORCE_COMPRESSION};ADACOMP_FAULT=corrupt-frames")
# The message of a frame the exchange engine cannot decode names the call and
# gives the codec's reason.
foreach(call Gather Alltoall)
  string(TOLOWER ${call} arg)
  add_test(NAME corrupt_frames_${arg}_reason_np3
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect_failure.sh
                   "MPI_${call}: AdaComp: a compressed frame arrived corrupt .*\\(codec status -[0-9]+: [^)]+\\)"
                   ${launch3} $<TARGET_FILE:test_errors> --fatal ${arg})
  set_tests_properties(corrupt_frames_${arg}_reason_np3 PROPERTIES TIMEOUT 120 LABELS mpi
                       ENVIRONMENT "${FORCE_COMPRESSION};ADACOMP_FAULT=corrupt-frames")
endforeach()
