// Error budget of lossy collectives. The user's bound E must hold for every
// element of the final result against the exact result. Along any element's
// path the errors of N lossy compressions add up, and so does the rounding
// of the A additions (or other ops) that combine partial results, which
// plain MPI suffers too. Each compression therefore gets
//   (E - rounding) / N,   rounding = (A + 1) * unit_roundoff * max|partial|.
// Plain arithmetic; coll/lossy_agreement.h takes the value range over the ranks
// (qgrid::finite_range, codec/quant_grid.h).
#pragma once

#include <cstddef>

#include "codec/codec.h"
#include "decision/lossy_scope.h"

namespace adacomp {

// Per-compression bound, or 0 when no positive bound is left (the call then
// codes losslessly). A relative user bound is scaled by the range [lo, hi];
// partial results are assumed to reach `ranks` times the largest magnitude.
double hop_budget(const ErrorBound& bound, ElemKind kind, double lo, double hi, int ranks,
                  int compressions, int additions);

// What one lossy call guaranteed: the bound in force (`in_force`, absolute;
// `rel` with the range [lo, hi] it was scaled by, when relative) and the
// bound the library proves for its result from how it coded (`proven`:
// the codecs' per-coding guarantee times the codings, plus the reserved
// rounding). proven <= in_force by construction; the report shows both.
struct LossyCertificate {
  double in_force = 0, rel = 0, lo = 0, hi = 0;
  double proven = 0;
  // The largest difference from the exact result measured beside the call
  // (ADACOMP_LOSSY_CHECK), -1 where not measured.
  double measured = -1;
  bool given() const { return proven > 0; }
  // What the report checks: proven within the bound in force, and any
  // measured error within proven.
  bool holds() const { return proven <= in_force && measured <= proven; }
};
LossyCertificate certificate(const ErrorBound& bound, double lo, double hi, double proven);

// The certificate of a call coded with hop_budget's `per_hop` (arguments as
// hop_budget's): N * per_hop + rounding.
LossyCertificate ring_certificate(const ErrorBound& bound, ElemKind kind, double lo, double hi,
                                  int ranks, int compressions, int additions, double per_hop);

}  // namespace adacomp
