// Lossy ring Allreduce and Reduce_scatter for MPI_SUM on float/double that
// reduce on the quantisation codes (hZCCL-style; codec/quant_grid.h): every
// rank quantises its input once on a grid all ranks agree on, the
// reduce-scatter adds code payloads as integers without decoding them to
// floats, and each owner decodes its block's summed codes once; an
// Allreduce's allgather then forwards each owner's encoded block unchanged,
// and every rank decodes the same codes once. Error on the final result:
// P inputs quantised once each, |sum error| <= P s / 2 (+ one rounding to
// float), budgeted by qgrid::choose_grid within the user's bound.
//
// Agreement: one small MAX-reduction of the finite range and a non-finite
// flag over every rank of the communicator, so every rank makes the same
// choice (LossyAgreement, coll/lossy_agreement.h). The call takes the decode-add-encode
// ring instead when any input
// holds NaN or Inf (they must come out exactly as plain arithmetic gives
// them, which integer codes cannot carry), when no grid fits the bound or
// the int32 code range, or when the call is not a lossy SUM on f32/f64.
// Node-aware layouts: the ring's inputs are node sums made by PMPI, whose
// own rounding against the exact sum is taken from the bound first.
//
// The ring is one state machine (CodesRing) for the blocking call, which
// runs it to the end at once with blocking waits, and for the nonblocking
// and persistent ones, whose schedules advance it as messages arrive: same
// messages, same order, same codes, so the same bits.
//
// Wire: each ring chunk travels as one code payload (wire/code_payload.h),
// without a frame header: both ends know the chunk's length and the grid,
// and the payload checks both. Its form (planes, or zstd over them) is the
// sender's, by measured speed unless a codec was named or the adaptive
// model chose it (decision/form_choice.h).
#include "coll/ring_codes.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "codec/quant_grid.h"
#include "decision/form_choice.h"
#include "runtime/runtime.h"
#include "runtime/scratch.h"
#include "wire/code_payload.h"

namespace adacomp {

bool codes_candidate(const CollPlan& plan, MPI_Op op, size_t count, int ring_members) {
  const ElemKind kind = plan.type.kind;
  return op == MPI_SUM && (kind == ElemKind::f32 || kind == ElemKind::f64) &&
         plan.tier.tier == Tier::lossy && config().reduce_on_codes && ring_members >= 2 &&
         count > 0;
}

void codes_local_view(double lo, double hi, bool bad, double view[kCodesView]) {
  view[0] = -lo;  // MAX-reduced: the lowest lo
  view[1] = hi;
  // MPI_Pcontrol(0) on any rank: no grid, so every rank takes the ring of
  // frames, which the ranks switched off send stored (runtime.h coding_on).
  view[2] = bad || !coding_on() ? 1.0 : 0.0;
}

CodesGrid grid_from_view(const CollPlan& plan, const double view[kCodesView], int ring_members,
                         int per_member) {
  const ElemKind kind = plan.type.kind;
  const double lo = -view[0], hi = view[1];
  if (view[2] != 0 || !(hi >= lo)) return {};
  const double bound = plan.bound.over(lo, hi);
  // A member's input is a PMPI sum of up to L = per_member inputs: each is
  // within (L-1) u L max|x| of its exact sum (any order of additions; 1%
  // covers the second-order term), and at most L max|x| (1 + L u) large.
  const double max_abs = std::max(std::fabs(lo), std::fabs(hi));
  const double u = std::ldexp(1.0, kind == ElemKind::f32 ? -24 : -53), l = per_member;
  const double member_rounding = 1.01 * (l - 1) * u * l * max_abs;
  const double member_max = l * max_abs * (1 + 1.01 * l * u);
  CodesGrid g;
  g.entropy = plan.codec->id != CodecId::quant_fast;
  g.on = qgrid::choose_grid(bound - ring_members * member_rounding, member_max, ring_members, kind,
                            &g.exp);
  return g;
}

// ---- the coder and the ring --------------------------------------------------

namespace {
size_t payload_capacity(const std::vector<RingBlock>& blocks, int k) {
  size_t widest = 0;
  for (const RingBlock& b : blocks) widest = std::max(widest, b.count);
  return code_payload_capacity(max_block_count(widest, k));
}

size_t vector_count(const std::vector<RingBlock>& blocks) {
  size_t end = 0;
  for (const RingBlock& b : blocks) end = std::max(end, b.offset + b.count);
  return end;
}

// Per thread (a nonblocking call may advance on the progress thread) and per
// element kind, whose ratios and speeds differ.
FormChoice& form_choice(ElemKind kind) {
  thread_local FormChoice choices[2];
  return choices[kind == ElemKind::f32 ? 0 : 1];
}

double seconds(uint64_t ns) { return static_cast<double>(ns) * 1e-9; }
}  // namespace

// Outside the adaptive model (whose arms are the codecs themselves), a
// high-ratio codec the user did not name gets the form that is faster on
// this link.
CodesCoder::CodesCoder(CompressedCall& call, const CodesGrid& grid)
    : call_(call),
      exp_(grid.exp),
      entropy_(grid.entropy),
      by_speed_(grid.entropy && call.plan.model < 0 && config().lossy_auto) {}

void CodesCoder::quantize(const void* values, size_t n, uint32_t* codes) {
  uint64_t ns = 0;
  {
    ScopedTimer t(call_.stats().ns_compress, &ns);  // codec time, as on the other paths
    qgrid::quantize(call_.plan.type.kind, values, n, exp_, codes);
  }
  if (by_speed_)
    form_choice(call_.plan.type.kind).record_quantise(n * call_.plan.type.size, seconds(ns));
}

size_t CodesCoder::write(const uint32_t* codes, size_t n, uint8_t* payload) {
  FormChoice& forms = form_choice(call_.plan.type.kind);
  const bool entropy =
      by_speed_ ? forms.choose(inter_node_link(), call_.plan.chunks > 1) == FormChoice::entropy
                : entropy_;
  uint64_t ns = 0;
  size_t size;
  {
    ScopedTimer t(call_.stats().ns_compress, &ns);
    size = write_code_payload(codes, n, exp_, entropy, payload);
  }
  if (by_speed_)
    forms.record_encode(entropy ? FormChoice::entropy : FormChoice::planes,
                        n * call_.plan.type.size, size, seconds(ns));
  return size;
}

// What decoding a received payload cost, under the form it came in.
void CodesCoder::record_decode(const uint8_t* payload, size_t bytes, size_t n, uint64_t ns) {
  if (!by_speed_ || bytes == 0) return;
  const FormChoice::Form form =
      payload[0] == qgrid::kFormZstd ? FormChoice::entropy : FormChoice::planes;
  form_choice(call_.plan.type.kind).record_decode(form, n * call_.plan.type.size, seconds(ns));
}

void CodesCoder::add(const uint8_t* payload, size_t bytes, uint32_t* codes, size_t n) {
  uint64_t ns = 0;
  {
    ScopedTimer t(call_.stats().ns_decompress, &ns);
    call_.check_decoded(add_code_payload(payload, bytes, exp_, codes, n));
  }
  record_decode(payload, bytes, n, ns);
}

void CodesCoder::decode(const uint8_t* payload, size_t bytes, void* values, size_t n) {
  uint64_t ns = 0;
  {
    ScopedTimer t(call_.stats().ns_decompress, &ns);
    call_.check_decoded(
        decode_code_payload(payload, bytes, exp_, call_.plan.type.kind, values, n));
  }
  record_decode(payload, bytes, n, ns);
}

void CodesCoder::reconstruct(const uint32_t* codes, size_t n, void* values) {
  ScopedTimer t(call_.stats().ns_decompress);
  qgrid::reconstruct(call_.plan.type.kind, codes, n, exp_, values);
}

// ---- the ring ---------------------------------------------------------------

// (Slot work: the accumulator may hold the node-aware paths' slice.)
CodesRing::CodesRing(CompressedCall& call, const void* input, uint8_t* acc,
                     std::vector<RingBlock> blocks, bool allgather, const CodesGrid& grid, int tag)
    : call_(call),
      input_(input),
      acc_(acc),
      n_(vector_count(blocks)),
      coder_(call, grid),
      p_(call.group.size),
      k_(call.plan.chunks),
      allgather_(allgather),
      blocks_(std::move(blocks)),
      cap_(payload_capacity(blocks_, k_)),
      codes_(reinterpret_cast<uint32_t*>(call.memory(
          ScratchSlot::work,
          n_ * 4 + cap_ * k_ * (2 + (allgather ? static_cast<size_t>(p_) : 0))))),
      walk_(call, *this, tag, cap_, reinterpret_cast<uint8_t*>(codes_) + n_ * 4,
            reinterpret_cast<uint8_t*>(codes_) + n_ * 4 + cap_ * k_,
            allgather ? reinterpret_cast<uint8_t*>(codes_) + n_ * 4 + 2 * cap_ * k_ : nullptr),
      quantized_(static_cast<size_t>(p_) * k_) {}

size_t CodesRing::offset(int b, int c) const {
  return blocks_[b].offset + block_begin(blocks_[b].count, k_, c);
}
size_t CodesRing::count(int b, int c) const { return block_count(blocks_[b].count, k_, c); }

bool CodesRing::advance(bool wait) {
  if (p_ == 1 && input_ != acc_ && !copied_) {
    std::memcpy(acc_, input_, n_ * call_.plan.type.size);
    copied_ = true;
  }
  if (!walk_.advance(wait)) return false;
  // The reduce-scatter's last fold completed this rank's block's codes.
  if (!allgather_ && p_ > 1 && !owned_) adopt_own(owned_block(call_.group.rank, p_)), owned_ = true;
  return true;
}

// A chunk's codes are made where the walk first touches it: the block a
// rank sends first (encode) or a block it folds into (fold). Every block is
// one of these once in the reduce-scatter, so the allgather finds all codes
// made. Quantising chunk by chunk keeps the codes in cache for their
// encoding and, pipelined, overlaps the quantisation with the wire, where a
// whole-input pass ran before the first byte left.
void CodesRing::quantize_chunk(int b, int c) {
  uint8_t& done = quantized_[static_cast<size_t>(b) * k_ + c];
  if (done) return;
  coder_.quantize(static_cast<const uint8_t*>(input_) + offset(b, c) * call_.plan.type.size,
                  count(b, c), codes_ + offset(b, c));
  done = 1;
}

// Both halves send code payloads: the reduce-scatter this rank's partial
// block b, the allgather its summed one.
size_t CodesRing::encode(int b, int c, uint8_t* frame) {
  quantize_chunk(b, c);
  return coder_.write(codes_ + offset(b, c), count(b, c), frame);
}

// Block b gathers the codes of every rank in ring order; integer addition
// makes the order irrelevant anyway.
void CodesRing::fold(int b, int c, const uint8_t* frame, size_t size) {
  quantize_chunk(b, c);
  coder_.add(frame, size, codes_ + offset(b, c), count(b, c));
}

// Straight to values: the codes of a forwarded block are needed nowhere else.
void CodesRing::decode(int b, int c, const uint8_t* frame, size_t size) {
  coder_.decode(frame, size, acc_ + offset(b, c) * call_.plan.type.size, count(b, c));
}

// This rank's own block, from its codes: an Allreduce's while the first
// payloads travel, a Reduce_scatter's once its reduce-scatter is done.
void CodesRing::adopt_own(int b) {
  coder_.reconstruct(codes_ + blocks_[b].offset, blocks_[b].count,
                     acc_ + blocks_[b].offset * call_.plan.type.size);
}

}  // namespace adacomp
