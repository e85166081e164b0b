#include "coll/bound.h"

#include "policy/budget.h"
#include "runtime/runtime.h"

namespace adacomp {

double hop_bound(const Plan& plan, const void* data, size_t count, MPI_Comm agree,
                 int compressions, int additions) {
  double lo = 0, hi = 0;
  finite_range(plan.type.kind, data, count, &lo, &hi);
  int ranks = 1;
  if (agree != MPI_COMM_NULL) {
    double mine[2] = {-lo, hi}, widest[2];
    PMPI_Allreduce(mine, widest, 2, MPI_DOUBLE, MPI_MAX, agree);
    lo = -widest[0];
    hi = widest[1];
    PMPI_Comm_size(agree, &ranks);
  }
  return hop_budget(config(), plan.type.kind, lo, hi, ranks, compressions, additions);
}

}  // namespace adacomp
