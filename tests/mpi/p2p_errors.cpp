// ADACOMP_FAULT=corrupt-frames for point-to-point, the data-movement
// collectives and (MPICH) the large-count collectives: a damaged frame is reported through the
// communicator's error handler (AdaComp error class), no rank hangs, and the communicator stays
// usable.
#include <cstring>
#include <vector>

#include "check.h"

int main(int argc, char** argv) {
  int rank, size;
  start_test(&argc, &argv, &rank, &size);
  MPI_Comm comm = error_returning_comm();
  const int n = 40000, next = (rank + 1) % size, prev = (rank - 1 + size) % size;
  std::vector<double> in(n, 2.0 + rank), out(n * size);

  int rc = MPI_Sendrecv(in.data(), n, MPI_DOUBLE, next, 1, out.data(), n, MPI_DOUBLE, prev, 1, comm,
                        MPI_STATUS_IGNORE);
  CHECK(is_adacomp_error(rc), "sendrecv returned %d", rc);
  MPI_Request r;
  MPI_Irecv(out.data(), n, MPI_DOUBLE, prev, 2, comm, &r);
  MPI_Send(in.data(), n, MPI_DOUBLE, next, 2, comm);
  rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  CHECK(is_adacomp_error(rc), "irecv+wait returned %d", rc);
  MPI_Message msg;
  MPI_Request s;
  MPI_Isend(in.data(), n, MPI_DOUBLE, next, 3, comm, &s);
  MPI_Mprobe(prev, 3, comm, &msg, MPI_STATUS_IGNORE);
  rc = MPI_Mrecv(out.data(), n, MPI_DOUBLE, &msg, MPI_STATUS_IGNORE);
  CHECK(is_adacomp_error(rc), "mprobe+mrecv returned %d", rc);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  if (size > 1) {
    rc = MPI_Allgather(in.data(), n, MPI_DOUBLE, out.data(), n, MPI_DOUBLE, comm);
    CHECK(is_adacomp_error(rc), "allgather returned %d", rc);
    rc = MPI_Alltoall(out.data(), n / size, MPI_DOUBLE, in.data(), n / size, MPI_DOUBLE, comm);
    CHECK(is_adacomp_error(rc), "alltoall returned %d", rc);
#if MPI_VERSION >= 4
    // The large-count forms share these paths (MPICH).
    rc = MPI_Allgather_c(in.data(), n, MPI_DOUBLE, out.data(), n, MPI_DOUBLE, comm);
    CHECK(is_adacomp_error(rc), "allgather_c returned %d", rc);
    rc = MPI_Reduce_scatter_block_c(out.data(), in.data(), n, MPI_DOUBLE, MPI_SUM, comm);
    CHECK(is_adacomp_error(rc), "reduce_scatter_block_c returned %d", rc);
#endif
  }
  free_usable(&comm);
  return finish_test("p2p_errors");
}
