# Tests without MPI: the decision, wire and runtime layers.
# Included from tests/CMakeLists.txt, in its order.

# The same decisions, and the rest of the decision and wire layers, without
# MPI: plain executables (tests/decision, tests/wire), nonzero exit on failure.
# The decision layer links no MPI, so these need none.
foreach(unit decision/model decision/config decision/tier decision/budget decision/form_choice
             decision/lossy_scope decision/plan wire/frame
             wire/segments wire/marker)
  get_filename_component(dir ${unit} DIRECTORY)
  get_filename_component(name ${unit} NAME)
  add_executable(${dir}_${name}_test ${dir}/test_${name}.cpp)
  target_include_directories(${dir}_${name}_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${dir}_${name}_test PRIVATE adacomp_${dir} adacomp_wire adacomp_codec
                                                    Threads::Threads)
  add_test(NAME ${dir}_${name} COMMAND ${dir}_${name}_test)
  list(APPEND unit_tests ${dir}_${name}_test)
endforeach()
# The handle table (the registry's, the datatypes') is a header of the
# runtime layer that uses no MPI: its include root alone.
add_executable(runtime_handle_table_test runtime/test_handle_table.cpp)
target_include_directories(runtime_handle_table_test PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
                                                              ${CMAKE_BINARY_DIR}/layers/runtime)
add_test(NAME runtime_handle_table COMMAND runtime_handle_table_test)

adacomp_mpi_test(tier_boundaries_np2 2 120
                 ENV ADACOMP_MODE=pipelined ADACOMP_MODEL=off ADACOMP_ERROR_BOUND=1e-6
                     ADACOMP_THRESHOLD_LOSSLESS=4K ADACOMP_THRESHOLD_LOSSY=64K
                     ADACOMP_THRESHOLD_PIPELINE=1M
                 COMMAND $<TARGET_FILE:test_tiers>)
