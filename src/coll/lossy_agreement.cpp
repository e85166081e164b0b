#include "coll/lossy_agreement.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "codec/quant_grid.h"
#include "decision/budget.h"
#include "runtime/runtime.h"

namespace adacomp {
namespace {

// This rank's finite range as {-lo, hi}, MAX-reduced over the ranks. (The
// scan's SIMD form may differ in the sign of a zero extreme, which neither
// hi - lo nor a magnitude sees.) Returns whether any value is NaN or Inf.
bool local_range(const CollPlan& plan, const void* data, size_t count, double range[2]) {
  double lo = 0, hi = 0;
  const bool bad = qgrid::finite_range(plan.type.kind, data, count, &lo, &hi);
  range[0] = -lo;
  range[1] = hi;
  return bad;
}

// The per-compression bound over the agreed range, and the call's certificate.
double bound_from_range(CompressedCall& call, const double range[2], int ranks, int compressions,
                        int additions) {
  const CollPlan& plan = call.plan;
  const double lo = -range[0], hi = range[1];
  const double hop = hop_budget(plan.bound, plan.type.kind, lo, hi, ranks, compressions, additions);
  call.set_certificate(
      ring_certificate(plan.bound, plan.type.kind, lo, hi, ranks, compressions, additions, hop));
  return hop;
}

template <typename T>
double largest_difference_of(const T* a, const T* b, size_t count) {
  double largest = 0;
  for (size_t i = 0; i < count; ++i) {
    if (std::isfinite(a[i]) && std::isfinite(b[i]))
      largest = std::max(largest, std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
    else if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0)
      return HUGE_VAL;
  }
  return largest;
}

}  // namespace

std::vector<uint8_t> checked_input(const CollPlan& plan, CallForm form, const void* input) {
  if (!config().lossy_check || plan.tier.tier != Tier::lossy || form != CallForm::blocking)
    return {};
  const auto* in = static_cast<const uint8_t*>(input);
  return std::vector<uint8_t>(in, in + plan.bytes);
}

double largest_difference(ElemKind kind, const void* a, const void* b, size_t count) {
  if (kind == ElemKind::f32)
    return largest_difference_of(static_cast<const float*>(a), static_cast<const float*>(b), count);
  return largest_difference_of(static_cast<const double*>(a), static_cast<const double*>(b), count);
}

double hop_bound(CompressedCall& call, const void* data, size_t count, int compressions,
                 int additions) {
  double range[2];
  local_range(call.plan, data, count, range);
  return bound_from_range(call, range, 1, compressions, additions);
}

void LossyAgreement::start(CompressedCall& call, const void* data, size_t count, int compressions,
                           int additions, int codes_members, int per_member,
                           const SecondRun* second) {
  const CollPlan& plan = call.plan;
  if (plan.tier.tier != Tier::lossy) return;
  compressions_ = compressions;
  additions_ = additions;
  codes_members_ = codes_members;
  per_member_ = per_member;
  keeps_views_ = codes_members && second && call.blocking();
  if (keeps_views_ && start_on_kept_view(call, data, count, *second)) return;
  // One scan of the input for both views: at 64 MB a second one cost
  // 10-15 ms of a 100 ms call at 10 Gbit/s.
  const bool bad = local_range(plan, data, count, mine_);
  if (codes_members) codes_local_view(-mine_[0], mine_[1], bad, mine_ + 2);
  mine_[kValues - 1] = second && second->in_place ? 1.0 : 0.0;
  const int n = codes_members ? kValues : 2;
  MPI_Comm comm = plan.state->coll.comm;
  if (call.blocking())
    call.check_mpi(PMPI_Allreduce(mine_, widest_, n, MPI_DOUBLE, MPI_MAX, comm));
  else
    call.check_mpi(PMPI_Iallreduce(mine_, widest_, n, MPI_DOUBLE, MPI_MAX, comm, &req_));
  pending_ = true;
}

bool LossyAgreement::ready(CompressedCall& call, bool wait) {
  if (!pending_) return true;
  if (req_ != MPI_REQUEST_NULL) {
    int done = 0;
    if (wait)
      PMPI_Wait(&req_, MPI_STATUS_IGNORE);
    else if (PMPI_Test(&req_, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
      return false;
  }
  const int ranks = call.plan.state->coll.size;
  if (codes_members_) grid_ = grid_from_view(call.plan, widest_ + 2, codes_members_, per_member_);
  if (grid_.on)
    call.set_certificate(grid_.certificate);
  else
    call.set_hop_bound(bound_from_range(call, widest_, ranks, compressions_, additions_));
  if (keeps_views_ && !call.mpi_failed()) keep_view(call, widest_ + 2);
  pending_ = false;
  return true;
}

namespace {

// The kept view of this call's kind on its communicator; made (replacing
// the oldest) with `make`, else null when there is none.
AgreedView* kept_view(CompressedCall& call, int members, int per_member, bool make) {
  CommState& s = *call.plan.state;
  const int op = static_cast<int>(call.op()), kind = static_cast<int>(call.plan.type.kind);
  const size_t count = call.plan.bytes / call.plan.type.size;
  for (AgreedView& v : s.agreed_views)
    if (v.op == op && v.kind == kind && v.count == count && v.members == members &&
        v.per_member == per_member)
      return &v;
  if (!make) return nullptr;
  constexpr unsigned kKept = sizeof(s.agreed_views) / sizeof(s.agreed_views[0]);
  AgreedView& v = s.agreed_views[s.agreed_views_next++ % kKept];
  v = AgreedView{};
  v.op = op, v.kind = kind, v.count = count, v.members = members, v.per_member = per_member;
  return &v;
}

// A scan piece: small enough that a reply waiting behind it is late by a
// few microseconds at most.
constexpr size_t kScanPieceBytes = 64 << 10;
constexpr unsigned kLongestRest = 64;

}  // namespace

static_assert(kCodesView + 1 == AgreedView::kValues, "the kept view: the codes view and in place");

AgreedView& LossyAgreement::keep_view(CompressedCall& call, const double* agreed) {
  AgreedView& v = *kept_view(call, codes_members_, per_member_, true);
  std::memcpy(v.view, agreed, sizeof(v.view));
  return v;
}

bool LossyAgreement::start_on_kept_view(CompressedCall& call, const void* data, size_t count,
                                        const SecondRun& second) {
  AgreedView* v = kept_view(call, codes_members_, per_member_, false);
  if (!v || v->view[kCodesView] != 0) return false;  // none, or seen in place
  if (v->rest > 0) {
    --v->rest;
    return false;
  }
  const CodesGrid g = grid_from_view(call.plan, v->view, codes_members_, per_member_);
  if (!g.on) return false;
  grid_ = g;
  on_kept_view_ = true;
  scan_data_ = static_cast<const uint8_t*>(data);
  scan_count_ = count;
  if (second.in_place) {
    // The call overwrites its input: a copy for the scan and a second run.
    uint8_t* copy = call.memory(ScratchSlot::kept_input, second.bytes);
    std::memcpy(copy, second.in_place, second.bytes);
    in_place_ = second.in_place;
    kept_ = scan_data_ = copy;
    kept_bytes_ = second.bytes;
  }
  call.on_idle([this, &call] { return on_kept_view_ && scan_piece(call.plan.type.kind); });
  return true;
}

bool LossyAgreement::scan_piece(ElemKind kind) {
  if (scanned_ == scan_count_) return false;
  const size_t elem = kind == ElemKind::f32 ? sizeof(float) : sizeof(double);
  const size_t n = std::min(scan_count_ - scanned_, kScanPieceBytes / elem);
  double lo = 0, hi = 0;
  // Pieces combine to the whole input's scan: the extremes of the finite
  // values, whichever part holds them.
  scan_bad_ |= qgrid::finite_range(kind, scan_data_ + scanned_ * elem, n, &lo, &hi);
  scan_lo_ = scanned_ ? std::min(scan_lo_, lo) : lo;
  scan_hi_ = scanned_ ? std::max(scan_hi_, hi) : hi;
  scanned_ += n;
  return true;
}

bool LossyAgreement::confirm(CompressedCall& call) {
  if (!on_kept_view_) return true;
  on_kept_view_ = false;
  call.on_idle(nullptr);
  while (scan_piece(call.plan.type.kind)) {
  }
  double* mine = mine_ + 2;
  double* agreed = widest_ + 2;
  codes_local_view(scan_lo_, scan_hi_, scan_bad_, mine);
  mine[kCodesView] = kept_ ? 1.0 : 0.0;
  const int rc = PMPI_Allreduce(mine, agreed, kCodesView + 1, MPI_DOUBLE, MPI_MAX,
                                call.plan.state->coll.comm);
  call.check_mpi(rc);
  if (rc != MPI_SUCCESS) return true;  // finish() reports it
  const CodesGrid own = grid_from_view(call.plan, agreed, codes_members_, per_member_);
  const bool hit = own.on && own.exp == grid_.exp && own.entropy == grid_.entropy;
  AgreedView& v = keep_view(call, agreed);
  if (hit) {
    v.misses = 0;
    call.set_certificate(own.certificate);
    return true;
  }
  // The second run, then 1, 2, 4 ... calls.
  v.rest = 1 + std::min(1u << std::min(v.misses, 6u), kLongestRest);
  ++v.misses;
  if (config().verbose >= 2 && call.plan.state->coll.rank == 0)
    std::fprintf(stderr,
                 "adacomp: %s of %zu elements started on its last grid (2^%d), which its inputs "
                 "do not agree on: it runs again, and the next %u scan first\n",
                 op_name(call.op()), v.count, grid_.exp, v.rest - 1);
  if (kept_) std::memcpy(in_place_, kept_, kept_bytes_);
  call.discard();
  return false;
}

}  // namespace adacomp
