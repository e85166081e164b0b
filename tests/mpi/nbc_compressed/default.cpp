// A peer blocked in Recv, and ADACOMP_NONBLOCKING unset (a suite of test_nbc_compressed:
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

// A correct program that blocks in a point-to-point call while a peer still
// needs its part of an outstanding collective: rank 0 completes the
// Iallreduce and then sends, rank 1 receives first and completes the
// Iallreduce after. The intercepted Recv polls (docs/nonblocking.md); with
// `barrier` (rank 0 completes, then MPI_Barrier; the others enter the Barrier
// first) only MPI's own progress can serve it: run only with
// ADACOMP_NONBLOCKING off, where the Iallreduce is MPI's.
void blocked_peer(MPI_Comm comm, bool barrier) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = 40001;
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = (i % 1000) * (rank + 1);
  // Rank 0 starts late, so nothing of it has arrived when rank 1 enters
  // MPI_Recv: only a Recv that keeps advancing the schedule lets it finish.
  if (rank == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  MPI_Request req;
  MPI_Iallreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, comm, &req);
  int token = rank == 0 ? 7 : 0;
  if (rank == 0) {
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (barrier)
      MPI_Barrier(comm);
    else if (size > 1)
      MPI_Send(&token, 1, MPI_INT, 1, 5, comm);
  } else {
    if (barrier)
      MPI_Barrier(comm);
    else if (rank == 1)
      MPI_Recv(&token, 1, MPI_INT, 0, 5, comm, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  const int ranks = size * (size + 1) / 2;
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += out[i] != (i % 1000) * ranks;
  CHECK(wrong == 0, "blocked peer (%s): %d wrong elements", barrier ? "Barrier" : "Recv", wrong);
  CHECK(barrier || rank > 1 || token == 7, "blocked peer: token %d", token);
}

// ADACOMP_NONBLOCKING unset (the default): every nonblocking collective is
// MPI's own (no compressed call counted, though the blocking ones are
// compressed), its results exact, and blocked_peer completes in both forms.
void default_passthrough(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const char* ops[] = {"allreduce", "bcast", "reduce", "reduce_scatter_block"};
  unsigned long long before[4];
  for (int k = 0; k < 4; ++k) before[k] = compressed(ops[k]);
  const int n = 40001, block = 10007;
  std::vector<long long> in(n), sum(n), b(n), red(n), slice(block);
  std::vector<long long> blocks(static_cast<size_t>(block) * size);
  for (int i = 0; i < n; ++i) in[i] = (i % 1000) * (rank + 1);
  for (int i = 0; i < n; ++i) b[i] = rank == 0 ? i * 3 : -1;
  for (size_t i = 0; i < blocks.size(); ++i) blocks[i] = static_cast<long long>(i) + rank;
  MPI_Request reqs[4];
  MPI_Iallreduce(in.data(), sum.data(), n, MPI_LONG_LONG, MPI_SUM, comm, &reqs[0]);
  MPI_Ibcast(b.data(), n, MPI_LONG_LONG, 0, comm, &reqs[1]);
  MPI_Ireduce(in.data(), red.data(), n, MPI_LONG_LONG, MPI_SUM, 0, comm, &reqs[2]);
  MPI_Ireduce_scatter_block(blocks.data(), slice.data(), block, MPI_LONG_LONG, MPI_SUM, comm,
                            &reqs[3]);
  MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
  const long long ranks = static_cast<long long>(size) * (size + 1) / 2;
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    wrong += sum[i] != (i % 1000) * ranks;
    wrong += b[i] != i * 3;
    wrong += rank == 0 && red[i] != (i % 1000) * ranks;
  }
  const long long rank_sum = static_cast<long long>(size) * (size - 1) / 2;
  for (int i = 0; i < block; ++i)
    wrong += slice[i] != (static_cast<long long>(rank) * block + i) * size + rank_sum;
  CHECK(wrong == 0, "pass-through: %d wrong elements", wrong);
  blocked_peer(comm, false);
  blocked_peer(comm, true);
  for (int k = 0; k < 4; ++k)
    CHECK(compressed(ops[k]) == before[k], "pass-through: %s compressed", ops[k]);
  // The blocking form is still compressed (the library is on).
  MPI_Allreduce(in.data(), sum.data(), n, MPI_LONG_LONG, MPI_SUM, comm);
  CHECK(size == 1 || compressed("allreduce") == before[0] + 1, "blocking Allreduce not compressed");
}

}  // namespace nbc_test
