#include "coll/segment_ring.h"

#include <cstring>

#include "coll/lossy_agreement.h"

namespace adacomp {

void SegmentRing::start(CompressedCall& call, const LossyAgreement& agree, int tag, RingWork w) {
  if (agree.grid().on) {
    // Only the quantisation reads the input: no copy into acc.
    codes_ = std::make_unique<CodesRing>(call, w.input, w.args.acc, std::move(w.args.blocks),
                                         w.allgather, agree.grid(), tag);
    return;
  }
  if (w.input != w.args.acc) {
    size_t count = 0;
    for (const RingBlock& b : w.args.blocks) count += b.count;
    std::memcpy(w.args.acc, w.input, count * w.args.elem_size);
  }
  hops_ = std::make_unique<HopRing>(call, std::move(w.args), w.allgather, tag);
}

}  // namespace adacomp
