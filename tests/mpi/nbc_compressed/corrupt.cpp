// Corrupt frames reach the error handler (a suite of test_nbc_compressed:
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

void corrupt() {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comm = error_counting_comm();
  std::vector<double> in(50000, 1.0 + rank), out(50000);
  PMPI_Barrier(comm);
  MPI_Allreduce(in.data(), out.data(), 50000, MPI_DOUBLE, MPI_SUM, comm);  // creates the state
  g_errors_seen = 0;

  // Each message names the call the user made.
  MPI_Request req;
  MPI_Iallreduce(in.data(), out.data(), 50000, MPI_DOUBLE, MPI_SUM, comm, &req);
  CHECK(g_errors_seen == 0, "error reported before Wait");
  check_failed_completion(&req, size > 1, "Iallreduce");
  if (size > 1) CHECK(g_errors_seen == 1, "error handler called %d times from Wait", g_errors_seen);

  MPI_Ibcast(in.data(), 50000, MPI_DOUBLE, 0, comm, &req);
  check_failed_completion(&req, size > 1 && rank != 0, "Ibcast", Completion::test_loop);

  MPI_Request reqs[2];
  MPI_Status st[2];
  MPI_Iallreduce(in.data(), out.data(), 50000, MPI_DOUBLE, MPI_SUM, comm, &reqs[0]);
  MPI_Ibarrier(comm, &reqs[1]);
  int rc = MPI_SUCCESS;
  const std::string text = captured_stderr([&] { rc = MPI_Waitall(2, reqs, st); });
  if (size > 1) {
    CHECK(rc == MPI_ERR_IN_STATUS, "Waitall returned %d", rc);
    CHECK(is_adacomp_error(st[0].MPI_ERROR), "Waitall status[0] error %d", st[0].MPI_ERROR);
    CHECK(st[1].MPI_ERROR == MPI_SUCCESS, "Waitall status[1] error %d", st[1].MPI_ERROR);
    CHECK_REPORTS(text, "Iallreduce");
  }
#if MPI_VERSION >= 4
  MPI_Allreduce_init(in.data(), out.data(), 50000, MPI_DOUBLE, MPI_SUM, comm, MPI_INFO_NULL, &req);
  MPI_Start(&req);
  check_failed_completion(&req, size > 1, "Allreduce_init");
  MPI_Request_free(&req);
#endif
  free_usable(&comm);
}

}  // namespace nbc_test
