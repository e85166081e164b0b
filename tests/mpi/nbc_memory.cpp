// Memory of a compressed nonblocking Allreduce (lossy, ADACOMP_NONBLOCKING=on;
// reduction on codes on or off): the schedule allocates the buffers of the
// path it takes, the codes ring's or the decode-add-encode hops', only once
// the ranks have agreed on it, so never those of the other path. Rank 0
// starts its MPI_Iallreduce while the others wait in a barrier on another
// communicator: its agreement cannot complete, and its heap (glibc's
// mallinfo2, bytes in use and mapped) must not have grown by any ring buffer
// when the call returns. The results are the blocking lossy call's bits.
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "check.h"

namespace {

long long heap_in_use() {
  const struct mallinfo2 m = mallinfo2();
  return static_cast<long long>(m.uordblks + m.hblkhd);
}

}  // namespace

int main(int argc, char** argv) {
  int rank, size;
  start_test(&argc, &argv, &rank, &size);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  const int n = 1 << 17;  // 1 MiB of doubles: each ring buffer is 1/size of it or more
  std::vector<double> in(n), blocking(n), nb(n, -1.0);
  for (int i = 0; i < n; ++i) in[i] = std::sin(i * 0.001 + rank) * 10;
  // Warm-up: the communicator's state, the scratch of the blocking call.
  MPI_Allreduce(in.data(), blocking.data(), n, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Request req;
  MPI_Iallreduce(in.data(), nb.data(), n, MPI_DOUBLE, MPI_SUM, comm, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);

  const unsigned long long lossy_before = op_stats("allreduce").lossy_calls;
  std::fill(nb.begin(), nb.end(), -1.0);
  if (rank == 0) {
    const long long before = heap_in_use();
    MPI_Iallreduce(in.data(), nb.data(), n, MPI_DOUBLE, MPI_SUM, comm, &req);
    const long long grown = heap_in_use() - before;
    std::printf("rank 0: heap grew by %lld bytes with the agreement pending\n", grown);
    CHECK(size == 1 || grown < static_cast<long long>(n * sizeof(double) / 16),
          "Iallreduce holds %lld heap bytes before its path is chosen", grown);
  }
  PMPI_Barrier(MPI_COMM_WORLD);
  if (rank != 0) MPI_Iallreduce(in.data(), nb.data(), n, MPI_DOUBLE, MPI_SUM, comm, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(size == 1 || op_stats("allreduce").lossy_calls == lossy_before + 1,
        "the Iallreduce was not lossy");
  CHECK(std::memcmp(nb.data(), blocking.data(), n * sizeof(double)) == 0,
        "Iallreduce differs from Allreduce");
  MPI_Comm_free(&comm);
  return finish_test("nbc_memory");
}
