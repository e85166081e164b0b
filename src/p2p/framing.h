// Datatypes that join a frame header and a buffer, so that a frame is sent or
// received with no copy: a struct of {header bytes, count x type} at absolute
// addresses (used with MPI_BOTTOM).
#pragma once

#include <mpi.h>

namespace adacomp {

// A committed framing type the caller owns (MPI_Type_free). Any count: a
// block holds at most 2^30 elements, so capacities of 2 GiB and more work.
// Returns MPI_SUCCESS or the failing call's code.
int make_framing_type(const void* header, const void* buf, MPI_Count count, MPI_Datatype type,
                      MPI_Datatype* out);

// The same for a predefined `type`, from a cache the caller does not free
// from: MPICH 4.0 leaks 64 bytes per derived datatype created and freed
// (tests/mpi/recv_leak.cpp), and programs reuse their buffers, so a type per
// (header, buffer, count, type) is made once and kept. Each thread has its
// own cache, so no other thread frees a type between lookup and use.
// Not for persistent requests, which outlive a cache slot.
int cached_framing_type(const void* header, const void* buf, MPI_Count count,
                        MPI_Datatype type, MPI_Datatype* out);

// Frees the calling thread's cache (MPI_Finalize).
void clear_framing_types();

}  // namespace adacomp
