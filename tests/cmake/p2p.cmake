# Point-to-point: semantics, routes, markers, datatypes.
# Included from tests/CMakeLists.txt, in its order.

# Point-to-point (issue 5): every semantic case, compressed and raw.
foreach(np 1 2 3 4)
  adacomp_mpi_test(p2p_np${np} ${np} 300 ENV ${FORCE_COMPRESSION} COMMAND $<TARGET_FILE:test_p2p>)
endforeach()
# The standard's rules MPICH's test suite checks (docs/testing.md): forced
# coding on one node, default settings across nodes of a 1 Gbit/s cluster
# (a fast link routes point-to-point direct: MPI's own calls, persistent
# Bsend and its Open MPI 4.1 bug included), forced across nodes, and a
# mixed layout (ANY_SOURCE receives watch both routes).
foreach(run "1;forced;${FORCE_COMPRESSION}" "2;forced;${FORCE_COMPRESSION}"
        "2;default_nodes;ADACOMP_NODE_MAP=1,1;ADACOMP_LINK_BANDWIDTH=1.25e8" "2;forced_nodes;${FORCE_COMPRESSION};ADACOMP_NODE_MAP=1,1"
        "4;forced_mixed;${FORCE_COMPRESSION};ADACOMP_NODE_MAP=2,2")
  list(POP_FRONT run np tag)
  adacomp_mpi_test(p2p_conformance_${tag}_np${np} ${np} 300 ENV ${run}
                   COMMAND $<TARGET_FILE:test_p2p_conformance>)
endforeach()
# Routes between nodes: a calibrated 10 Gbit/s link (coding cannot pay:
# direct, nothing framed), ADACOMP_P2P_ROUTE=direct over forced coding, and
# a calibrated 1 Gbit/s link on an uneven layout (framed, some coded).
adacomp_mpi_test(p2p_route_direct_nodes_2_2 4 300
                 ENV ADACOMP_NODE_MAP=2,2 ADACOMP_LINK_BANDWIDTH=1.25e9
                 COMMAND $<TARGET_FILE:test_p2p_route> direct)
adacomp_mpi_test(p2p_route_forced_direct_np2 2 300
                 ENV ${FORCE_COMPRESSION} ADACOMP_NODE_MAP=1,1 ADACOMP_P2P_ROUTE=direct
                 COMMAND $<TARGET_FILE:test_p2p_route> direct)
adacomp_mpi_test(p2p_route_framed_nodes_1_2 3 300
                 ENV ADACOMP_NODE_MAP=1,2 ADACOMP_LINK_BANDWIDTH=1.25e8
                 COMMAND $<TARGET_FILE:test_p2p_route> framed)
# The same on the other uneven layouts: nodes of 1 and 2 ranks on a fast
# link, of 2, 1 and 1 on both (wildcards and probes mixing a same-node peer
# with coded ones).
adacomp_mpi_test(p2p_route_direct_nodes_1_2 3 300
                 ENV ADACOMP_NODE_MAP=1,2 ADACOMP_LINK_BANDWIDTH=1.25e9
                 COMMAND $<TARGET_FILE:test_p2p_route> direct)
adacomp_mpi_test(p2p_route_direct_nodes_2_1_1 4 300
                 ENV ADACOMP_NODE_MAP=2,1,1 ADACOMP_LINK_BANDWIDTH=1.25e9
                 COMMAND $<TARGET_FILE:test_p2p_route> direct)
adacomp_mpi_test(p2p_route_framed_nodes_2_1_1 4 300
                 ENV ADACOMP_NODE_MAP=2,1,1 ADACOMP_LINK_BANDWIDTH=1.25e8
                 COMMAND $<TARGET_FILE:test_p2p_route> framed)
# The link probe's agreement with one rank's reading an outlier: on six
# one-rank nodes (three probing pairs) high and low, on two nodes high at
# either end of the pair (a low one there is the next test's); the check
# during the run raising a probe read at a "loaded moment", in-band, alike
# on every rank, shown in the banner and both reports.
foreach(outlier "high;0:1e9;6;1,1,1,1,1,1" "low;0:1e-9;6;1,1,1,1,1,1" "high;0:1e9;2;1,1"
        "high;1:1e9;2;1,1")
  list(POP_FRONT outlier side hook np map)
  string(REPLACE ":" "_" at ${hook})
  string(REGEX REPLACE "_.*" "" at ${at})
  adacomp_mpi_test(link_agree_outlier_${side}_node${at}_nodes_${np} ${np} 300
                   ENV ADACOMP_NODE_MAP=${map} ADACOMP_LINK_PROBE_OUTLIER=${hook}
                   COMMAND $<TARGET_FILE:test_link_check> agree ${side})
endforeach()
adacomp_mpi_test(link_raise_nodes_1_1 2 300
                 ENV ADACOMP_NODE_MAP=1,1 ADACOMP_LINK_PROBE_OUTLIER=0:1e-6 ADACOMP_VERBOSE=1
                     ADACOMP_REPORT=${CMAKE_CURRENT_BINARY_DIR}/link_raise_report.json
                 COMMAND $<TARGET_FILE:test_link_check> raise
                         ${CMAKE_CURRENT_BINARY_DIR}/link_raise_report.json)
# The marker scheme: forced coding on one node (every peer coded), and on
# two emulated nodes of two ranks (same-node peers plain, wildcards mixing
# both).
foreach(np 2 3)
  adacomp_mpi_test(p2p_marker_np${np} ${np} 300 ENV ${FORCE_COMPRESSION}
                   COMMAND $<TARGET_FILE:test_p2p_marker>)
endforeach()
adacomp_mpi_test(p2p_marker_nodes_2_2 4 300 ENV ${FORCE_COMPRESSION} ADACOMP_NODE_MAP=2,2
                 COMMAND $<TARGET_FILE:test_p2p_marker>)
adacomp_mpi_test(p2p_threads_np2 2 300 ENV ${FORCE_COMPRESSION} COMMAND $<TARGET_FILE:test_p2p_threads>)
adacomp_mpi_test(p2p_raw_np2 2 300 ENV ADACOMP_MODE=raw COMMAND $<TARGET_FILE:test_p2p> --raw)
adacomp_mpi_test(p2p_threshold_np2 2 300 ENV ADACOMP_MODE=lossless ADACOMP_THRESHOLD_LOSSLESS=16K
                 COMMAND $<TARGET_FILE:test_p2p>)
# Inter-step coding: channel order under every completion order,
# retirement under a small budget, truncation, sleeping channels.
foreach(np 1 2 3)
  adacomp_mpi_test(p2p_interstep_np${np} ${np} 300 ENV ${FORCE_COMPRESSION}
                   COMMAND $<TARGET_FILE:test_p2p_interstep>)
endforeach()
# The settings' former names (ADACOMP_XOR, ADACOMP_XOR_MEMORY), still accepted;
# the current ones are tested in tests/p2p/CMakeLists.txt.
adacomp_mpi_test(p2p_interstep_former_budget_np2 2 300 ENV ${FORCE_COMPRESSION} ADACOMP_XOR_MEMORY=40K
                 COMMAND $<TARGET_FILE:test_p2p_interstep> --budget 40960)
adacomp_mpi_test(p2p_interstep_former_off_np2 2 300 ENV ${FORCE_COMPRESSION} ADACOMP_XOR=off
                 COMMAND $<TARGET_FILE:test_p2p_interstep> --off)
# Nonblocking collectives pass through, alongside compressed point-to-point.
foreach(np 2 3)
  adacomp_mpi_test(nonblocking_coll_np${np} ${np} 300 ENV ${FORCE_COMPRESSION}
                   COMMAND $<TARGET_FILE:test_nonblocking_coll>)
endforeach()
# Compressed nonblocking collectives (issue 14): against the blocking calls
# and PMPI, mixed completion arrays, outstanding calls, pipelined chunks, and
# corrupt frames reported from Wait/Test/Waitall.
foreach(np 1 2 3 4)
  set(args "")
  if(np GREATER 2)
    set(args ${OVERSUBSCRIBED_ARGS})
  endif()
  adacomp_mpi_test(nbc_compressed_np${np} ${np} 300 ENV ${FORCE_COMPRESSION} ${NONBLOCKING_ON}
                   COMMAND $<TARGET_FILE:test_nbc_compressed> ${args})
endforeach()
# The default: ADACOMP_NONBLOCKING off, every nonblocking collective MPI's.
foreach(np 1 3)
  adacomp_mpi_test(nbc_default_np${np} ${np} 120 ENV ${FORCE_COMPRESSION}
                   COMMAND $<TARGET_FILE:test_nbc_compressed> --default)
endforeach()
adacomp_mpi_test(nbc_compressed_pipelined_np3 3 300
                 ENV ${NO_MODEL} ${NONBLOCKING_ON} ADACOMP_MODE=pipelined ADACOMP_PIPELINE_CHUNKS=3
                     ADACOMP_THRESHOLD_LOSSY=0 ADACOMP_THRESHOLD_PIPELINE=0
                 COMMAND $<TARGET_FILE:test_nbc_compressed> ${OVERSUBSCRIBED_ARGS})
# The nonblocking lossy reductions take the blocking calls' algorithm, the
# SUM Allreduce on codes by default: compared with them bit for bit, with
# reduction on codes on and off.
foreach(np 2 3)
  adacomp_mpi_test(nbc_lossy_np${np} ${np} 300
                   ENV ${NONBLOCKING_ON} ADACOMP_MODE=lossy ADACOMP_THRESHOLD_LOSSLESS=0
                       ADACOMP_ERROR_BOUND=1e-3
                   COMMAND $<TARGET_FILE:test_nbc_compressed> --lossy 1e-3)
  adacomp_mpi_test(nbc_lossy_hops_np${np} ${np} 300
                   ENV ${NONBLOCKING_ON} ADACOMP_MODE=lossy ADACOMP_THRESHOLD_LOSSLESS=0
                       ADACOMP_ERROR_BOUND=1e-3 ADACOMP_REDUCE_ON_CODES=off
                   COMMAND $<TARGET_FILE:test_nbc_compressed> --lossy 1e-3)
  adacomp_mpi_test(nbc_corrupt_frames_np${np} ${np} 120
                   ENV ${FORCE_COMPRESSION} ${NONBLOCKING_ON} ADACOMP_FAULT=corrupt-frames
                   COMMAND $<TARGET_FILE:test_nbc_compressed> --corrupt)
endforeach()
# A lossy Iallreduce allocates the buffers of its path (codes or hops) only
# once the ranks have agreed on it.
set(NBC_LOSSY ${NONBLOCKING_ON} ADACOMP_MODE=lossy ADACOMP_THRESHOLD_LOSSLESS=0
    ADACOMP_ERROR_BOUND=1e-3)
adacomp_mpi_test(nbc_memory_codes_np2 2 120 ENV ${NBC_LOSSY}
                 COMMAND $<TARGET_FILE:test_nbc_memory>)
adacomp_mpi_test(nbc_memory_hops_np3 3 120 ENV ${NBC_LOSSY} ADACOMP_REDUCE_ON_CODES=off
                 COMMAND $<TARGET_FILE:test_nbc_memory>)
# Node-aware nonblocking reductions and Bcast (issue 24): rails (2+2) and
# leaders (1+2), node stages in the schedule; compressed, equal to the
# blocking calls bit for bit; lossless and lossy (on codes).
foreach(layout "4;2,2" "3;1,2")
  list(GET layout 0 np)
  list(GET layout 1 map)
  string(REPLACE "," "_" tag "${map}")
  adacomp_mpi_test(nbc_nodes_${tag} ${np} 300
                   ENV ${FORCE_COMPRESSION} ${NONBLOCKING_ON} ADACOMP_NODE_MAP=${map}
                   COMMAND $<TARGET_FILE:test_nbc_nodes>)
  adacomp_mpi_test(nbc_nodes_lossy_${tag} ${np} 300
                   ENV ${NBC_LOSSY} ADACOMP_NODE_MAP=${map}
                   COMMAND $<TARGET_FILE:test_nbc_nodes> --lossy)
  adacomp_mpi_test(nbc_nodes_segmented_${tag} ${np} 300
                   ENV ${SEGMENTED} ${NONBLOCKING_ON} ADACOMP_NODE_MAP=${map}
                   COMMAND $<TARGET_FILE:test_nbc_nodes> --segmented)
endforeach()
# The other nonblocking suites on the 2+2 layout: node-aware reductions and
# Bcast, and exchanges coded only between nodes.
foreach(t nbc_compressed nbc_movement)
  adacomp_mpi_test(${t}_nodes_2_2 4 300
                   ENV ${FORCE_COMPRESSION} ${NONBLOCKING_ON} ADACOMP_NODE_MAP=2,2
                   COMMAND $<TARGET_FILE:test_${t}> ${OVERSUBSCRIBED_ARGS})
endforeach()
# Compressed nonblocking and persistent data-movement collectives against
# PMPI; off by default; corrupt frames reported from Wait and Test.
foreach(np 1 2 3 4)
  set(args "")
  if(np GREATER 2)
    set(args ${OVERSUBSCRIBED_ARGS})
  endif()
  adacomp_mpi_test(nbc_movement_np${np} ${np} 300 ENV ${FORCE_COMPRESSION} ${NONBLOCKING_ON}
                   COMMAND $<TARGET_FILE:test_nbc_movement> ${args})
endforeach()
adacomp_mpi_test(nbc_movement_default_np3 3 120 ENV ${FORCE_COMPRESSION}
                 COMMAND $<TARGET_FILE:test_nbc_movement> --default)
adacomp_mpi_test(nbc_movement_pipelined_np3 3 300
                 ENV ${NO_MODEL} ${NONBLOCKING_ON} ADACOMP_MODE=pipelined ADACOMP_PIPELINE_CHUNKS=3
                     ADACOMP_THRESHOLD_LOSSY=0 ADACOMP_THRESHOLD_PIPELINE=0
                 COMMAND $<TARGET_FILE:test_nbc_movement> ${OVERSUBSCRIBED_ARGS})
foreach(np 2 3)
  adacomp_mpi_test(nbc_movement_corrupt_frames_np${np} ${np} 120
                   ENV ${FORCE_COMPRESSION} ${NONBLOCKING_ON} ADACOMP_FAULT=corrupt-frames
                   COMMAND $<TARGET_FILE:test_nbc_movement> --corrupt)
endforeach()
# Data-movement collectives against PMPI.
foreach(np 1 2 3 4)
  set(args "")
  if(np GREATER 2)
    set(args ${OVERSUBSCRIBED_ARGS})
  endif()
  adacomp_mpi_test(gather_np${np} ${np} 300 ENV ${FORCE_COMPRESSION} COMMAND $<TARGET_FILE:test_gather> ${args})
endforeach()
adacomp_mpi_test(gather_raw_np3 3 300 ENV ADACOMP_MODE=raw COMMAND $<TARGET_FILE:test_gather> --raw ${OVERSUBSCRIBED_ARGS})
include(mpi/datatype/suites.cmake)
# MPI-4 large-count collectives (MPICH 4; Open MPI 4.1 and 5.0 have none).
if(NOT ADACOMP_MPI_FAMILY STREQUAL "openmpi")
  add_executable(test_large_count mpi/large_count.cpp)
  target_link_libraries(test_large_count PRIVATE adacomp MPI::MPI_C)
  foreach(np 2 3 4)
    adacomp_mpi_test(large_count_np${np} ${np} 300 ENV ${FORCE_COMPRESSION}
                     COMMAND $<TARGET_FILE:test_large_count>)
  endforeach()
  # Point-to-point past INT_MAX: replaces of 2 GiB + 4 KB (4.3 GB of memory on
  # one rank) and persistent large-count requests started twice.
  add_executable(test_large_count_p2p mpi/large_count_p2p.cpp)
  target_link_libraries(test_large_count_p2p PRIVATE adacomp MPI::MPI_C)
  adacomp_mpi_test(large_count_p2p_np1 1 300 ENV ${FORCE_COMPRESSION}
                   COMMAND $<TARGET_FILE:test_large_count_p2p>)
endif()
# Reduce_scatter(_block) cut into chunks at every size (lossless: no bound).
adacomp_mpi_test(gather_pipelined_np3 3 300
                 ENV ${NO_MODEL} ADACOMP_MODE=pipelined ADACOMP_PIPELINE_CHUNKS=3
                     ADACOMP_THRESHOLD_LOSSY=0 ADACOMP_THRESHOLD_PIPELINE=0
                 COMMAND $<TARGET_FILE:test_gather> ${OVERSUBSCRIBED_ARGS})
