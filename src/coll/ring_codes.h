// The codes ring: lossy ring Allreduce and Reduce_scatter (SUM on
// float/double) by reduction on the integer quantisation codes. See
// ring_codes.cpp. One state machine for every form of both
// (coll/allreduce.cpp, coll/reduce_scatter.cpp, coll/schedule.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <mpi.h>

#include "coll/compressed_call.h"
#include "coll/ring.h"

namespace adacomp {

// The shared grid of one call: on, and its exponent (step 2^exp).
struct CodesGrid {
  bool on = false;
  int exp = 0;
  // Payloads in qgrid's entropy form (zstd over the planes): the call's
  // lossy codec is a high-ratio one, not quant_fast. Only the sender reads
  // it (the form travels in each payload).
  bool entropy = false;
};

// Whether this Allreduce or Reduce_scatter reduces on codes, and on which grid, in three
// parts (the agreement between them: LossyAgreement, coll/lossy_agreement.h). The ring
// has `ring_members` members, each bringing the exact-op sum (through PMPI)
// of at most `per_member` ranks' inputs (1 flat; node-aware: the node's
// ranks). Off: NaN/Inf in any input, no grid meets the bound in the int32
// code range, or the call does not qualify.
// Whether the call qualifies at all (a lossy SUM on f32/f64 with
// ADACOMP_REDUCE_ON_CODES on, a ring of 2 or more, count > 0; no
// communication); this rank's view of its input (its finite range and
// whether it holds NaN or Inf), kCodesView doubles to be MAX-reduced over
// plan.state->coll; the grid from the agreed view.
constexpr int kCodesView = 3;
bool codes_candidate(const CollPlan& plan, MPI_Op op, size_t count, int ring_members);
void codes_local_view(double lo, double hi, bool bad, double view[kCodesView]);
CodesGrid grid_from_view(const CollPlan& plan, const double view[kCodesView], int ring_members,
                         int per_member);

// One rank's side of the coding on codes, shared by the ring and the
// Reduce's tree (coll/reduce.cpp): quantising its input on the grid,
// writing a code payload in the grid's form, or in the form faster on this
// link (decision/form_choice.h) where the user named no codec and the adaptive
// model chose none, and adding or decoding a received one; the codec time
// counted in the call's statistics.
class CodesCoder {
 public:
  CodesCoder(CompressedCall& call, const CodesGrid& grid);
  void quantize(const void* values, size_t n, uint32_t* codes);
  // Returns the payload's size (at most code_payload_capacity(n)).
  size_t write(const uint32_t* codes, size_t n, uint8_t* payload);
  // A received payload of n codes: added to `codes`, or decoded to values.
  void add(const uint8_t* payload, size_t bytes, uint32_t* codes, size_t n);
  void decode(const uint8_t* payload, size_t bytes, void* values, size_t n);
  void reconstruct(const uint32_t* codes, size_t n, void* values);

 private:
  void record_decode(const uint8_t* payload, size_t bytes, size_t n, uint64_t ns);

  CompressedCall& call_;
  const int exp_;
  const bool entropy_;
  const bool by_speed_;  // the form chosen per payload
};

// Reduces this member's vector at `input`, cut into `blocks` (one per
// member of call.group, disjoint, covering it), among call.group on the
// grid into acc (which may be input): quantise once, add codes around the
// ring, decode once. With `allgather` (an Allreduce) acc holds the whole
// result at the end; without (a Reduce_scatter) only this rank's block
// owned_block(rank, size), and nothing travels after the reduce-scatter.
// The messages of one call carry `tag`. Only the quantisation reads input,
// so a separate output saves the copy a decode-add-encode ring needs.
class CodesRing : RingCoding {
 public:
  // Its memory comes from call.memory() when it is built.
  CodesRing(CompressedCall& call, const void* input, uint8_t* acc, std::vector<RingBlock> blocks,
            bool allgather, const CodesGrid& grid, int tag);
  // Does what is ready; true once acc holds the result. With `wait` it
  // blocks instead and always returns true (the blocking call).
  bool advance(bool wait);

 private:
  size_t encode(int b, int c, uint8_t* frame) override;
  void fold(int b, int c, const uint8_t* frame, size_t size) override;
  void decode(int b, int c, const uint8_t* frame, size_t size) override;
  void adopt_own(int b) override;
  size_t raw_bytes(int b, int c) const override { return count(b, c) * call_.plan.type.size; }
  void quantize_chunk(int b, int c);
  size_t offset(int b, int c) const;  // elements
  size_t count(int b, int c) const;

  CompressedCall& call_;
  const void* const input_;
  uint8_t* const acc_;
  const size_t n_;  // the vector's elements
  CodesCoder coder_;
  const int p_, k_;
  const bool allgather_;
  const std::vector<RingBlock> blocks_;
  const size_t cap_;
  uint32_t* const codes_;  // then the walk's frames, in one allocation
  RingWalk walk_;
  std::vector<uint8_t> quantized_;  // per chunk of each block
  bool copied_ = false;               // a ring of one: input to acc
  bool owned_ = false;                // reduce-scatter: the owned block decoded
};

}  // namespace adacomp
