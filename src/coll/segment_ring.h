// The node-aware calls' segments (coll/plan.h segmented): each segment
// flows through a node stage that combines its inputs (gather), the coded
// stage among the nodes (the compressed ring of the Allreduce and
// Reduce_scatter; the rail's tree of the Reduce on rails), and a stage that
// hands its result out (deliver). One order for the three calls, and one
// ring per segment, written once.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

#include "coll/compressed_call.h"
#include "coll/ring.h"
#include "coll/ring_codes.h"
#include "coll/schedule.h"

namespace adacomp {

class LossyAgreement;

// Advances the segments; true once all are done. Each stage is a callable
// (segment index, wait) -> done, asked again until it is. One segment runs
// its stages in turn.
// Several run their stages nonblocking even in a blocking call, so that the
// node stages overlap the rings, in passes (run_passes): segment k's gather
// starts once k-1's is done (so the first ring starts as early as it can),
// its ring once k-1's ring is (one ring's memory and tag at a time), its
// delivery once its ring is. A pass that leaves work outstanding does a
// piece of the call's idle work (CompressedCall::on_idle).
template <class Gather, class Ring, class Deliver>
bool advance_segments(CompressedCall& call, size_t segments, bool wait, Gather gather, Ring ring,
                      Deliver deliver) {
  if (segments == 1) return gather(0, wait) && ring(0, wait) && deliver(0, wait);
  return run_passes(wait, [&] {
    bool done = true, gathered = true, ringed = true;
    for (size_t k = 0; k < segments; ++k) {
      if (!gathered || !gather(k, false)) gathered = false;
      if (!gathered || !ringed || !ring(k, false)) ringed = false;
      if (!ringed || !deliver(k, false)) done = false;
    }
    if (!done) call.idle_work();
    return done;
  });
}

// What one segment's ring reduces on this rank.
struct RingWork {
  const void* input = nullptr;  // this rank's input: acc itself, or copied into it
  ReduceArgs args;              // acc (the vector, then the result), its blocks, type and op
  bool allgather = false;       // every member ends with every block (Allreduce)
};

// One segment's compressed ring: on codes when the call's lossy agreement
// chose a grid (coll/ring_codes.h), else decode-add-encode at every hop
// (coll/ring.h). Built when it starts, once the agreement is in (so its
// buffers are taken only then), and released when done, for the next
// segment's ring.
class SegmentRing {
 public:
  // Advances the ring; true once done. `work` is asked once, when the ring
  // starts: nullopt where this rank has no part in it (no slice, or the
  // segment's node stage failed, alike on the whole ring).
  template <class Work>
  bool advance(CompressedCall& call, const LossyAgreement& agree, int tag, bool wait, Work work) {
    if (done_) return true;
    if (!hops_ && !codes_) {
      std::optional<RingWork> w = work();
      if (!w) return done_ = true;
      start(call, agree, tag, std::move(*w));
    }
    if (!(codes_ ? codes_->advance(wait) : hops_->advance(wait))) return false;
    codes_.reset(), hops_.reset();
    return done_ = true;
  }

 private:
  void start(CompressedCall& call, const LossyAgreement& agree, int tag, RingWork work);

  std::unique_ptr<HopRing> hops_;
  std::unique_ptr<CodesRing> codes_;
  bool done_ = false;
};

}  // namespace adacomp
