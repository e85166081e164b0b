# Install, wrong MPI, the demo, the docs and packaging.
# Included from tests/CMakeLists.txt, in its order.

# Install (issue 15): the installed tree on its own, consumers through the
# CMake package and pkg-config, every tool's --help/--version, the site
# configuration, adacomp-report on a real run's report.
add_test(NAME install_tree
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install_check.sh ${ADACOMP_MPI_FLAVOR}
                 ${CMAKE_BINARY_DIR}/install-test ${CMAKE_BINARY_DIR} --install)
set_tests_properties(install_tree PROPERTIES TIMEOUT 180 LABELS mpi)
# A program of the other MPI: one message naming both and the build to use.
# The other MPI of each pair a site mixes up: Open MPI 4 and MPICH (Debian's,
# both installed here) for each other, Open MPI 5 against 4, Intel MPI
# against MPICH, the standard ABI against MPICH 5's own ABI (build/venv:
# tools/install-mpi.sh); tools/run-tests.sh runs the pairs in reverse.
set(_other_mpi_openmpi mpich mpich)
set(_other_mpi_mpich openmpi openmpi)
set(_other_mpi_openmpi5 openmpi openmpi)
set(_other_mpi_impi mpich mpich)
set(_other_mpi_mpiabi mpich5 mpich)
add_test(NAME wrong_mpi
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/wrong_mpi_check.sh ${CMAKE_BINARY_DIR}
                 ${_other_mpi_${ADACOMP_MPI_FLAVOR}})
set_tests_properties(wrong_mpi PROPERTIES TIMEOUT 120 LABELS mpi)
# The demo in its short mode, figures checked (needs root for ip netns).
add_test(NAME demo_short
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/demo_check.sh ${CMAKE_BINARY_DIR} ${ADACOMP_MPI_FLAVOR})
set_tests_properties(demo_short PROPERTIES TIMEOUT 180 LABELS mpi SKIP_RETURN_CODE 77)
# Every list of the calls AdaComp compresses (README, man pages, docs/) is
# the one generated from the call table.
add_test(NAME docs_call_table COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/tools/call_docs.py check)
# The entry points the build generated into src/boundary/generated/ are the
# committed ones (a change to mpi_calls.txt commits its entries with it).
add_test(NAME generated_entries_current
         COMMAND git -C ${CMAKE_SOURCE_DIR} diff --exit-code --stat -- src/boundary/generated)
# Every relative link and anchor of the tree's markdown resolves, and no
# tracked text speaks of how the work was organised.
add_test(NAME docs_links COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs_links.py ${CMAKE_SOURCE_DIR})
add_test(NAME process_words COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/process_words_check.py ${CMAKE_SOURCE_DIR})
# The Spack recipe and install templates, checked without Spack.
add_test(NAME packaging_metadata COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/packaging/check.py)
set_tests_properties(packaging_metadata PROPERTIES TIMEOUT 60)
