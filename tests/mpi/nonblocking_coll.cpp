// Nonblocking collectives pass through to PMPI with compression forced for
// everything else: results against values computed locally, on the
// application's communicator and a split one, completed by Wait, Waitall and
// Test loops mixed with compressed point-to-point traffic in flight.
#include <mpi.h>

#include <cstring>
#include <vector>

#include "check.h"

namespace {

void run(MPI_Comm comm, const char* name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = 40000;
  std::vector<double> in(n), sum(n), bc(n), gathered(static_cast<size_t>(n) * size);
  for (int i = 0; i < n; ++i) in[i] = rank * 0.5 + i * 0.25;
  if (rank == 0) bc = in;
  // A compressed point-to-point exchange in flight at the same time.
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  std::vector<double> p2p_in(n);
  MPI_Request reqs[5];
  MPI_Irecv(p2p_in.data(), n, MPI_DOUBLE, prev, 3, comm, &reqs[0]);
  MPI_Isend(in.data(), n, MPI_DOUBLE, next, 3, comm, &reqs[1]);
  MPI_Iallreduce(in.data(), sum.data(), n, MPI_DOUBLE, MPI_SUM, comm, &reqs[2]);
  MPI_Ibcast(bc.data(), n, MPI_DOUBLE, 0, comm, &reqs[3]);
  MPI_Iallgather(in.data(), n, MPI_DOUBLE, gathered.data(), n, MPI_DOUBLE, comm, &reqs[4]);
  int done = 0;
  while (!done) MPI_Testall(5, reqs, &done, MPI_STATUSES_IGNORE);
  bool ok_sum = true, ok_bc = true, ok_gather = true, ok_p2p = true;
  for (int i = 0; i < n; ++i) {
    double expect = 0;
    for (int r = 0; r < size; ++r) expect += r * 0.5 + i * 0.25;
    ok_sum = ok_sum && sum[i] == expect;  // exact: multiples of 0.25, small sums
    ok_bc = ok_bc && bc[i] == i * 0.25;
    ok_p2p = ok_p2p && p2p_in[i] == prev * 0.5 + i * 0.25;
    for (int r = 0; r < size; ++r)
      ok_gather = ok_gather && gathered[static_cast<size_t>(r) * n + i] == r * 0.5 + i * 0.25;
  }
  CHECK(ok_sum, "%s: Iallreduce", name);
  CHECK(ok_bc, "%s: Ibcast", name);
  CHECK(ok_gather, "%s: Iallgather", name);
  CHECK(ok_p2p, "%s: point-to-point alongside", name);

  std::vector<double> red(n, -1.0), a2a_out(static_cast<size_t>(n) * size / 8),
      a2a_in(a2a_out.size());
  const int block = n / 8;
  for (size_t i = 0; i < a2a_out.size(); ++i) a2a_out[i] = rank * 1000.0 + i;
  MPI_Request r2[2];
  MPI_Ireduce(in.data(), red.data(), n, MPI_DOUBLE, MPI_MAX, size - 1, comm, &r2[0]);
  MPI_Ialltoall(a2a_out.data(), block, MPI_DOUBLE, a2a_in.data(), block, MPI_DOUBLE, comm, &r2[1]);
  MPI_Wait(&r2[1], MPI_STATUS_IGNORE);
  MPI_Wait(&r2[0], MPI_STATUS_IGNORE);
  if (rank == size - 1) {
    bool ok = true;
    for (int i = 0; i < n; ++i) ok = ok && red[i] == (size - 1) * 0.5 + i * 0.25;
    CHECK(ok, "%s: Ireduce", name);
  }
  bool ok = true;
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < block; ++i)
      ok = ok && a2a_in[static_cast<size_t>(r) * block + i] ==
                     r * 1000.0 + static_cast<double>(rank) * block + i;
  CHECK(ok, "%s: Ialltoall", name);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  run(MPI_COMM_WORLD, "world");
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  run(half, "split");
  MPI_Comm_free(&half);
  adacomp_op_stats s = op_stats("send");
  CHECK(s.compressed_calls > 0, "the point-to-point alongside was not compressed");
  return finish_test("nonblocking_coll");
}
