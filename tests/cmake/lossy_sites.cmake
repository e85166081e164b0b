# Lossy rules by call site (ADACOMP_LOSSY_RULES site=, docs/lossy-scopes.md;
# the selector's tests are lossy_scopes.cmake's lossy_rules_site*).
# A site pattern with an unclosed '[' selects nothing fnmatch would say:
# the settings' error instead.
add_test(NAME invalid_config_lossy_site
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/expect_failure.sh
                 "rule 1 'lossy rel=1e-4 site=halo\\[': site=halo\\[: a function name or file:line"
                 ${launch2} $<TARGET_FILE:test_collectives>)
set_tests_properties(invalid_config_lossy_site PROPERTIES TIMEOUT 60 LABELS mpi
                     ENVIRONMENT "ADACOMP_LOSSY_RULES=lossy rel=1e-4 site=halo[;EXPECT_ONCE=1")

# What the library proves for a lossy call's result: adacomp_last_bound
# after each call (within the bound in force, above the measured error; 0
# after an exact one), with the reduction on codes and on the ring, and the
# report's certificate of the lossy site.
foreach(codes on off)
  adacomp_mpi_test(lossy_certificate_codes_${codes} 2 300
                   ENV ADACOMP_NODE_MAP=1,1 ADACOMP_MODEL=off ADACOMP_REDUCE_ON_CODES=${codes}
                       "ADACOMP_LOSSY_RULES=lossy rel=1e-4 site=halo_update"
                   COMMAND $<TARGET_FILE:test_lossy_rules> certificate)
endforeach()
# The same with ADACOMP_LOSSY_CHECK=on: the report's certificate of the
# lossy site, its measured error within the proven bound.
foreach(codes on off)
  add_test(NAME lossy_certificate_report_codes_${codes}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/lossy_certificate_check.sh ${launch2} --
                   $<TARGET_FILE:test_lossy_rules>)
  set_tests_properties(lossy_certificate_report_codes_${codes} PROPERTIES TIMEOUT 300 LABELS mpi
                       ENVIRONMENT "ADACOMP_NODE_MAP=1,1;ADACOMP_MODEL=off;ADACOMP_REDUCE_ON_CODES=${codes};ADACOMP_LOSSY_RULES=lossy rel=1e-4 site=halo_*")
endforeach()
