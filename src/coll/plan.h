// Whether a collective call takes a compressed path, and with what. Every
// input here is identical on all ranks of the communicator.
#pragma once

#include <mpi.h>

#include "codec/codec.h"
#include "coll/datatype.h"
#include "policy/tier.h"
#include "runtime/comm_state.h"
#include "runtime/stats.h"

namespace adacomp {

struct Plan {
  CommState* state = nullptr;
  TypeInfo type;
  size_t bytes = 0;  // message bytes (count x type size)
  TierChoice tier;
  const Codec* codec = nullptr;
  EncodeParams params;  // abs_bound is filled in by the algorithm (per hop)
  int chunks = 1;       // pipeline chunks (1: not pipelined)
  ModelSlot* model = nullptr;  // runtime model slot, when the policy uses it
};

// True when a reduction should be compressed: commutative op, contiguous
// predefined type, intracommunicator, message in a compressed tier.
bool plan_reduction(Op operation, MPI_Comm comm, int count, MPI_Datatype type, MPI_Op op,
                    Plan* plan);

// True when a data-movement collective (Bcast, ...) should be compressed.
// Any datatype qualifies (bytes are bytes); non-contiguous ones are packed
// first. Only the sender's datatype decides the codec, which travels in the
// frames; the path itself depends on sizes only.
bool plan_movement(Op operation, MPI_Comm comm, int count, MPI_Datatype type, Plan* plan);

}  // namespace adacomp
