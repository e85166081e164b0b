// Lossy nonblocking reductions within the bound (a suite of test_nbc_compressed:
// tests/mpi/nbc_compressed.cpp).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "suites.h"

namespace nbc_test {

namespace {

// Lossy (ADACOMP_MODE=lossy, ADACOMP_ERROR_BOUND=bound): the nonblocking
// reductions agree on the bound (or the codes grid) without blocking, give
// the blocking lossy calls' bits, and stay within the bound of the exact
// (PMPI) result; Ireduce_scatter_block gives Reduce_scatter_block's bits.
// `nan`: rank 0 brings a NaN, which takes the SUM off codes in both calls
// alike.
template <class T>
void lossy_case(MPI_Comm comm, int n, double bound, bool nan = false) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const MPI_Datatype type = mpi_type<T>();
  std::vector<T> in(n), blocking(n), nb(n), exact(n), red_b(n), red_nb(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<T>(std::sin(i * 0.001 + rank) * 10);
  if (nan && rank == 0) in[n / 2] = std::numeric_limits<T>::quiet_NaN();
  MPI_Allreduce(in.data(), blocking.data(), n, type, MPI_SUM, comm);
  const unsigned long long before = op_stats("allreduce").lossy_calls;
  MPI_Request req[2];
  MPI_Iallreduce(in.data(), nb.data(), n, type, MPI_SUM, comm, &req[0]);
  MPI_Ireduce(in.data(), red_nb.data(), n, type, MPI_SUM, size - 1, comm, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  MPI_Reduce(in.data(), red_b.data(), n, type, MPI_SUM, size - 1, comm);
  PMPI_Allreduce(in.data(), exact.data(), n, type, MPI_SUM, comm);
  CHECK(size == 1 || op_stats("allreduce").lossy_calls == before + 1,
        "lossy Iallreduce n=%d not lossy", n);
  CHECK(std::memcmp(nb.data(), blocking.data(), n * sizeof(T)) == 0,
        "lossy Iallreduce n=%d differs from Allreduce", n);
  CHECK(rank != size - 1 || std::memcmp(red_nb.data(), red_b.data(), n * sizeof(T)) == 0,
        "lossy Ireduce n=%d differs from Reduce", n);
  // Reduce_scatter_block decodes, adds and encodes at each hop, blocking or not.
  std::vector<T> rs_in(static_cast<size_t>(n) * size), rs_b(n), rs_nb(n);
  for (size_t i = 0; i < rs_in.size(); ++i)
    rs_in[i] = static_cast<T>(std::cos(i * 0.002 + rank) * 10);
  MPI_Reduce_scatter_block(rs_in.data(), rs_b.data(), n, type, MPI_SUM, comm);
  MPI_Request rs_req;
  MPI_Ireduce_scatter_block(rs_in.data(), rs_nb.data(), n, type, MPI_SUM, comm, &rs_req);
  MPI_Wait(&rs_req, MPI_STATUS_IGNORE);
  CHECK(std::memcmp(rs_nb.data(), rs_b.data(), n * sizeof(T)) == 0,
        "lossy Ireduce_scatter_block n=%d differs from Reduce_scatter_block", n);
#if MPI_VERSION >= 4
  // The persistent form runs the same schedule (codes included) per start.
  std::vector<T> pers(n);
  MPI_Request preq;
  MPI_Allreduce_init(in.data(), pers.data(), n, type, MPI_SUM, comm, MPI_INFO_NULL, &preq);
  for (int start = 0; start < 2; ++start) {
    std::fill(pers.begin(), pers.end(), T(-1));
    MPI_Start(&preq);
    MPI_Wait(&preq, MPI_STATUS_IGNORE);
    CHECK(std::memcmp(pers.data(), blocking.data(), n * sizeof(T)) == 0,
          "lossy Allreduce_init n=%d start %d differs from Allreduce", n, start);
  }
  MPI_Request_free(&preq);
#endif
  double worst = 0;
  for (int i = 0; i < n; ++i)
    if (!(nan && i == n / 2))
      worst = std::max(worst, std::fabs(static_cast<double>(nb[i]) - exact[i]));
  CHECK(worst <= bound, "lossy Iallreduce n=%d error %g over the bound %g", n, worst, bound);
  CHECK(!nan || std::isnan(nb[n / 2]), "lossy Iallreduce n=%d lost the NaN", n);
}

}  // namespace

void lossy_cases(double bound) {
  int one = 1, total = 0;
  MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int n : {1, 1001, 40001}) {
    lossy_case<double>(MPI_COMM_WORLD, n, bound);
    lossy_case<float>(MPI_COMM_WORLD, n, bound);
  }
  lossy_case<double>(MPI_COMM_WORLD, 40001, bound, true);
  lossy_case<float>(MPI_COMM_WORLD, 1001, bound, true);
}

}  // namespace nbc_test
