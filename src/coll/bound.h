// Error budget of lossy collectives (the arithmetic: policy/budget.h).
#pragma once

#include <cstddef>

#include <mpi.h>

#include "coll/plan.h"

namespace adacomp {

// Per-compression bound for this call, or 0 when no positive bound is left
// (the call then codes losslessly). A relative user bound is scaled by the
// value range of the finite values. With agree != MPI_COMM_NULL range and
// magnitude are taken over all ranks of that communicator (collective), so
// every rank uses the same bound; partial results are then assumed to reach
// `ranks` times the largest input magnitude.
double hop_bound(const Plan& plan, const void* data, size_t count, MPI_Comm agree,
                 int compressions, int additions);

// hop_bound in two halves, for callers that agree without blocking
// (coll/nonblocking.cpp): this rank's finite range as {-lo, hi}, to be
// MAX-reduced over the ranks; then the bound from the agreed range.
void local_range(const Plan& plan, const void* data, size_t count, double range[2]);
double bound_from_range(const Plan& plan, const double range[2], int ranks, int compressions,
                        int additions);

}  // namespace adacomp
