// The compressed ring of the reductions, one walk for every form (blocking,
// nonblocking, persistent; coll/schedule.h) and both codings: the
// decode-add-encode ring (HopRing, below) and the reduction on quantisation
// codes (CodesRing, coll/ring_codes.h). P-1 reduce-scatter steps, each
// received chunk folded into this rank's partial block, then for an
// Allreduce P-1 allgather steps forwarding the owners' final frames
// unchanged. Each block that moves is cut into plan.chunks pieces, each its
// own frame: chunk k+1 is being encoded while chunk k is on the wire, and
// chunks that have arrived are folded or decoded while later ones travel.
// One chunk is the unpipelined case.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <mpi.h>

#include "coll/compressed_call.h"
#include "wire/frame.h"

namespace adacomp {

// Elements [offset, offset + count) of the vector.
struct RingBlock {
  size_t offset;
  size_t count;
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

// What a ring does with its chunks (chunk c of ring block b).
class RingCoding {
 public:
  // This rank's chunk as a message into `frame`; returns its size.
  virtual size_t encode(int b, int c, uint8_t* frame) = 0;
  // Reduce-scatter: a received chunk folded into this rank's partial block.
  virtual void fold(int b, int c, const uint8_t* frame, size_t size) = 0;
  // Allgather: a forwarded final chunk, into the result.
  virtual void decode(int b, int c, const uint8_t* frame, size_t size) = 0;
  // Allgather: this rank's own final block b takes its result's value
  // while its frames travel.
  virtual void adopt_own(int b) = 0;
  // The raw bytes a chunk carries (the statistics).
  virtual size_t raw_bytes(int b, int c) const = 0;

 protected:
  ~RingCoding() = default;
};

// The walk of the ring over call.group with the messages of one call under
// `tag`: block b starts at rank b and is folded in ring order, a fixed order
// of operations, so that on completion of the reduce-scatter this rank's
// block owned_block(rank, size) is complete. With an allgather each owner
// encodes its block once and the frames are forwarded unchanged, so every
// rank decodes the very same bytes. Frames of at most `cap` bytes, in
// `send` and `recv` (cap x chunks each) and, with the allgather, `frames`
// (cap x chunks x P).
class RingWalk {
 public:
  RingWalk(CompressedCall& call, RingCoding& coding, int tag, size_t cap, uint8_t* send,
           uint8_t* recv, uint8_t* frames);
  // Does what is ready (with `wait`: everything); true once done.
  bool advance(bool wait);
  // Decodes every chunk of forwarded block b (RingCoding::decode).
  void decode_block(int b);
  uint8_t* slot(int b, int c) { return frames_ + cap_ * (static_cast<size_t>(b) * k_ + c); }

 private:
  enum class Phase { reduce_scatter, allgather, done };
  bool reduce_scatter_step(bool wait);
  bool allgather_step(bool wait);
  size_t& size_of(int b, int c) { return sizes_[static_cast<size_t>(b) * k_ + c]; }

  CompressedCall& call_;
  RingCoding& coding_;
  const int p_, r_, k_, tag_, left_, right_;
  const size_t cap_;
  uint8_t *const send_, *const recv_, *const frames_;
  std::vector<size_t> sizes_, got_;
  std::vector<MPI_Request> reqs_;  // receives first, then sends
  Phase phase_;
  int step_ = 0, next_ = 0;
  int pending_ = -1;  // block received in the last allgather step, still to decode
  bool posted_ = false;
};

struct ReduceArgs {
  uint8_t* acc;  // the whole vector; this rank's input on entry
  size_t elem_size;
  MPI_Datatype type;
  MPI_Op op;
  std::vector<RingBlock> blocks;  // one per rank, disjoint, in any order
};

// The decode-add-encode ring on acc: every hop decoded, reduced (PMPI's
// op) and encoded again. With `allgather` acc holds the result everywhere
// at the end (the owner adopts the decoded form of its own block, so that
// a lossy codec leaves every rank with identical values); without, only
// this rank's owned block. Its buffers come from call.memory() when built.
class HopRing : RingCoding {
 public:
  HopRing(CompressedCall& call, ReduceArgs args, bool allgather, int tag);
  bool advance(bool wait) { return walk_.advance(wait); }

 private:
  size_t encode(int b, int c, uint8_t* frame) override;
  void fold(int b, int c, const uint8_t* frame, size_t size) override;
  void decode(int b, int c, const uint8_t* frame, size_t size) override;
  void adopt_own(int b) override;
  size_t raw_bytes(int b, int c) const override { return chunk_bytes(b, c); }
  size_t chunk_offset(int b, int c) const {
    return (a_.blocks[b].offset + block_begin(a_.blocks[b].count, k_, c)) * a_.elem_size;
  }
  size_t chunk_bytes(int b, int c) const {
    return block_count(a_.blocks[b].count, k_, c) * a_.elem_size;
  }

  CompressedCall& call_;
  const ReduceArgs a_;
  const int k_;
  const size_t cap_;
  uint8_t* const incoming_;
  RingWalk walk_;
};

}  // namespace adacomp
