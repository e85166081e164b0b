#include "coll/lossy_agreement.h"

#include <algorithm>
#include <cmath>
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
                           int additions, int codes_members, int per_member) {
  const CollPlan& plan = call.plan;
  if (plan.tier.tier != Tier::lossy) return;
  compressions_ = compressions;
  additions_ = additions;
  codes_members_ = codes_members;
  per_member_ = per_member;
  // One scan of the input for both views: at 64 MB a second one cost
  // 10-15 ms of a 100 ms call at 10 Gbit/s.
  const bool bad = local_range(plan, data, count, mine_);
  if (codes_members) codes_local_view(-mine_[0], mine_[1], bad, mine_ + 2);
  const int n = codes_members ? 2 + kCodesView : 2;
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
  pending_ = false;
  return true;
}

}  // namespace adacomp
