#include "coll/bound.h"

#include "policy/budget.h"
#include "runtime/runtime.h"

namespace adacomp {

void local_range(const Plan& plan, const void* data, size_t count, double range[2]) {
  double lo = 0, hi = 0;
  finite_range(plan.type.kind, data, count, &lo, &hi);
  range[0] = -lo;
  range[1] = hi;
}

double bound_from_range(const Plan& plan, const double range[2], int ranks, int compressions,
                        int additions) {
  return hop_budget(config(), plan.type.kind, -range[0], range[1], ranks, compressions,
                    additions);
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
