# Lossy scopes: communicator hints, rules, the solver.
# Included from tests/CMakeLists.txt, in its order.

# Lossy scopes (docs/lossy-scopes.md) on 2 ranks as 2 nodes and on 2 x 2:
# hints under the default settings; adacomp_lossy=off under a job-wide
# bound; data movement lossy only where hinted (every call coded: the model
# off, point-to-point framed), exact under the job-wide bound alone.
foreach(layout "2;1,1" "4;2,2")
  list(GET layout 0 np)
  list(GET layout 1 map)
  string(REPLACE "," "_" tag ${map})
  adacomp_mpi_test(lossy_scopes_hints_${tag} ${np} 300 ENV ADACOMP_NODE_MAP=${map}
                   COMMAND $<TARGET_FILE:test_lossy_scopes> hints)
  adacomp_mpi_test(lossy_scopes_off_${tag} ${np} 300
                   ENV ADACOMP_NODE_MAP=${map} ADACOMP_REL_ERROR_BOUND=1e-4
                   COMMAND $<TARGET_FILE:test_lossy_scopes> off)
  adacomp_mpi_test(lossy_scopes_movement_${tag} ${np} 300
                   ENV ADACOMP_NODE_MAP=${map} ADACOMP_MODEL=off ADACOMP_P2P_ROUTE=framed
                       ADACOMP_REL_ERROR_BOUND=1e-4
                   COMMAND $<TARGET_FILE:test_lossy_scopes> movement)
  adacomp_mpi_test(lossy_scopes_invalid_${tag} ${np} 300 ENV ADACOMP_NODE_MAP=${map}
                   COMMAND $<TARGET_FILE:test_lossy_scopes> invalid)
endforeach()
# Lossy rules (ADACOMP_LOSSY_RULES), one test per selector; every call coded
# (the model off) on 2 ranks as 2 nodes. Malformed rules: invalid_config_*.
set(lossy_rules
    "op|lossy rel=1e-4 op=alltoall" "size|lossy rel=1e-4 size=2M.." "type|lossy rel=1e-4 type=float"
    "comm|lossy rel=1e-4 comm=halo*" "after|lossy rel=1e-4 op=allreduce after=3"
    "pcontrol|lossy rel=1e-4 pcontrol=2"
    "first|@${CMAKE_CURRENT_BINARY_DIR}/first.rules"
    # By call site: one Allreduce, same size and communicator, from
    # different functions of test_lossy_rules (built with debug
    # information, so that sites resolve to file:line as well).
    "site|lossy rel=1e-4 site=halo_update"
    "site_after|lossy rel=1e-4 site=*_update after=2"
    "site_line|@${CMAKE_CURRENT_BINARY_DIR}/site_line.rules")
target_compile_options(test_lossy_rules PRIVATE -g)
# The first rule by function name, the second by file:line.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/site_line.rules
     "exact site=dot_products\nlossy rel=1e-4 site=lossy_rules.cpp:*\n")
# Rules from a file, one a line: the first that selects a call decides.
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/first.rules
     "# dot products stay exact\nexact comm=dots\nlossy rel=1e-4   # the rest\n")
foreach(case ${lossy_rules})
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 selector)
  list(GET parts 1 rules)
  adacomp_mpi_test(lossy_rules_${selector} 2 300
                   ENV ADACOMP_NODE_MAP=1,1 ADACOMP_MODEL=off "ADACOMP_LOSSY_RULES=${rules}"
                   COMMAND $<TARGET_FILE:test_lossy_rules> ${selector})
endforeach()
# The solver (bench/cg.c): a job-wide bound changes its iterations; its
# exchange hinted, it converges as plain with the exchange coded lossy.
add_test(NAME lossy_scopes_cg_1_1
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cg_check.sh ${launch2} --
                 ${CMAKE_BINARY_DIR}/adacomp $<TARGET_FILE:adacomp-cg>)
set_tests_properties(lossy_scopes_cg_1_1 PROPERTIES TIMEOUT 600 LABELS mpi)
