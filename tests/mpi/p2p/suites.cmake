# test_p2p's suites, one file per feature (tests/mpi/p2p.cpp runs them):
# shared by the MPI build (tests/CMakeLists.txt) and SMPI's (tests/smpi).
set(P2P_SUITES basics.cpp completion.cpp comms.cpp mpi4.cpp)
list(TRANSFORM P2P_SUITES PREPEND ${CMAKE_CURRENT_LIST_DIR}/)
