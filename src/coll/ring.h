// Ring building blocks shared by the compressed reductions.
#pragma once

#include <cstddef>
#include <cstdint>

#include <mpi.h>

#include "coll/call.h"

namespace adacomp {

struct ReduceArgs {
  uint8_t* acc;  // count elements; this rank's input on entry
  size_t count;
  size_t elem_size;
  MPI_Datatype type;
  MPI_Op op;
};

// Ring reduce-scatter with every hop compressed. On return this rank's
// block owned_block(rank, size) of acc holds the full reduction.
void ring_reduce_scatter(CompressedCall& call, const ReduceArgs& a);

inline int owned_block(int rank, int size) { return (rank + 1) % size; }

// Ring allgather of the final blocks as frames: each owner encodes its block
// once and the frames are forwarded unchanged, so every rank decodes the very
// same bytes. Leaves the whole result in acc on every rank.
void ring_allgather_frames(CompressedCall& call, const ReduceArgs& a);

}  // namespace adacomp
