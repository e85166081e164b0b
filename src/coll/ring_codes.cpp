// Lossy ring Allreduce for MPI_SUM on float/double that reduces on the
// quantisation codes (hZCCL-style; codec/quant_grid.h): every rank
// quantises its input once on a grid all ranks agree on, the
// reduce-scatter adds code payloads as integers without decoding them to
// floats, the allgather forwards each owner's encoded block unchanged, and
// every rank decodes the same codes once. Error on the final result:
// P inputs quantised once each, |sum error| <= P s / 2 (+ one rounding to
// float), budgeted by qgrid::choose_grid within the user's bound.
//
// Agreement: one small PMPI_Allreduce (MAX) of the finite range and a
// non-finite flag over every rank of the communicator, so every rank makes
// the same choice. The call takes today's ring instead when any input
// holds NaN or Inf (they must come out exactly as plain arithmetic gives
// them, which integer codes cannot carry), when no grid fits the bound or
// the int32 code range, or when the call is not a lossy SUM on f32/f64.
// Node-aware layouts: the ring's inputs are node sums made by PMPI, whose
// own rounding against the exact sum is taken from the bound first.
//
// Wire: each ring chunk travels as one qgrid code payload (layout in
// quant_grid.h), without a frame header: both ends know the chunk's
// length and the grid, and the payload checks both.
#include "coll/ring_codes.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "codec/quant_grid.h"
#include "runtime/runtime.h"
#include "runtime/scratch.h"

namespace adacomp {
namespace {

// Agreed view of every rank's input.
struct Range {
  double lo, hi;
  bool nonfinite;
};

template <typename T>
Range local_range(const uint8_t* data, size_t n) {
  const T* v = reinterpret_cast<const T*>(data);
  T mn = std::numeric_limits<T>::max(), mx = std::numeric_limits<T>::lowest();
  bool bad = false;
  for (size_t i = 0; i < n; ++i) {
    const bool fin = std::isfinite(v[i]);
    bad |= !fin;
    if (!fin) continue;
    mn = v[i] < mn ? v[i] : mn;
    mx = v[i] > mx ? v[i] : mx;
  }
  return {mn, mx, bad};
}

// Collective over g.
Range agree_range(const Group& g, ElemKind kind, const uint8_t* data, size_t n) {
  const Range mine = kind == ElemKind::f32 ? local_range<float>(data, n)
                                           : local_range<double>(data, n);
  double in[3] = {-mine.lo, mine.hi, mine.nonfinite ? 1.0 : 0.0}, out[3];
  PMPI_Allreduce(in, out, 3, MPI_DOUBLE, MPI_MAX, g.comm);
  return {-out[0], out[1], out[2] != 0};
}

// Code geometry of the P blocks, each cut into K chunks (in elements).
struct Chunks {
  const std::vector<RingBlock>& blocks;
  int k;
  size_t offset(int b, int c) const {
    return blocks[b].offset + block_begin(blocks[b].count, k, c);
  }
  size_t count(int b, int c) const { return block_count(blocks[b].count, k, c); }
  size_t capacity() const {
    size_t widest = 0;
    for (const RingBlock& b : blocks) widest = std::max(widest, b.count);
    return qgrid::max_payload(max_block_count(widest, k));
  }
};

}  // namespace

CodesGrid codes_grid(const Plan& plan, MPI_Op op, const void* input, size_t count,
                     int ring_members, int per_member) {
  const ElemKind kind = plan.type.kind;
  const Config& cfg = config();
  if (op != MPI_SUM || (kind != ElemKind::f32 && kind != ElemKind::f64) ||
      plan.tier.tier != Tier::lossy || !cfg.reduce_on_codes || ring_members < 2 || count == 0)
    return {};
  const Range range = agree_range(plan.state->coll, kind, static_cast<const uint8_t*>(input),
                                  count);
  if (range.nonfinite || !(range.hi >= range.lo)) return {};
  const double bound = cfg.abs_error_bound > 0 ? cfg.abs_error_bound
                                               : cfg.rel_error_bound * (range.hi - range.lo);
  // A member's input is a PMPI sum of up to L = per_member inputs: each is
  // within (L-1) u L max|x| of its exact sum (any order of additions; 1%
  // covers the second-order term), and at most L max|x| (1 + L u) large.
  const double max_abs = std::max(std::fabs(range.lo), std::fabs(range.hi));
  const double u = std::ldexp(1.0, kind == ElemKind::f32 ? -24 : -53), l = per_member;
  const double member_rounding = 1.01 * (l - 1) * u * l * max_abs;
  const double member_max = l * max_abs * (1 + 1.01 * l * u);
  CodesGrid g;
  g.on = qgrid::choose_grid(bound - ring_members * member_rounding, member_max, ring_members,
                            kind, &g.exp);
  return g;
}

void ring_allreduce_codes(CompressedCall& call, uint8_t* acc, size_t count,
                          const CodesGrid& grid) {
  const Plan& plan = call.plan;
  const ElemKind kind = plan.type.kind;
  const int p = call.group.size, r = call.group.rank, k = call.plan.chunks, exp = grid.exp;
  if (p < 2) return;
  // (work: accumulator holds the node-aware paths' slice.)
  uint32_t* codes = reinterpret_cast<uint32_t*>(scratch(ScratchSlot::work, count * 4));
  qgrid::quantize(kind, acc, count, exp, codes);

  const std::vector<RingBlock> blocks = even_blocks(count, p);
  const Chunks g{blocks, k};
  const size_t cap = g.capacity();
  const int left = (r - 1 + p) % p, right = (r + 1) % p;
  const size_t elem = plan.type.size;
  std::vector<MPI_Request> reqs(2 * k);
  std::vector<size_t> got(2 * k);
  auto take = [&](const uint8_t* payload, size_t bytes, int b, int c, bool add) {
    uint32_t* q = codes + g.offset(b, c);
    const long rc = add ? qgrid::add(payload, bytes, exp, q, g.count(b, c))
                        : qgrid::decode(payload, bytes, exp, q, g.count(b, c));
    call.check_decoded(rc);
  };

  // Reduce-scatter: block b starts at rank b and gathers the codes of every
  // rank in ring order; integer addition makes the order irrelevant anyway.
  uint8_t* sendbuf = scratch(ScratchSlot::send_frame, cap * k);
  uint8_t* recvbuf = scratch(ScratchSlot::recv_frame, cap * k);
  for (int step = 0; step < p - 1; ++step) {
    const int sb = (r - step + p) % p, rb = (r - step - 1 + 2 * p) % p;
    for (int c = 0; c < k; ++c) call.irecv(recvbuf + cap * c, cap, left, kTagRing, &reqs[c]);
    int next = 0;  // next chunk of rb to add
    for (int c = 0; c < k; ++c) {
      const size_t n = qgrid::encode(codes + g.offset(sb, c), g.count(sb, c), exp,
                                     sendbuf + cap * c);
      call.isend(sendbuf + cap * c, n, g.count(sb, c) * elem, right, kTagRing, &reqs[k + c]);
      call.progress();
      while (next < k && call.test(&reqs[next], &got[next]))
        take(recvbuf + cap * next, got[next], rb, next, true), ++next;
    }
    for (; next < k; ++next) {
      call.wait_all(1, &reqs[next], &got[next]);
      take(recvbuf + cap * next, got[next], rb, next, true);
    }
    call.wait_all(k, reqs.data() + k);
  }

  // Allgather: each owner encodes its summed block once, each chunk leaving
  // as soon as it is encoded; the payloads are forwarded unchanged, and the
  // block received in one step is decoded to codes while the next travels.
  uint8_t* frames = scratch(ScratchSlot::frames, cap * k * p);
  auto slot = [&](int b, int c) { return frames + cap * (static_cast<size_t>(b) * k + c); };
  std::vector<size_t> sizes(static_cast<size_t>(p) * k);
  const int mine = owned_block(r, p);
  auto decode_block = [&](int b) {
    for (int c = 0; c < k; ++c) {
      take(slot(b, c), sizes[b * k + c], b, c, false);
      call.progress();
    }
  };
  int pending = -1;
  for (int step = 0; step < p - 1; ++step) {
    const int sb = (mine - step + p) % p, rb = (mine - step - 1 + p) % p;
    for (int c = 0; c < k; ++c) call.irecv(slot(rb, c), cap, left, kTagRing, &reqs[c]);
    for (int c = 0; c < k; ++c) {
      if (step == 0)
        sizes[mine * k + c] = qgrid::encode(codes + g.offset(mine, c), g.count(mine, c), exp,
                                            slot(mine, c));
      call.isend(slot(sb, c), sizes[sb * k + c], g.count(sb, c) * elem, right, kTagRing,
                 &reqs[k + c]);
      if (step == 0) call.progress();
    }
    if (pending >= 0) decode_block(pending);
    call.wait_all(2 * k, reqs.data(), got.data());
    for (int c = 0; c < k; ++c) sizes[rb * k + c] = got[c];
    pending = rb;
  }
  decode_block(pending);
  qgrid::reconstruct(kind, codes, count, exp, acc);
}

}  // namespace adacomp
