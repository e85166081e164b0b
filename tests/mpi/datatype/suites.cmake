# Datatypes through every payload-carrying call (included by tests/CMakeLists.txt,
# after adacomp_mpi_test): the backward-type regressions and the differential
# datatype test (docs/testing.md, "Datatypes").
add_executable(test_backward_types ${CMAKE_CURRENT_LIST_DIR}/../backward_types.cpp)
add_executable(test_datatype_fuzz
               ${CMAKE_CURRENT_LIST_DIR}/types.cpp ${CMAKE_CURRENT_LIST_DIR}/region.cpp
               ${CMAKE_CURRENT_LIST_DIR}/p2p.cpp ${CMAKE_CURRENT_LIST_DIR}/collectives.cpp
               ${CMAKE_CURRENT_LIST_DIR}/exchange.cpp ${CMAKE_CURRENT_LIST_DIR}/reductions.cpp
               ${CMAKE_CURRENT_LIST_DIR}/driver.cpp)
foreach(t backward_types datatype_fuzz)
  target_link_libraries(test_${t} PRIVATE adacomp MPI::MPI_C)
endforeach()

# Every setting the issue of backward types showed in: plain, forced lossless
# (nonblocking collectives coded too), lossy under a bound (derived types
# must pass exactly), and the defaults with two or four ranks declared as
# two nodes, where the runtime model picks the coded path on large messages.
set(DATATYPE_FORCED ADACOMP_THRESHOLD_LOSSLESS=0 ADACOMP_THRESHOLD_P2P=0 ${NONBLOCKING_ON})
set(DATATYPE_SETTINGS raw lossless lossy nodes)
set(DATATYPE_ENV_raw ADACOMP_MODE=raw)
set(DATATYPE_ENV_lossless ADACOMP_MODE=lossless ${DATATYPE_FORCED})
set(DATATYPE_ENV_lossy ADACOMP_MODE=lossy ADACOMP_REL_ERROR_BOUND=1e-4 ADACOMP_THRESHOLD_LOSSY=0
    ${DATATYPE_FORCED})
set(DATATYPE_ENV_nodes ADACOMP_NODE_MAP=1,1)
foreach(setting ${DATATYPE_SETTINGS})
  adacomp_mpi_test(backward_types_${setting}_np2 2 300 ENV ${DATATYPE_ENV_${setting}}
                   COMMAND $<TARGET_FILE:test_backward_types>)
  # Seed 50, 200 types; replay one with --seed S --first K --types 1 [--family NAME].
  adacomp_mpi_test(datatype_fuzz_${setting}_np2 2 600 ENV ${DATATYPE_ENV_${setting}}
                   COMMAND $<TARGET_FILE:test_datatype_fuzz> --seed 50 --types 200)
endforeach()
# Messages of 1 MB (and 256 KB per Alltoall block), ten rounds: enough for
# the model to try the coded path between the declared nodes.
adacomp_mpi_test(backward_types_nodes_large_np2 2 300 ENV ADACOMP_NODE_MAP=1,1
                 COMMAND $<TARGET_FILE:test_backward_types> 262144 10)
adacomp_mpi_test(backward_types_nodes_2_2_np4 4 300 ENV ADACOMP_NODE_MAP=2,2
                 COMMAND $<TARGET_FILE:test_backward_types> 262144 6)
# Three ranks (trees, uneven splits, a rank that only relays): Open MPI only,
# MPICH over UCX busy-polls oversubscribed (a few minutes per 60 types).
if(ADACOMP_MPI_FLAVOR STREQUAL "openmpi")
  adacomp_mpi_test(datatype_fuzz_nodes_2_1_np3 3 600 ENV ADACOMP_NODE_MAP=2,1 ${DATATYPE_FORCED}
                   COMMAND $<TARGET_FILE:test_datatype_fuzz> --seed 50 --types 100)
endif()
