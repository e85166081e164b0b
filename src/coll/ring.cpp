#include "coll/ring.h"

namespace adacomp {
namespace {

size_t widest_chunk_frame(const ReduceArgs& a, int chunks) {
  size_t widest = 0;
  for (const RingBlock& b : a.blocks) widest = std::max(widest, b.count);
  return frame_capacity(max_block_count(widest, chunks) * a.elem_size);
}

}  // namespace

std::vector<RingBlock> even_blocks(size_t count, int parts) {
  std::vector<RingBlock> blocks(parts);
  for (int b = 0; b < parts; ++b)
    blocks[b] = {block_begin(count, parts, b), block_count(count, parts, b)};
  return blocks;
}

// ---- the walk ---------------------------------------------------------------

RingWalk::RingWalk(CompressedCall& call, RingCoding& coding, int tag, size_t cap, uint8_t* send,
                   uint8_t* recv, uint8_t* frames)
    : call_(call),
      coding_(coding),
      p_(call.group.size),
      r_(call.group.rank),
      k_(call.plan.chunks),
      tag_(tag),
      left_((r_ - 1 + p_) % p_),
      right_((r_ + 1) % p_),
      cap_(cap),
      send_(send),
      recv_(recv),
      frames_(frames),
      sizes_(frames ? static_cast<size_t>(p_) * k_ : 0),
      got_(2 * k_),
      reqs_(2 * k_),
      phase_(p_ == 1 ? Phase::done : Phase::reduce_scatter) {}

bool RingWalk::advance(bool wait) {
  while (phase_ != Phase::done)
    if (!(phase_ == Phase::reduce_scatter ? reduce_scatter_step(wait) : allgather_step(wait)))
      return false;
  return true;
}

// One step; chunks that arrive while this rank encodes are folded in at once.
bool RingWalk::reduce_scatter_step(bool wait) {
  const int sb = (r_ - step_ + p_) % p_, rb = (r_ - step_ - 1 + 2 * p_) % p_;
  if (!posted_) {
    for (int c = 0; c < k_; ++c) call_.irecv(recv_ + cap_ * c, cap_, left_, tag_, &reqs_[c]);
    next_ = 0;
    for (int c = 0; c < k_; ++c) {
      const size_t n = coding_.encode(sb, c, send_ + cap_ * c);
      call_.isend(send_ + cap_ * c, n, coding_.raw_bytes(sb, c), right_, tag_, &reqs_[k_ + c]);
      call_.progress();
      while (next_ < k_ && call_.test(&reqs_[next_], &got_[next_]))
        coding_.fold(rb, next_, recv_ + cap_ * next_, got_[next_]), ++next_;
    }
    posted_ = true;
  }
  for (; next_ < k_; ++next_) {
    if (!call_.complete(1, &reqs_[next_], &got_[next_], wait)) return false;
    coding_.fold(rb, next_, recv_ + cap_ * next_, got_[next_]);
  }
  if (!call_.complete(k_, &reqs_[k_], nullptr, wait)) return false;
  posted_ = false;
  if (++step_ < p_ - 1) return true;
  phase_ = frames_ ? Phase::allgather : Phase::done;
  step_ = 0;
  return true;
}

void RingWalk::decode_block(int b) {
  for (int c = 0; c < k_; ++c) {
    coding_.decode(b, c, slot(b, c), size_of(b, c));
    call_.progress();
  }
}

// One step; the block received in the previous step is decoded while this
// one travels.
bool RingWalk::allgather_step(bool wait) {
  const int mine = owned_block(r_, p_);
  const int sb = (mine - step_ + p_) % p_, rb = (mine - step_ - 1 + p_) % p_;
  if (!posted_) {
    for (int c = 0; c < k_; ++c) call_.irecv(slot(rb, c), cap_, left_, tag_, &reqs_[c]);
    for (int c = 0; c < k_; ++c) {
      // Step 0 sends this rank's own block: each chunk leaves as soon as it
      // is encoded.
      if (step_ == 0) size_of(mine, c) = coding_.encode(mine, c, slot(mine, c));
      call_.isend(slot(sb, c), size_of(sb, c), coding_.raw_bytes(sb, c), right_, tag_,
                  &reqs_[k_ + c]);
      if (step_ == 0) call_.progress();
    }
    posted_ = true;
    if (step_ == 0) coding_.adopt_own(mine);
    // (Only read while it is forwarded: MPI lets a send buffer be read.)
    if (pending_ >= 0) decode_block(pending_), pending_ = -1;
  }
  if (!call_.complete(2 * k_, reqs_.data(), got_.data(), wait)) return false;
  for (int c = 0; c < k_; ++c) size_of(rb, c) = got_[c];
  pending_ = rb;
  posted_ = false;
  if (++step_ == p_ - 1) {
    decode_block(pending_);
    phase_ = Phase::done;
  }
  return true;
}

// ---- decode, add, encode ----------------------------------------------------

HopRing::HopRing(CompressedCall& call, ReduceArgs args, bool allgather, int tag)
    : call_(call),
      a_(std::move(args)),
      k_(call.plan.chunks),
      cap_(widest_chunk_frame(a_, k_)),
      incoming_(call.group.size > 1 ? call.memory(ScratchSlot::work, cap_) : nullptr),
      walk_(call, *this, tag, cap_,
            call.group.size > 1 ? call.memory(ScratchSlot::send_frame, cap_ * k_) : nullptr,
            call.group.size > 1 ? call.memory(ScratchSlot::recv_frame, cap_ * k_) : nullptr,
            call.group.size > 1 && allgather
                ? call.memory(ScratchSlot::frames, cap_ * k_ * call.group.size)
                : nullptr) {}

size_t HopRing::encode(int b, int c, uint8_t* frame) {
  return call_.encode(a_.acc + chunk_offset(b, c), chunk_bytes(b, c), frame);
}

void HopRing::fold(int b, int c, const uint8_t* frame, size_t size) {
  const size_t bytes = chunk_bytes(b, c);
  // MPI's own check of the (type, op) pair (MPI_MAX on MPI_BYTE, say):
  // its error is the call's, as MPI's Allreduce would give it.
  if (call_.decode(frame, size, incoming_, bytes))
    call_.check_mpi(PMPI_Reduce_local(incoming_, a_.acc + chunk_offset(b, c),
                                      static_cast<int>(bytes / a_.elem_size), a_.type, a_.op));
}

void HopRing::decode(int b, int c, const uint8_t* frame, size_t size) {
  call_.decode(frame, size, a_.acc + chunk_offset(b, c), chunk_bytes(b, c));
}

void HopRing::adopt_own(int b) {
  if (call_.lossy()) walk_.decode_block(b);
}

}  // namespace adacomp
