// Outstanding requests, wait orders, mixed arrays with point-to-point, a freed active request (a
// suite of test_nbc_compressed: tests/mpi/nbc_compressed.cpp).
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

// Several outstanding, completed in reverse order, with a blocking
// compressed Allreduce in between.
void outstanding(MPI_Comm comm, const char* name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = 20001, k = 5;
  std::vector<std::vector<long long>> out(k, std::vector<long long>(n));
  std::vector<long long> in(n), bc(n);
  for (int i = 0; i < n; ++i) in[i] = i * 7 + rank;
  if (rank == 0) bc = in;
  std::vector<MPI_Request> reqs(k + 1);
  for (int j = 0; j < k; ++j)
    MPI_Iallreduce(in.data(), out[j].data(), n - j, MPI_LONG_LONG, j % 2 ? MPI_MAX : MPI_SUM, comm,
                   &reqs[j]);
  MPI_Ibcast(bc.data(), n, MPI_LONG_LONG, 0, comm, &reqs[k]);
  std::vector<long long> mid(n);
  MPI_Allreduce(in.data(), mid.data(), n, MPI_LONG_LONG, MPI_MIN, comm);
  for (int j = k; j >= 0; --j) MPI_Wait(&reqs[j], MPI_STATUS_IGNORE);
  bool ok = true;
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < n - j; ++i) {
      long long want = j % 2 ? i * 7LL + size - 1 : size * (i * 7LL) + size * (size - 1) / 2;
      ok = ok && out[j][i] == want;
    }
  CHECK(ok, "%s: outstanding Iallreduces", name);
  bool ok_bc = true, ok_mid = true;
  for (int i = 0; i < n; ++i) {
    ok_bc = ok_bc && bc[i] == i * 7LL;
    ok_mid = ok_mid && mid[i] == i * 7LL;
  }
  CHECK(ok_bc, "%s: outstanding Ibcast", name);
  CHECK(ok_mid, "%s: blocking Allreduce among outstanding ones", name);
}

// Rank 0 waits for an Iallreduce before a passed-through blocking
// collective, the others enter that collective first: it must advance
// their outstanding schedules, or rank 0 would wait forever.
void wait_orders(MPI_Comm comm, const char* name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<int> in(40000, rank), out(40000);
  struct {
    double value;
    int rank;
  } mine{static_cast<double>(rank), rank}, best{};
  MPI_Request req;
  MPI_Iallreduce(in.data(), out.data(), 40000, MPI_INT, MPI_SUM, comm, &req);
  if (rank == 0) MPI_Wait(&req, MPI_STATUS_IGNORE);
  // MPI_DOUBLE_INT is no type the library codes: PMPI_Allreduce.
  MPI_Allreduce(&mine, &best, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
  if (rank != 0) MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(out[0] == size * (size - 1) / 2 && out[39999] == out[0], "%s: wait orders", name);
  CHECK(best.rank == size - 1, "%s: MAXLOC alongside", name);
}

// Mixed arrays: collectives with point-to-point requests.
void mixed(MPI_Comm comm, const char* name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = 30000;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  std::vector<double> in(n), sum(n), p2p(n), bc(n);
  for (int i = 0; i < n; ++i) in[i] = i * 0.5 + rank;
  auto check_all = [&](const char* how) {
    bool ok_sum = true, ok_p2p = true, ok_bc = true;
    for (int i = 0; i < n; ++i) {
      ok_sum = ok_sum && sum[i] == size * (i * 0.5) + size * (size - 1) / 2.0;
      ok_p2p = ok_p2p && p2p[i] == i * 0.5 + prev;
      ok_bc = ok_bc && bc[i] == i * 0.5 + 1 % size;
    }
    CHECK(ok_sum && ok_p2p && ok_bc, "%s: %s (sum %d p2p %d bcast %d)", name, how, ok_sum, ok_p2p,
          ok_bc);
  };
  auto start = [&](MPI_Request reqs[4]) {
    std::fill(sum.begin(), sum.end(), 0.0);
    std::fill(p2p.begin(), p2p.end(), 0.0);
    bc = rank == 1 % size ? in : std::vector<double>(n, 0.0);
    MPI_Irecv(p2p.data(), n, MPI_DOUBLE, prev, 9, comm, &reqs[0]);
    MPI_Iallreduce(in.data(), sum.data(), n, MPI_DOUBLE, MPI_SUM, comm, &reqs[1]);
    MPI_Isend(in.data(), n, MPI_DOUBLE, next, 9, comm, &reqs[2]);
    MPI_Ibcast(bc.data(), n, MPI_DOUBLE, 1 % size, comm, &reqs[3]);
  };
  MPI_Request reqs[4];
  MPI_Status st[4];
  start(reqs);
  CHECK(MPI_Waitall(4, reqs, st) == MPI_SUCCESS, "%s: Waitall", name);
  check_all("Waitall");

  start(reqs);
  int flag = 0;
  while (!flag) MPI_Testall(4, reqs, &flag, MPI_STATUSES_IGNORE);
  check_all("Testall");

  start(reqs);
  int left = 4, seen[4] = {0, 0, 0, 0};
  while (left > 0) {
    int outcount = 0, idx[4];
    MPI_Testsome(4, reqs, &outcount, idx, st);
    for (int j = 0; j < outcount; ++j) ++seen[idx[j]];
    left -= outcount;
  }
  CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1 && seen[3] == 1, "%s: Testsome", name);
  check_all("Testsome");

  start(reqs);
  for (int j = 0; j < 4; ++j) {
    int index = -1;
    MPI_Waitany(4, reqs, &index, MPI_STATUS_IGNORE);
    CHECK(index >= 0 && index < 4 && reqs[index] == MPI_REQUEST_NULL, "%s: Waitany", name);
  }
  check_all("Waitany");

  start(reqs);
  for (int done = 0; done < 4;) {
    int index = -1;
    flag = 0;
    MPI_Testany(4, reqs, &index, &flag, MPI_STATUS_IGNORE);
    if (flag) ++done;
  }
  check_all("Testany");

  start(reqs);
  for (flag = 0; !flag;) MPI_Request_get_status(reqs[1], &flag, MPI_STATUS_IGNORE);
  CHECK(reqs[1] != MPI_REQUEST_NULL, "%s: Request_get_status freed the request", name);
  MPI_Waitsome(4, reqs, &left, seen, MPI_STATUSES_IGNORE);
  MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
  check_all("Request_get_status + Waitsome");
}

// Freeing an active collective request (erroneous in MPI): no hang, no
// crash, and the communicator's later collectives are right.
void free_active(MPI_Comm comm, const char* name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  static std::vector<int> in, out;  // outlive the freed request
  in.assign(50000, rank + 1);
  out.assign(50000, 0);
  MPI_Request req;
  MPI_Iallreduce(in.data(), out.data(), 50000, MPI_INT, MPI_SUM, comm, &req);
  MPI_Request_free(&req);
  CHECK(req == MPI_REQUEST_NULL, "%s: Request_free left the handle", name);
  std::vector<int> again(50000);
  MPI_Allreduce(in.data(), again.data(), 50000, MPI_INT, MPI_SUM, comm);
  CHECK(again[0] == size * (size + 1) / 2, "%s: Allreduce after a freed Iallreduce", name);
  MPI_Barrier(comm);
}

}  // namespace nbc_test
