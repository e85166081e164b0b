// The library's own collectives at MPI_Init (the agreement, the probe's
// gather, the bodies' communicator), waited for without MPI's busy
// polling: on a node with more ranks than cores the ranks still polling
// hold the cores that the ranks yet to reach the call need (2 nodes x 2
// ranks on 2 cores: one blocking Comm_dup of MPI_COMM_WORLD took 32-82 ms).
// Not at MPI_Finalize: there, peers that napped or yielded while one
// disconnected brought MPICH 4.0's 1 s disconnect into most jobs
// (p2p/bodies_comm.cpp bodies_close).
#pragma once

#include <mpi.h>

namespace adacomp {

// Tests `request` until it completes, yielding the core between tests for
// the first 2 ms (a collective between fast nodes completes in them), then
// napping 0.2 ms between tests. A positive `timeout_s` gives up after that
// many seconds and returns false (the request is left active); otherwise
// it returns true. Under SMPI (ranks are threads that must yield in MPI)
// it is PMPI_Wait.
bool wait_asleep(MPI_Request* request, double timeout_s = 0);

// PMPI_Comm_dup through PMPI_Comm_idup and wait_asleep (the blocking dup
// under SMPI 3.32, which has no Comm_idup).
int comm_dup_asleep(MPI_Comm comm, MPI_Comm* newcomm);

}  // namespace adacomp
