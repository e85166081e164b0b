// Shared by the suites of test_nbc_compressed (tests/mpi/nbc_compressed.cpp
// runs them): the input data and the suites' entry points.
#pragma once
#include <mpi.h>

#include <vector>

#include "../check.h"

namespace nbc_test {

template <class T>
inline std::vector<T> input(int rank, int n) {
  std::vector<T> v(n);
  for (int i = 0; i < n; ++i)
    v[i] = static_cast<T>((i % 97) * 0.37 + rank * 1.25 + (i % 5 == 0 ? 100 : 0));
  return v;
}

inline unsigned long long compressed(const char* op) { return op_stats(op).compressed_calls; }

// reductions.cpp: Iallreduce (several types and ops, in place, counts
// 0 to 40001), Ibcast, Ireduce and Ireduce_scatter_block.
void allreduce_cases(MPI_Comm comm, const char* name);
void bcast_cases(MPI_Comm comm, const char* name);
void reduce_cases(MPI_Comm comm, const char* name);
// requests.cpp: several outstanding, wait orders, mixed arrays, a freed request.
void outstanding(MPI_Comm comm, const char* name);
void wait_orders(MPI_Comm comm, const char* name);
void mixed(MPI_Comm comm, const char* name);
void free_active(MPI_Comm comm, const char* name);
#if MPI_VERSION >= 4
// persistent.cpp: Allreduce_init and Bcast_init.
void persistent_cases(MPI_Comm comm, const char* name);
#endif
// lossy.cpp: --lossy BOUND.
void lossy_cases(double bound);
// corrupt.cpp: --corrupt.
void corrupt();
// default.cpp: a peer blocked in Recv; --default (ADACOMP_NONBLOCKING unset).
void blocked_peer(MPI_Comm comm, bool barrier);
void default_passthrough(MPI_Comm comm);

}  // namespace nbc_test
