// What differs between the MPI ABIs this library builds for, in one place
// (the flavours: cmake/mpi_flavor.cmake). Everything else is written once
// against mpi.h.
#pragma once

#include <mpi.h>

#ifdef MPI_ABI_VERSION
// The MPI-5 standard ABI (mpicc_abi) has no MPI_Fint and no *_f2c/*_c2f: it
// converts handles to and from int with *_toint/*_fromint. A Fortran program
// links its MPI's own ABI, never this one, so the build has no Fortran entry
// points (CMakeLists.txt); the matched-probe table still converts.
typedef int MPI_Fint;
#define PMPI_Message_c2f PMPI_Message_toint
#define PMPI_Message_f2c PMPI_Message_fromint
#endif

namespace adacomp {

// MPI_ERRORS_ABORT (MPI-4), or MPI_ERRHANDLER_NULL where the running MPI has
// none. Open MPI's handle is the address of a variable that Open MPI 4
// lacks: referenced directly, it would stop the loading of an Open MPI 5
// build on Open MPI 4 with a linker error, before the check that names the
// build to use (runtime/mpi_library.h). So it is looked up when needed.
MPI_Errhandler mpi_errors_abort();

}  // namespace adacomp
