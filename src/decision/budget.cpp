#include "decision/budget.h"

#include <algorithm>
#include <cmath>

namespace adacomp {

double hop_budget(const ErrorBound& bound, ElemKind kind, double lo, double hi, int ranks,
                  int compressions, int additions) {
  if (!(hi >= lo)) return 0;  // no finite values at all
  const double user = bound.over(lo, hi);
  const double unit_roundoff = kind == ElemKind::f32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
  const double magnitude = std::max(std::fabs(lo), std::fabs(hi)) * ranks;
  const double rounding = (additions + 1) * unit_roundoff * magnitude;
  const double per_hop = (user - rounding) / std::max(compressions, 1) * 0.999;
  return per_hop > 0 ? per_hop : 0;
}

}  // namespace adacomp
