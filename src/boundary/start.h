// The library's start and stop around MPI_Init* and MPI_Finalize
// (boundary/lifecycle.cpp), above every other layer: each layer's set-up,
// MPI_Init's one agreement, the link probe, and at the end the statistics.
#pragma once

namespace adacomp {

// Called at load and right before PMPI_Init* (a program that loads its MPI
// itself, python with mpi4py, has it only then): stops the job with one line
// naming both MPIs and the build to use when the program runs on another MPI
// than this build's (runtime/mpi_library.h), before that MPI starts.
void stop_on_wrong_mpi();
// Called right after PMPI_Init*. Validates the configuration, checks that all
// ranks agree on it, and aborts the job with a clear message if not.
void runtime_start();
// ADACOMP_VERBOSE >= 2: rank 0 prints where its MPI_Init went (seconds):
// PMPI_Init*, the library's part in all, and in it the agreement, the
// link probe and point-to-point's set-up.
void print_startup_times(double pmpi_s, double p2p_s, double library_s);
// Called right before PMPI_Finalize: statistics, then private communicators.
void runtime_stop();

}  // namespace adacomp
