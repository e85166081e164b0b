# Collectives: the nonblocking suites, the policy modes that force coding, node-aware layouts.
# Included from tests/CMakeLists.txt, in its order.

# test_nbc_compressed's suites, one file per feature (mpi/nbc_compressed.cpp runs them).
target_sources(test_nbc_compressed PRIVATE
               mpi/nbc_compressed/reductions.cpp mpi/nbc_compressed/requests.cpp
               mpi/nbc_compressed/persistent.cpp mpi/nbc_compressed/lossy.cpp
               mpi/nbc_compressed/corrupt.cpp mpi/nbc_compressed/default.cpp)

adacomp_mpi_command(launch2 2)
set(FORCE_COMPRESSION ADACOMP_THRESHOLD_LOSSLESS=0 ADACOMP_MODE=lossless)
# Compressed nonblocking collectives are opt-in (docs/nonblocking.md).
set(NONBLOCKING_ON ADACOMP_NONBLOCKING=on)
# Policy modes below force every call compressed by turning the model off;
# the model has its own tests.
set(NO_MODEL ADACOMP_THRESHOLD_LOSSLESS=0 ADACOMP_MODEL=off)
# MPICH over UCX busy-polls: oversubscribed (3+ ranks on 2 cores) it runs the
# smaller matrix.
set(OVERSUBSCRIBED_ARGS "")
if(NOT ADACOMP_MPI_FAMILY STREQUAL "openmpi")
  set(OVERSUBSCRIBED_ARGS --quick)
endif()
foreach(np 1 2 3 4)
  set(args "")
  if(np GREATER 2)
    set(args ${OVERSUBSCRIBED_ARGS})
  endif()
  adacomp_mpi_test(collectives_np${np} ${np} 600 ENV ${FORCE_COMPRESSION}
                   COMMAND $<TARGET_FILE:test_collectives> ${args})
endforeach()
foreach(codec zstd lz4 bitplane)
  adacomp_mpi_test(collectives_${codec}_np2 2 600
                   ENV ${FORCE_COMPRESSION} ADACOMP_LOSSLESS_CODEC=${codec}
                   COMMAND $<TARGET_FILE:test_collectives>)
endforeach()
adacomp_mpi_test(collectives_raw_np3 3 600 ENV ADACOMP_MODE=raw ADACOMP_THRESHOLD_LOSSLESS=0
                 COMMAND $<TARGET_FILE:test_collectives> ${OVERSUBSCRIBED_ARGS})
# Node-aware paths on one machine: ADACOMP_NODE_MAP declares the nodes.
# 2+2 ranks (rails), 1+2 (leaders, uneven), 2+2 with leaders forced, and
# 1+2+3 over six ranks (uneven, three nodes).
set(SEGMENTED ${NO_MODEL} ADACOMP_MODE=pipelined ADACOMP_PIPELINE_CHUNKS=3)
foreach(layout "4;2,2;auto" "3;1,2;auto" "4;2,2;leaders" "6;1,2,3;auto")
  list(GET layout 0 np)
  list(GET layout 1 map)
  list(GET layout 2 hier)
  string(REPLACE "," "_" tag "${map}")
  # MPICH busy-polls: six ranks on two cores take minutes; 1+2 covers uneven.
  if(NOT (np EQUAL 6 AND NOT ADACOMP_MPI_FAMILY STREQUAL "openmpi"))
    adacomp_mpi_test(collectives_nodes_${tag}_${hier} ${np} 600
                     ENV ${FORCE_COMPRESSION} ADACOMP_NODE_MAP=${map} ADACOMP_HIERARCHY=${hier}
                     COMMAND $<TARGET_FILE:test_collectives> ${OVERSUBSCRIBED_ARGS})
  endif()
  adacomp_mpi_test(node_aware_${tag}_${hier} ${np} 300
                   ENV ${FORCE_COMPRESSION} ADACOMP_NODE_MAP=${map} ADACOMP_HIERARCHY=${hier}
                   COMMAND $<TARGET_FILE:test_node_aware>)
  # Pipelined: vectors of several segments (coll/allreduce.cpp), their
  # node stages overlapping the ring; rails show it in their coded bytes.
  set(rails "")
  if(map STREQUAL "2,2" AND hier STREQUAL "auto")
    set(rails rails)
  endif()
  adacomp_mpi_test(node_aware_segmented_${tag}_${hier} ${np} 300
                   ENV ${SEGMENTED} ADACOMP_NODE_MAP=${map} ADACOMP_HIERARCHY=${hier}
                   COMMAND $<TARGET_FILE:test_node_aware> --segmented ${rails})
  # Lossy in segments on the decode-add-encode ring (the codes ring has its
  # own test below).
  adacomp_mpi_test(lossy_nodes_segmented_${tag}_${hier} ${np} 300
                   ENV ${SEGMENTED} ADACOMP_ERROR_BOUND=1e-3 ADACOMP_REDUCE_ON_CODES=off
                       ADACOMP_NODE_MAP=${map} ADACOMP_HIERARCHY=${hier}
                   COMMAND $<TARGET_FILE:test_lossy> abs 1e-3)
  adacomp_mpi_test(lossy_nodes_${tag}_${hier} ${np} 300
                   ENV ADACOMP_MODE=lossy ADACOMP_THRESHOLD_LOSSLESS=0 ADACOMP_ERROR_BOUND=1e-3
                       ADACOMP_NODE_MAP=${map} ADACOMP_HIERARCHY=${hier}
                   COMMAND $<TARGET_FILE:test_lossy> abs 1e-3)
endforeach()
