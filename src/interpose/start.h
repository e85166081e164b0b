// The library's start and stop around MPI_Init* and MPI_Finalize
// (interpose/lifecycle.cpp), above every other layer: each layer's set-up,
// MPI_Init's one agreement, the link probe, and at the end the statistics.
#pragma once

namespace adacomp {

// Called right after PMPI_Init*. Validates the configuration, checks that all
// ranks agree on it, and aborts the job with a clear message if not.
void runtime_start();
// Called right before PMPI_Finalize: statistics, then private communicators.
void runtime_stop();

}  // namespace adacomp
