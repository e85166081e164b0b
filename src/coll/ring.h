// The decode-add-encode ring of the compressed reductions, one state machine
// for every form (coll/schedule.h): P-1 reduce-scatter steps, each hop
// decoded, reduced and encoded again, then for an Allreduce P-1 allgather
// steps forwarding the owners' frames. Each block that moves is cut into
// plan.chunks pieces, each its own frame: chunk k+1 is being encoded while
// chunk k is on the wire, and chunks that have arrived are decoded while
// later ones travel. One chunk is the unpipelined case.
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

// P nearly equal blocks in vector order: the Allreduce's partition.
std::vector<RingBlock> even_blocks(size_t count, int parts);

inline int owned_block(int rank, int size) { return (rank + 1) % size; }

// Compressions that any element of a reduce-scatter result went through:
// one per hop, P-1.
inline int reduce_scatter_compressions(int size) { return size - 1; }

// Compressions that any element of an allreduce result went through: the
// reduce-scatter's and one allgather encoding.
inline int allreduce_compressions(int size) { return reduce_scatter_compressions(size) + 1; }

// The ring over call.group with the messages of one call under `tag`.
// Reduce-scatter: on completion this rank's block owned_block(rank, size)
// of acc holds the full reduction; block b starts at rank b and is folded in
// ring order, a fixed order of operations. With `allgather` the final blocks
// then travel as frames: each owner encodes its block once and the frames
// are forwarded unchanged, so every rank decodes the very same bytes (the
// owner too, when lossy), and acc holds the result everywhere. Its buffers
// are taken from call.memory() when it is built.
class HopRing {
 public:
  HopRing(CompressedCall& call, ReduceArgs args, bool allgather, int tag);
  // Does what is ready (with `wait`: everything); true once done.
  bool advance(bool wait);
  const ReduceArgs& args() const { return a_; }

 private:
  enum class Phase { reduce_scatter, allgather, done };
  bool reduce_scatter_step(bool wait);
  bool allgather_step(bool wait);
  void fold(int b, int c, size_t got);  // received chunk c of block b, into acc
  void decode_block(int b);             // every chunk of a forwarded block, into acc
  size_t chunk_offset(int b, int c) const {
    return (a_.blocks[b].offset + block_begin(a_.blocks[b].count, k_, c)) * a_.elem_size;
  }
  size_t chunk_bytes(int b, int c) const {
    return block_count(a_.blocks[b].count, k_, c) * a_.elem_size;
  }
  uint8_t* slot(int b, int c) { return frames_ + cap_ * (static_cast<size_t>(b) * k_ + c); }
  size_t& size_of(int b, int c) { return sizes_[static_cast<size_t>(b) * k_ + c]; }

  CompressedCall& call_;
  const ReduceArgs a_;
  const int p_, r_, k_, tag_, left_, right_;
  const size_t cap_;  // frame bytes of the widest chunk
  uint8_t *send_ = nullptr, *recv_ = nullptr, *incoming_ = nullptr, *frames_ = nullptr;
  std::vector<size_t> sizes_, got_;
  std::vector<MPI_Request> reqs_;  // receives first, then sends
  Phase phase_;
  int step_ = 0, next_ = 0;
  int pending_ = -1;  // block received in the last allgather step, still to decode
  bool posted_ = false;
};

}  // namespace adacomp
