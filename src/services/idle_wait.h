// The library's own collectives at MPI_Init and MPI_Finalize (the
// agreement, the probe's gather, the bodies' communicator, the finalize
// barriers and the link vote), waited for without MPI's busy polling: on a
// node with more ranks than cores the ranks still polling hold the cores
// that the ranks yet to reach the call need (2 nodes x 2 ranks on 2 cores:
// one blocking Comm_dup of MPI_COMM_WORLD took 32-82 ms).
#pragma once

#include <mpi.h>

namespace adacomp {

// At MPI_Init: tests `request` until it completes, yielding the core
// between tests for the first 2 ms (a collective between fast nodes
// completes in them), then napping 0.2 ms between tests. A positive
// `timeout_s` gives up after that many seconds and returns false (the
// request is left active); otherwise it returns true.
bool wait_asleep(MPI_Request* request, double timeout_s = 0);
// At MPI_Finalize: tests until it completes, yielding between tests but
// never napping, so that this rank goes on making MPI progress for peers
// that are leaving: with MPICH 4.0 over UCX, peers that napped while one
// disconnected cost it about 1 s in PMPI_Finalize (2 nodes x 2 ranks).
void wait_yielding(MPI_Request* request);

int comm_dup_asleep(MPI_Comm comm, MPI_Comm* newcomm);  // MPI_Init
int barrier_yielding(MPI_Comm comm);                    // MPI_Finalize

// Under SMPI (ranks are threads that must yield in MPI) each is PMPI_Wait
// or the blocking call.

}  // namespace adacomp
