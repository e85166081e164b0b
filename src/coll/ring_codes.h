// Homomorphic lossy ring Allreduce (SUM on float/double): reduction on the
// integer quantisation codes. See ring_codes.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include <mpi.h>

#include "coll/call.h"
#include "coll/ring.h"

namespace adacomp {

// Allreduces `count` elements at acc (this rank's input on entry) among
// call.group on a shared quantisation grid. Returns false, identically on
// every rank and before any ring traffic, when the call does not qualify
// (not a lossy SUM on f32/f64, NaN/Inf in any input, no grid meets the
// bound in the int32 code range); the caller then takes the usual ring.
// Collective over call.group whenever the op and type qualify.
bool ring_allreduce_codes(CompressedCall& call, uint8_t* acc, size_t count, MPI_Op op);

}  // namespace adacomp
