// MPI_Comm_idup_with_info with the library's hints: the one hint agreement
// that completes with a request of the application's.
#pragma once

#include <mpi.h>

namespace adacomp {

// PMPI, and the agreement on `info`'s keys (runtime/comm_hints.h), started
// now on `comm` (nonblocking, beside the duplication) and stored on
// *newcomm when the application completes *request (requests/registry.h).
int idup_with_hints(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request);

}  // namespace adacomp
