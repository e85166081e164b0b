# Settings: invalid values, sources, agreement, start-up.
# Included from tests/CMakeLists.txt, in its order.

# Invalid settings stop the job at MPI_Init with a message naming them.
set(invalid_settings
    "ADACOMP_MODE=fast|ADACOMP_MODE='fast' is invalid. accepts raw.lossless.lossy.adaptive.pipelined"
    "ADACOMP_MODE=lossy|ADACOMP_MODE=lossy needs an error bound"
    "ADACOMP_ERROR_BOUND=-1|ADACOMP_ERROR_BOUND='-1' is invalid"
    "ADACOMP_REL_ERROR_BOUND=2|ADACOMP_REL_ERROR_BOUND='2' is invalid"
    "ADACOMP_PIPELINE_CHUNKS=0|ADACOMP_PIPELINE_CHUNKS='0' is invalid"
    "ADACOMP_THRESHOLDLOSSLESS=1M|unknown environment variable ADACOMP_THRESHOLDLOSSLESS. did you mean ADACOMP_THRESHOLD_LOSSLESS."
    "ADACOMP_VERBSE=1|unknown environment variable ADACOMP_VERBSE. did you mean ADACOMP_VERBOSE."
    "ADACOMP_CONFIG=${CMAKE_CURRENT_BINARY_DIR}/typo.conf|typo.conf: unknown setting ADACOMP_MDOE. did you mean ADACOMP_MODE."
    "ADACOMP_THRESHOLD_LOSSY=sometimes|ADACOMP_THRESHOLD_LOSSY='sometimes' is invalid. accepts .* or never"
    "ADACOMP_THRESHOLD_LOSSLESS=12X|ADACOMP_THRESHOLD_LOSSLESS='12X' is invalid"
    "ADACOMP_LOSSLESS_CODEC=gzip|ADACOMP_LOSSLESS_CODEC='gzip' is invalid"
    "ADACOMP_ZSTD_LEVEL=99|ADACOMP_ZSTD_LEVEL='99' is invalid. accepts an integer from -7 to 22"
    "ADACOMP_THREADS=0|ADACOMP_THREADS='0' is invalid. accepts an integer from 1 to 64"
    "ADACOMP_THREADS=65|ADACOMP_THREADS='65' is invalid"
    "ADACOMP_THREADS=two|ADACOMP_THREADS='two' is invalid"
    "ADACOMP_CONFIG=/nonexistent/adacomp.conf|ADACOMP_CONFIG: cannot open"
    "ADACOMP_CONFIG=/|ADACOMP_CONFIG: '/' is a directory"
    "ADACOMP_THRESHOLD_LOSSLESS= -1|ADACOMP_THRESHOLD_LOSSLESS='-1' is invalid"
    "ADACOMP_XOR_MEMORY=+64K|ADACOMP_XOR_MEMORY='\\+64K' is invalid"
    "ADACOMP_PROGRESS=threads|ADACOMP_PROGRESS='threads' is invalid. accepts poll.thread"
    "ADACOMP_LOSSY_RULES=lossy siz=1K..|ADACOMP_LOSSY_RULES: rule 1 'lossy siz=1K..': unknown selector 'siz'. a rule is exact.lossy"
    "ADACOMP_LOSSY_RULES=lossy rel=1e-4 op=allreduc|rule 1 .*: unknown operation 'allreduc'"
    "ADACOMP_LOSSY_RULES=keep op=send|rule 1 'keep op=send': a rule starts with exact or lossy"
    "ADACOMP_LOSSY_RULES=lossy op=send|rule 'lossy op=send' is lossy under the job's bound, and none is set"
    "ADACOMP_LOSSY_RULES=lossy rel=2|rel=2: a lossy rule's one bound, positive and below 1"
    "ADACOMP_LOSSY_RULES=exact size=4M..1M|size=4M..1M: LO..HI in bytes"
    "ADACOMP_LOSSY_RULES=@/nonexistent/rules|ADACOMP_LOSSY_RULES='@/nonexistent/rules' is invalid")
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/typo.conf "ADACOMP_MODEL = off\nADACOMP_MDOE = raw\n")
set(i 0)
foreach(case ${invalid_settings})
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 setting)
  list(GET parts 1 regex)
  add_test(NAME invalid_config_${i}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect_failure.sh "${regex}"
                   ${launch2} $<TARGET_FILE:test_collectives>)
  # Printed once (by rank 0), not once per rank.
  set_tests_properties(invalid_config_${i} PROPERTIES TIMEOUT 60 LABELS mpi
                       ENVIRONMENT "${setting};EXPECT_ONCE=1")
  math(EXPR i "${i} + 1")
endforeach()

# Where settings come from (files, environment, in that order), variables
# module systems set (ignored), `never`.
add_test(NAME config_sources_np2
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/config_check.sh ${CMAKE_BINARY_DIR} ${launch2})
set_tests_properties(config_sources_np2 PROPERTIES TIMEOUT 120 LABELS mpi)

# Ranks with different settings must refuse to start, not deadlock later.
add_test(NAME mismatched_config_np2
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect_failure.sh "ranks disagree on the AdaComp"
                 ${ADACOMP_MPIEXEC} ${ADACOMP_MPIEXEC_FLAGS}
                 ${MPIEXEC_NUMPROC_FLAG} 1 env ADACOMP_MODE=lossless $<TARGET_FILE:test_collectives> :
                 ${MPIEXEC_NUMPROC_FLAG} 1 env ADACOMP_MODE=raw $<TARGET_FILE:test_collectives>)
set_tests_properties(mismatched_config_np2 PROPERTIES TIMEOUT 60 LABELS mpi)

# Settings only a sender uses (ADACOMP_INTERSTEP, ADACOMP_INTERSTEP_MEMORY) may differ
# between ranks; values are trimmed of blanks.
add_test(NAME sender_settings_differ_np2
         COMMAND ${ADACOMP_MPIEXEC} ${ADACOMP_MPIEXEC_FLAGS}
                 ${MPIEXEC_NUMPROC_FLAG} 1 env ADACOMP_INTERSTEP=on ADACOMP_INTERSTEP_MEMORY=1M
                     $<TARGET_FILE:test_p2p> :
                 ${MPIEXEC_NUMPROC_FLAG} 1 env ADACOMP_INTERSTEP=off $<TARGET_FILE:test_p2p>)
set_tests_properties(sender_settings_differ_np2 PROPERTIES TIMEOUT 300 LABELS mpi
                     ENVIRONMENT "ADACOMP_MODE= lossless ;ADACOMP_THRESHOLD_LOSSLESS=\t0")

# The library on rank 0 only: an error after ADACOMP_INIT_TIMEOUT, not a hang.
add_executable(test_partial_load mpi/partial_load.c)
target_link_libraries(test_partial_load PRIVATE MPI::MPI_C)
add_test(NAME partial_load_np2
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect_failure.sh
                 "rank 0: not every rank started AdaComp"
                 ${ADACOMP_MPIEXEC} ${ADACOMP_MPIEXEC_FLAGS}
                 ${MPIEXEC_NUMPROC_FLAG} 1 env ADACOMP_INIT_TIMEOUT=3 ${CMAKE_BINARY_DIR}/adacomp
                     $<TARGET_FILE:test_partial_load> :
                 ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:test_partial_load>)
set_tests_properties(partial_load_np2 PROPERTIES TIMEOUT 60 LABELS mpi)
adacomp_mpi_test(partial_load_all_np2 2 60 COMMAND ${CMAKE_BINARY_DIR}/adacomp
                 $<TARGET_FILE:test_partial_load>)

# Where MPI_Init's time goes (ADACOMP_VERBOSE=2): two declared nodes, the
# link probed and the route forced framed, so that every step runs; the
# probe moves data, so its time cannot read zero. (A test program, not the
# start-up benchmark: the sanitizer build makes test executables only.)
adacomp_mpi_test(startup_times_nodes_1_1 2 60
                 ENV ADACOMP_NODE_MAP=1,1 ADACOMP_P2P_ROUTE=framed ADACOMP_VERBOSE=2
                 COMMAND ${CMAKE_BINARY_DIR}/adacomp $<TARGET_FILE:test_partial_load>)
set_tests_properties(startup_times_nodes_1_1 PROPERTIES PASS_REGULAR_EXPRESSION
  "rank 0's MPI_Init: [0-9.]+ ms in MPI's own, [0-9.]+ ms in AdaComp's \\(agreement [0-9.]+, link probe ([1-9][0-9]*[.][0-9]|0[.][1-9]), point-to-point set-up [0-9.]+, other -?[0-9.]+\\)")
