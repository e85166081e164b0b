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

}  // namespace adacomp
