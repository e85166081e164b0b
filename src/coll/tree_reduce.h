// The compressed tree of a Reduce (coll/reduce.cpp, coll/reduce_rails.cpp):
// its members reduce a vector towards member 0, chunk by chunk, the
// children's frames folded in child order and the chunk coded on to the
// parent.
#pragma once

#include <algorithm>
#include <vector>

#include "coll/compressed_call.h"
#include "coll/ring_codes.h"
#include "coll/tree.h"
#include "wire/code_payload.h"

namespace adacomp {

// The compressed tree over `members` (this rank member `me`), reducing
// `count` elements in acc, chunk by chunk: the children's frames folded in
// child order, then the chunk coded on to the parent. Only the first `ready`
// bytes of acc hold this rank's input so far (the node's sum arrives in
// segments); the chunks past them wait.
//
// On a codes grid (a lossy SUM on float/double, coll/ring_codes.h) each
// member quantises its chunk once, adds its children's code payloads as
// integers and sends the sum on as one; the root reconstructs the values
// once. Every member's input is quantised once and nothing is decoded
// between hops, where the frames' path decodes, adds and re-encodes at each
// member. The payload's form is chosen as the ring's (CodesCoder).
class TreeReduce : TreeWalk {
 public:
  TreeReduce(CompressedCall& call, const std::vector<int>& members, int me, uint8_t* acc, int count,
             MPI_Datatype type, MPI_Op op, const CodesGrid& grid, int tag)
      : TreeWalk(call, members, me, tag, count * call.plan.type.size, call.plan.type.size),
        acc_(acc),
        type_(type),
        op_(op),
        grid_(grid),
        coder_(call, grid),
        nc_(static_cast<int>(tree_.children.size())),
        slot_(grid.on ? std::max(cap_, code_payload_capacity(max_block_count(units_, k_))) : cap_),
        in_(call.memory(ScratchSlot::frames, slot_ * k_ * (nc_ ? nc_ : 1))),
        out_(call.memory(ScratchSlot::send_frame, slot_ * k_)),
        // The values a child's frame decodes to, or this member's codes.
        work_(call.memory(ScratchSlot::work, grid.on ? units_ * 4 : cap_)),
        recvs_(static_cast<size_t>(nc_) * k_) {
    sends_.resize(tree_.parent >= 0 ? k_ : 0);
    for (int i = 0; i < nc_; ++i)
      for (int c = 0; c < k_; ++c)
        call.irecv(in_ + slot_ * (i * k_ + c), slot_, members_[tree_.children[i]], tag_,
                   &recvs_[i * k_ + c]);
  }

  bool advance(bool wait, size_t ready) {
    for (; c_ < k_; ++c_, i_ = 0) {
      if (chunk_offset(c_ + 1) > ready) return false;
      if (grid_.on && quantized_ == c_) quantize(c_), ++quantized_;
      for (size_t got = 0; i_ < nc_; ++i_) {
        if (!call_.complete(1, &recvs_[i_ * k_ + c_], &got, wait)) return false;
        fold(c_, in_ + slot_ * (i_ * k_ + c_), got);
      }
      if (tree_.parent >= 0) {
        const size_t n = encode(c_, out_ + slot_ * c_);
        call_.isend(out_ + slot_ * c_, n, chunk_bytes(c_), members_[tree_.parent], tag_,
                    &sends_[c_]);
        call_.progress();
      } else if (grid_.on) {
        coder_.reconstruct(codes(c_), elems(c_), acc_ + chunk_offset(c_));
      }
    }
    return sent(wait);
  }

 private:
  size_t elems(int c) const { return chunk_bytes(c) / call_.plan.type.size; }
  uint32_t* codes(int c) const {
    return reinterpret_cast<uint32_t*>(work_) + chunk_offset(c) / call_.plan.type.size;
  }

  void quantize(int c) { coder_.quantize(acc_ + chunk_offset(c), elems(c), codes(c)); }

  // A child's frame of chunk c into this member's sum.
  void fold(int c, const uint8_t* frame, size_t size) {
    if (grid_.on) return coder_.add(frame, size, codes(c), elems(c));
    if (call_.decode(frame, size, work_, chunk_bytes(c)))
      call_.check_mpi(  // MPI's check of the (type, op) pair (ring.cpp)
          PMPI_Reduce_local(work_, acc_ + chunk_offset(c), static_cast<int>(elems(c)), type_, op_));
  }

  size_t encode(int c, uint8_t* frame) {
    if (!grid_.on) return call_.encode(acc_ + chunk_offset(c), chunk_bytes(c), frame);
    return coder_.write(codes(c), elems(c), frame);
  }

  uint8_t* const acc_;
  const MPI_Datatype type_;
  const MPI_Op op_;
  const CodesGrid grid_;
  CodesCoder coder_;
  const int nc_;
  const size_t slot_;  // bytes per frame: a frame's, or a code payload's
  uint8_t *const in_, *const out_, *const work_;
  std::vector<MPI_Request> recvs_;
  int c_ = 0, i_ = 0;   // next chunk, and next child of that chunk
  int quantized_ = 0;  // chunks quantised (codes grid)
};

}  // namespace adacomp
