// The lossy error budget without MPI (decision/budget.h): the split of the
// user's bound over compressions after the rounding that plain arithmetic
// suffers, relative bounds, and when nothing is left. (The finite range it
// is given is qgrid::finite_range's, tests/codec/test_quant_grid.cpp.)
#include <cmath>

#include "decision/budget.h"
#include "unit.h"

using namespace adacomp;

namespace {

bool near(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::fabs(b); }

void budgets() {
  Config c;
  c.abs_error_bound = 1e-3;
  const double u64 = std::ldexp(1.0, -53), u32 = std::ldexp(1.0, -24);
  // One compression, one addition, on 4 ranks of values within [-10, 100].
  double expect = (1e-3 - 2 * u64 * 400) * 0.999;
  EXPECT(near(hop_budget(job_bound(c), ElemKind::f64, -10, 100, 4, 1, 1), expect));
  // Split over compressions; floats round more.
  expect = (1e-3 - 5 * u32 * 400) / 3 * 0.999;
  EXPECT(near(hop_budget(job_bound(c), ElemKind::f32, -10, 100, 4, 3, 4), expect));
  // Zero compressions count as one.
  EXPECT(hop_budget(job_bound(c), ElemKind::f64, 0, 1, 1, 0, 0) ==
         hop_budget(job_bound(c), ElemKind::f64, 0, 1, 1, 1, 0));
  // Relative: scaled by the range.
  Config r;
  r.rel_error_bound = 1e-4;
  expect = (1e-4 * 50 - u64 * 30) * 0.999;
  EXPECT(near(hop_budget(job_bound(r), ElemKind::f64, -20, 30, 1, 1, 0), expect));
  // Nothing left: rounding eats the bound, no finite values, a constant
  // field under a relative bound.
  EXPECT(hop_budget(job_bound(c), ElemKind::f32, 0, 1e5, 8, 1, 8) == 0);
  EXPECT(hop_budget(job_bound(c), ElemKind::f64, 1, 0, 1, 1, 0) == 0);
  EXPECT(hop_budget(job_bound(r), ElemKind::f64, 5, 5, 1, 1, 0) == 0);
  // The budget times the compressions, plus the rounding, stays within E.
  for (int n = 1; n <= 64; n *= 2) {
    const double b = hop_budget(job_bound(c), ElemKind::f64, -1e3, 1e3, n, n, n);
    EXPECT(b > 0 && b * n + (n + 1) * u64 * 1e3 * n <= 1e-3);
  }
}

}  // namespace

int main() {
  budgets();
  return unit::finish("decision budget");
}
