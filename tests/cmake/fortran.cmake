# Fortran, the codec and point-to-point subdirectories.
# Included from tests/CMakeLists.txt, in its order.

# Fortran (use mpi, use mpi_f08) through the Fortran entry points; the JSON
# statistics must show the calls were compressed.
# Only with this MPI's own Fortran wrapper (tools/build.sh passes it, or
# ADACOMP_FORTRAN=OFF where the MPI has none): another MPI's mpif90 on PATH
# would build programs for that MPI.
option(ADACOMP_FORTRAN "Fortran tests (needs MPI_Fortran_COMPILER of this MPI)" ON)
include(CheckLanguage)
if(ADACOMP_FORTRAN)
  check_language(Fortran)
endif()
if(ADACOMP_FORTRAN AND CMAKE_Fortran_COMPILER)
  enable_language(Fortran)
  find_package(MPI COMPONENTS Fortran)
endif()
# fortran_stats_test(NAME NP "OPS" TARGET): TARGET on NP ranks with compression
# forced; stats_check.sh then requires every one of OPS compressed.
function(fortran_stats_test name np ops target)
  adacomp_mpi_command(launch ${np})
  add_test(NAME ${name}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/stats_check.sh "${ops}" ${launch}
                   $<TARGET_FILE:${target}>)
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 LABELS mpi
                       ENVIRONMENT "${FORCE_COMPRESSION};${NONBLOCKING_ON}")
endfunction()
if(MPI_Fortran_FOUND)
  add_executable(test_fortran fortran/p2p_coll.f90)
  add_executable(test_fortran_f08 fortran/f08.f90)
  # Matched probes, one source built for `use mpi` and for `use mpi_f08`.
  add_executable(test_fortran_mprobe fortran/mprobe.F90)
  add_executable(test_fortran_mprobe_f08 fortran/mprobe.F90)
  target_compile_definitions(test_fortran_mprobe_f08 PRIVATE ADACOMP_F08)
  foreach(t fortran fortran_f08 fortran_mprobe fortran_mprobe_f08)
    # libadacomp first: its mpi_* symbols must win over the MPI's Fortran library.
    target_link_libraries(test_${t} PRIVATE adacomp MPI::MPI_Fortran)
  endforeach()
  foreach(np 2 3)
    fortran_stats_test(fortran_np${np} ${np}
                       "send recv allreduce bcast reduce allgather alltoall gather scatter"
                       test_fortran)
    # Every receive there is a matched one: compressed `recv` traffic is theirs.
    fortran_stats_test(fortran_mprobe_np${np} ${np} "send recv" test_fortran_mprobe)
  endforeach()
  # use mpi_f08 on both MPIs (MPICH: its buffer routines reach our C entry
  # points, the others our mpi_<name>_f08_; see docs/p2p.md "Fortran").
  fortran_stats_test(fortran_f08_np2 2 "send recv allreduce" test_fortran_f08)
  fortran_stats_test(fortran_mprobe_f08_np2 2 "send recv" test_fortran_mprobe_f08)
else()
  message(STATUS "AdaComp: no MPI Fortran compiler, Fortran tests skipped")
endif()

add_subdirectory(codec)
add_subdirectory(p2p)
