// The Wait and Test families over every request, the library's (the
// registry, requests/registry.h) and MPI's own, in one loop: one PMPI call of
// the family's form over the array, then each library request it completed
// finished by its owner (LibraryRequest::finish). While the registry's
// Progress is outstanding or a request among them is polled, a wait polls
// instead: progress advanced and one Test-form pass over the array, until
// done, so a rank waiting on anything keeps advancing the schedules its
// peers may need.
//
// kDeclined when no library request is among them and nothing is
// outstanding: the caller's PMPI call then does it alone. `op` names the
// user's call ("Recv", ...), for the errors finishing raises.
#pragma once

#include <mpi.h>

#include "decision/call_result.h"

namespace adacomp {
namespace completion {

CallResult wait(const char* op, MPI_Request* req, MPI_Status* status);
CallResult test(const char* op, MPI_Request* req, int* flag, MPI_Status* status);
CallResult waitall(int n, MPI_Request reqs[], MPI_Status statuses[]);
CallResult testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]);
CallResult waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status);
CallResult testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status);
CallResult waitsome(int n, MPI_Request reqs[], int* outcount, int indices[],
                    MPI_Status statuses[]);
CallResult testsome(int n, MPI_Request reqs[], int* outcount, int indices[],
                    MPI_Status statuses[]);

}  // namespace completion

// A message cut by MPI because it exceeds the posted buffer.
bool truncation(int rc);

}  // namespace adacomp
