// Which MPI library the process really runs on, against the one this
// library was compiled for (mpi.h). A build for the other MPI would pass its
// own handle values to the running MPI and fail with unrelated errors, so
// this is checked first, with nothing but a string query.
#pragma once

#include <string>

namespace adacomp {

// "Open MPI 4.1.4", "MPICH 4.0.2": from MPI_Get_library_version's text
// (or this build's ADACOMP_MPI_BUILT_FOR, e.g. "MPI ABI 1.0").
struct MpiLibrary {
  std::string flavor;  // the build for it: openmpi, openmpi5, mpich (also
                       // MVAPICH), impi, mpiabi (cmake/mpi_flavor.cmake)
  std::string name;    // with version, for messages
};
MpiLibrary parse_mpi_library(const std::string& version_text);

// Empty when the running MPI, and every MPI library loaded in the process,
// is the one this build is for; otherwise the message that says which
// build to use.
std::string mpi_library_mismatch();

}  // namespace adacomp
