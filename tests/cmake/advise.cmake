# The advisor (ADACOMP_ADVISE, adacomp-report advise) and the capture
# (ADACOMP_CAPTURE, adacomp-codecs on its files) on the CG solver, 2 ranks
# as 2 nodes: the advised rules keep its iterations with the exchange lossy.
add_test(NAME advise_cg_1_1
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/advise_check.sh ${launch2} --
                 ${CMAKE_BINARY_DIR}/adacomp $<TARGET_FILE:adacomp-cg>
                 $<TARGET_FILE:adacomp-codecs> ${CMAKE_SOURCE_DIR}/tools/adacomp-report)
set_tests_properties(advise_cg_1_1 PROPERTIES TIMEOUT 600 LABELS mpi)
