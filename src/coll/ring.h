// Ring building blocks shared by the compressed reductions. Each block that
// moves is cut into plan.chunks pieces, each its own frame: chunk k+1 is
// being encoded while chunk k is on the wire, and chunks that have arrived
// are decoded while later ones travel. One chunk is the unpipelined case.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <mpi.h>

#include "coll/call.h"
#include "wire/frame.h"

namespace adacomp {

// Elements [offset, offset + count) of the vector.
struct RingBlock {
  size_t offset;
  size_t count;
};

struct ReduceArgs {
  uint8_t* acc;  // the whole vector; this rank's input on entry
  size_t elem_size;
  MPI_Datatype type;
  MPI_Op op;
  std::vector<RingBlock> blocks;  // one per rank, disjoint, in any order
};

// Byte geometry of the P blocks of a vector, each cut into K chunks.
struct RingGeometry {
  const ReduceArgs& a;
  int chunks;
  size_t chunk_offset(int b, int c) const {
    return (a.blocks[b].offset + block_begin(a.blocks[b].count, chunks, c)) * a.elem_size;
  }
  size_t chunk_bytes(int b, int c) const {
    return block_count(a.blocks[b].count, chunks, c) * a.elem_size;
  }
  size_t chunk_capacity() const {
    size_t widest = 0;
    for (const RingBlock& b : a.blocks) widest = std::max(widest, b.count);
    return frame_capacity(max_block_count(widest, chunks) * a.elem_size);
  }
};

// P nearly equal blocks in vector order: the Allreduce's partition.
std::vector<RingBlock> even_blocks(size_t count, int parts);

// Ring reduce-scatter with every hop compressed. On return this rank's
// block owned_block(rank, size) of acc holds the full reduction. Block b
// starts at rank b and is folded in ring order, a fixed order of operations.
void ring_reduce_scatter(CompressedCall& call, const ReduceArgs& a);

inline int owned_block(int rank, int size) { return (rank + 1) % size; }

// Compressions that any element of a reduce-scatter result went through:
// one per hop, P-1.
inline int reduce_scatter_compressions(int size) { return size - 1; }

// Ring allgather of the final blocks as frames: each owner encodes its block
// once and the frames are forwarded unchanged, so every rank decodes the very
// same bytes (the owner too, when lossy). Leaves the result in acc everywhere.
void ring_allgather_frames(CompressedCall& call, const ReduceArgs& a);

// Compressions that any element of an allreduce result went through: the
// reduce-scatter's and one allgather encoding.
inline int allreduce_compressions(int size) { return reduce_scatter_compressions(size) + 1; }

}  // namespace adacomp
