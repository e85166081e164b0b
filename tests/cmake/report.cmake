# The launcher and the report.
# Included from tests/CMakeLists.txt, in its order.

# LD_PRELOAD through the launcher, and the JSON report.
add_test(NAME launcher_report_np2
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/report_check.sh ${launch2} --
                 ${CMAKE_BINARY_DIR}/adacomp $<TARGET_FILE:adacomp-demo>)
set_tests_properties(launcher_report_np2 PROPERTIES TIMEOUT 120 LABELS mpi)
# Every rank enters PMPI_Finalize after the report is written (a probe
# preloaded after the library looks at each rank's PMPI_Finalize).
add_library(test_finalize_probe MODULE mpi/finalize_probe.c)
target_link_libraries(test_finalize_probe PRIVATE ${CMAKE_DL_LIBS})
add_test(NAME launcher_report_finalize_np2
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/report_finalize_check.sh ${launch2} --
                 $<TARGET_FILE:test_finalize_probe> ${CMAKE_BINARY_DIR}/adacomp
                 $<TARGET_FILE:adacomp-demo>)
set_tests_properties(launcher_report_finalize_np2 PROPERTIES TIMEOUT 180 LABELS mpi)
# The report's verdict, link, settings, call sites, per-rank rows,
# MPI_Pcontrol regions and report paths (docs/report.md). Debug information:
# the call sites resolve to this program's functions and lines.
add_executable(test_report_sites mpi/report_sites.cpp)
target_compile_options(test_report_sites PRIVATE -g)
target_link_libraries(test_report_sites PRIVATE adacomp MPI::MPI_C)
add_test(NAME report_verdict_np2
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/report_verdict_check.sh ${launch2} --
                 $<TARGET_FILE:test_report_sites>)
set_tests_properties(report_verdict_np2 PROPERTIES TIMEOUT 300 LABELS mpi)
# Call sites' bytes of the data-movement collectives add up to the data
# moved (uneven counts, in place), and to no less than the codecs were given.
add_test(NAME report_bytes_np3
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/report_bytes_check.sh ${launch3} --
                 $<TARGET_FILE:test_report_sites> ${CMAKE_SOURCE_DIR}/tools)
set_tests_properties(report_bytes_np3 PROPERTIES TIMEOUT 240 LABELS mpi)
# adacomp-report on two real reports (raw, and lossless across two declared
# nodes): compare, batches with bad files, CSV, plots, HTML; schema 2 fields.
add_executable(report-app report/app.c)
target_link_libraries(report-app PRIVATE MPI::MPI_C m)
add_test(NAME report_tool_np2
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/report/tool_check.sh ${launch2} --
                 ${CMAKE_BINARY_DIR}/adacomp $<TARGET_FILE:report-app>)
set_tests_properties(report_tool_np2 PROPERTIES TIMEOUT 180 LABELS mpi)
