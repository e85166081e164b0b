// Homomorphic lossy ring Allreduce (SUM on float/double): reduction on the
// integer quantisation codes. See ring_codes.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include <mpi.h>

#include "coll/call.h"
#include "coll/ring.h"

namespace adacomp {

// The shared grid of one call: on, and its exponent (step 2^exp).
struct CodesGrid {
  bool on = false;
  int exp = 0;
};

// Whether this Allreduce reduces on codes, and on which grid. The ring has
// `ring_members` members, each bringing the exact-op sum (through PMPI) of
// at most `per_member` ranks' inputs (1 flat; node-aware: the node's ranks).
// Collective over plan.state->coll (the range and a NaN/Inf flag of every
// rank's input, for the bound and the code range) whenever the call is a
// lossy SUM on f32/f64 with ADACOMP_REDUCE_ON_CODES on; the answer is the
// same on every rank. Off: NaN/Inf in any input, no grid meets the bound in
// the int32 code range, or the call does not qualify.
CodesGrid codes_grid(const Plan& plan, MPI_Op op, const void* input, size_t count,
                     int ring_members, int per_member);

// Allreduces `count` elements at acc (this member's input on entry) among
// call.group on the grid: quantise once, add codes around the ring, decode
// once.
void ring_allreduce_codes(CompressedCall& call, uint8_t* acc, size_t count,
                          const CodesGrid& grid);

}  // namespace adacomp
