#include "decision/budget.h"

#include <algorithm>
#include <cmath>

namespace adacomp {
namespace {

double rounding_reserve(ElemKind kind, double lo, double hi, int ranks, int additions) {
  const double unit_roundoff = kind == ElemKind::f32 ? std::ldexp(1.0, -24) : std::ldexp(1.0, -53);
  const double magnitude = std::max(std::fabs(lo), std::fabs(hi)) * ranks;
  return (additions + 1) * unit_roundoff * magnitude;
}

}  // namespace

double hop_budget(const ErrorBound& bound, ElemKind kind, double lo, double hi, int ranks,
                  int compressions, int additions) {
  if (!(hi >= lo)) return 0;  // no finite values at all
  const double user = bound.over(lo, hi);
  const double rounding = rounding_reserve(kind, lo, hi, ranks, additions);
  const double per_hop = (user - rounding) / std::max(compressions, 1) * 0.999;
  return per_hop > 0 ? per_hop : 0;
}

LossyCertificate certificate(const ErrorBound& bound, double lo, double hi, double proven) {
  LossyCertificate c;
  c.in_force = bound.over(lo, hi);
  c.rel = bound.abs > 0 ? 0 : bound.rel;
  c.lo = lo, c.hi = hi;
  c.proven = proven;
  return c;
}

LossyCertificate ring_certificate(const ErrorBound& bound, ElemKind kind, double lo, double hi,
                                  int ranks, int compressions, int additions, double per_hop) {
  if (!(per_hop > 0)) return {};
  return certificate(bound, lo, hi,
                     std::max(compressions, 1) * per_hop +
                         rounding_reserve(kind, lo, hi, ranks, additions));
}

}  // namespace adacomp
