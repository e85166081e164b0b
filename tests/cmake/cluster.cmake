# The emulated cluster and shared-memory communicators.
# Included from tests/CMakeLists.txt, in its order.

# The emulated cluster (tools/cluster.sh, docs/cluster.md): each test builds
# its own cluster under its own prefix, runs one job across it and removes it,
# even on failure; its own timeout, shorter than the test's, stops a hung job
# in time for that.
# adacomp_cluster_test(NAME LAYOUT RATE TIMEOUT [ENV K=V...] COMMAND cmd...)
function(adacomp_cluster_test name layout rate timeout)
  cmake_parse_arguments(T "" "" "ENV;COMMAND" ${ARGN})
  if(layout MATCHES "^([0-9]+)x[0-9]+$")
    set(nodes ${CMAKE_MATCH_1})
  else()
    string(REPLACE "," ";" per_node "${layout}")
    list(LENGTH per_node nodes)
  endif()
  set(envs "")
  foreach(e ${T_ENV})
    list(APPEND envs --env ${e})
  endforeach()
  math(EXPR job_timeout "${timeout} - 20")
  # Namespaces are global to the machine: the build tree's hash in the name
  # keeps two builds (Open MPI and MPICH, worktrees) running one test apart.
  string(MD5 tree "${CMAKE_BINARY_DIR}")
  string(SUBSTRING "${tree}" 0 6 tree)
  string(REPLACE "_" "-" prefix "ct${tree}-${name}")
  add_test(NAME ${name}
           COMMAND ${PROJECT_SOURCE_DIR}/tools/cluster.sh with ${nodes} ${rate}
                   ${ADACOMP_MPI_FLAVOR} ${layout} ${envs} --timeout ${job_timeout}
                   -- ${T_COMMAND})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout} LABELS cluster
                                          ENVIRONMENT "CLUSTER_PREFIX=${prefix}")
endfunction()

# MPI_COMM_TYPE_SHARED sees the emulated nodes, even and uneven.
add_executable(cluster_locality cluster/locality.cpp)
target_include_directories(cluster_locality PRIVATE ${CMAKE_SOURCE_DIR}/tests/mpi
                                                    ${CMAKE_SOURCE_DIR}/include)
target_link_libraries(cluster_locality PRIVATE MPI::MPI_C)
foreach(layout 2x2 1,2,3)
  string(REPLACE "," "-" suffix ${layout})
  adacomp_cluster_test(cluster_locality_${suffix} ${layout} 1gbit 120
                       COMMAND $<TARGET_FILE:cluster_locality> ${layout})
endforeach()
# The library across real (emulated) nodes, results against PMPI: the
# point-to-point suite (same-node messages straight through MPI, the rest
# coded), the node-aware checks (coded bytes exactly what the layout implies,
# MPI_ANY_SOURCE from both routes) on an even and an uneven layout, the lossy
# bound, and the default policy exploring between nodes. (The collectives'
# whole matrix takes 1.5-4 min here, the links' latency times thousands of
# small calls; the same paths run under ADACOMP_NODE_MAP above.)
adacomp_cluster_test(cluster_p2p_2x2 2x2 1gbit 300 ENV ${FORCE_COMPRESSION}
                     COMMAND $<TARGET_FILE:test_p2p> --mixed)
adacomp_cluster_test(cluster_p2p_marker_2x2 2x2 1gbit 300 ENV ${FORCE_COMPRESSION}
                     COMMAND $<TARGET_FILE:test_p2p_marker>)
# The link check on a real 1 Gbit/s link: a probe scaled down 10^6 is
# raised to what the coded bodies achieved (about 99 MB/s here, under the
# link's 125: a lower bound).
adacomp_cluster_test(cluster_link_raise_1-1 1,1 1gbit 300
                     ENV ADACOMP_LINK_PROBE_OUTLIER=0:1e-6 ADACOMP_VERBOSE=1
                         ADACOMP_REPORT=${CMAKE_CURRENT_BINARY_DIR}/cluster_link_raise.json
                     COMMAND $<TARGET_FILE:test_link_check> raise
                             ${CMAKE_CURRENT_BINARY_DIR}/cluster_link_raise.json)
foreach(layout 2x2 1,2,3)
  string(REPLACE "," "-" suffix ${layout})
  adacomp_cluster_test(cluster_node_aware_${suffix} ${layout} 1gbit 300 ENV ${FORCE_COMPRESSION}
                       COMMAND $<TARGET_FILE:test_node_aware>)
endforeach()
adacomp_cluster_test(cluster_lossy_2x2 2x2 1gbit 300
                     ENV ADACOMP_MODE=lossy ADACOMP_THRESHOLD_LOSSLESS=0 ADACOMP_ERROR_BOUND=1e-3
                     COMMAND $<TARGET_FILE:test_lossy> abs 1e-3)
adacomp_cluster_test(cluster_model_explore_2x2 2x2 1gbit 300 ENV ${SLOW_CODING}
                     COMMAND $<TARGET_FILE:test_model> explore)
# Instructions the library executes per intercepted call on each route
# (bench/instructions.sh, callgrind): fails when a count grew more than 20%
# over the committed table bench/instructions/expected-<mpi>.tsv. The check
# can fail: a table of half the counts must stop it.
find_program(VALGRIND_PROGRAM valgrind)
if(VALGRIND_PROGRAM AND NOT ADACOMP_SMPI)
  add_test(NAME instructions_per_call
           COMMAND ${PROJECT_SOURCE_DIR}/bench/instructions.sh ${ADACOMP_MPI_FLAVOR} --check
                   ${CMAKE_BINARY_DIR})
  set_tests_properties(instructions_per_call PROPERTIES TIMEOUT 1200 LABELS mpi)
  add_test(NAME instructions_per_call_detects_growth
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/instructions_growth_check.sh ${ADACOMP_MPI_FLAVOR}
                   ${CMAKE_BINARY_DIR})
  set_tests_properties(instructions_per_call_detects_growth PROPERTIES TIMEOUT 600 LABELS mpi)
endif()
# The OSU-style benchmark as bench/osu.sh runs it (the launcher, default
# settings) at tiny counts, 2x2: every message of every test checked (source,
# count, bytes, and each sender's order under MPI_ANY_SOURCE, where each rank
# has a peer on its own node and two on the other). Its check can fail: one
# spoilt message must stop it.
adacomp_cluster_test(cluster_osu_bench_2x2 2x2 1gbit 300
                     COMMAND ${CMAKE_BINARY_DIR}/adacomp $<TARGET_FILE:adacomp-osu> --max 4K
                             --sizes 65504 --samples 1 --sample-time 0.0002 --yield)
add_test(NAME osu_bench_detects_corruption
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect_failure.sh "DATA MISMATCH in wildcard, 8 B"
                 ${launch2} $<TARGET_FILE:adacomp-osu> --tests wildcard --min 8 --max 8
                 --samples 1 --sample-time 0.0001 --self-check-fail)
set_tests_properties(osu_bench_detects_corruption PROPERTIES TIMEOUT 60 LABELS mpi)
