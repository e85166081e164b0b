#include "coll/bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/runtime.h"

namespace adacomp {
namespace {

template <typename T>
void finite_range(const void* data, size_t n, double* lo, double* hi) {
  const T* v = static_cast<const T*>(data);
  T mn = std::numeric_limits<T>::max(), mx = std::numeric_limits<T>::lowest();
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) continue;
    mn = v[i] < mn ? v[i] : mn;
    mx = v[i] > mx ? v[i] : mx;
  }
  *lo = mn;
  *hi = mx;
}

}  // namespace

void local_range(const Plan& plan, const void* data, size_t count, double range[2]) {
  double lo = 0, hi = 0;
  if (plan.type.kind == ElemKind::f32) finite_range<float>(data, count, &lo, &hi);
  else finite_range<double>(data, count, &lo, &hi);
  range[0] = -lo;
  range[1] = hi;
}

double bound_from_range(const Plan& plan, const double range[2], int ranks, int compressions,
                        int additions) {
  const Config& cfg = config();
  const bool f32 = plan.type.kind == ElemKind::f32;
  const double lo = -range[0], hi = range[1];
  if (!(hi >= lo)) return 0;  // no finite values at all
  const double user = cfg.abs_error_bound > 0 ? cfg.abs_error_bound
                                              : cfg.rel_error_bound * (hi - lo);
  const double unit_roundoff = f32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
  const double magnitude = std::max(std::fabs(lo), std::fabs(hi)) * ranks;
  const double rounding = (additions + 1) * unit_roundoff * magnitude;
  const double per_hop = (user - rounding) / std::max(compressions, 1) * 0.999;
  return per_hop > 0 ? per_hop : 0;
}

double hop_bound(const Plan& plan, const void* data, size_t count, MPI_Comm agree,
                 int compressions, int additions) {
  double range[2];
  local_range(plan, data, count, range);
  int ranks = 1;
  if (agree != MPI_COMM_NULL) {
    double widest[2];
    PMPI_Allreduce(range, widest, 2, MPI_DOUBLE, MPI_MAX, agree);
    range[0] = widest[0];
    range[1] = widest[1];
    PMPI_Comm_size(agree, &ranks);
  }
  return bound_from_range(plan, range, ranks, compressions, additions);
}

}  // namespace adacomp
