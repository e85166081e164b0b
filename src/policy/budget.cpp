#include "policy/budget.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace adacomp {
namespace {

template <typename T>
void finite_range_t(const void* data, size_t n, double* lo, double* hi) {
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

void finite_range(ElemKind kind, const void* data, size_t count, double* lo, double* hi) {
  if (kind == ElemKind::f32) finite_range_t<float>(data, count, lo, hi);
  else finite_range_t<double>(data, count, lo, hi);
}

double hop_budget(const Config& cfg, ElemKind kind, double lo, double hi, int ranks,
                  int compressions, int additions) {
  if (!(hi >= lo)) return 0;  // no finite values at all
  const double user = cfg.abs_error_bound > 0 ? cfg.abs_error_bound
                                              : cfg.rel_error_bound * (hi - lo);
  const double unit_roundoff =
      kind == ElemKind::f32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
  const double magnitude = std::max(std::fabs(lo), std::fabs(hi)) * ranks;
  const double rounding = (additions + 1) * unit_roundoff * magnitude;
  const double per_hop = (user - rounding) / std::max(compressions, 1) * 0.999;
  return per_hop > 0 ? per_hop : 0;
}

}  // namespace adacomp
