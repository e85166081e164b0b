// Ring building blocks shared by the compressed reductions. Each block that
// moves is cut into plan.chunks pieces, each its own frame: chunk k+1 is
// being encoded while chunk k is on the wire, and chunks that have arrived
// are decoded while later ones travel. One chunk is the unpipelined case.
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
// same bytes (the owner too, when lossy). Leaves the result in acc everywhere.
void ring_allgather_frames(CompressedCall& call, const ReduceArgs& a);

// Compressions that any element of an allreduce result went through: P-1
// reduce-scatter hops and one allgather encoding.
inline int allreduce_compressions(int size) { return size; }

}  // namespace adacomp
