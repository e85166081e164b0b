// Persistent Allreduce_init and Bcast_init (MPI-4) (a suite of test_nbc_compressed:
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

#if MPI_VERSION >= 4
// Persistent MPI_Allreduce_init / MPI_Bcast_init (MPICH): started several
// times with new data, by MPI_Start and MPI_Startall, completed by Wait,
// Waitall and a Testsome loop mixed with point-to-point requests; each
// start compressed (passed through where node-aware) and equal to the
// blocking call (the data sums exactly in any order); freed when inactive.
void persistent_cases(MPI_Comm comm, const char* name) {
  const bool staged = node_aware(comm);
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = 30001, root = 1 % size;
  std::vector<double> in(n), out(n), inplace(n), bc(n), blocking(n);
  MPI_Request reqs[4];
  MPI_Allreduce_init(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, comm, MPI_INFO_NULL, &reqs[0]);
  MPI_Allreduce_init(MPI_IN_PLACE, inplace.data(), n, MPI_DOUBLE, MPI_MAX, comm, MPI_INFO_NULL,
                     &reqs[1]);
  MPI_Bcast_init(bc.data(), n, MPI_DOUBLE, root, comm, MPI_INFO_NULL, &reqs[2]);
  // A blocking collective between init and the first start: nothing to settle.
  MPI_Allreduce(in.data(), blocking.data(), n, MPI_DOUBLE, MPI_SUM, comm);
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < n; ++i) in[i] = (i % 101) * 0.25 + rank + round;
    // The buffers stay where init saw them: copied into, never reassigned.
    std::copy(in.begin(), in.end(), inplace.begin());
    if (rank == root)
      std::copy(in.begin(), in.end(), bc.begin());
    else
      std::fill(bc.begin(), bc.end(), 0.0);
    const unsigned long long before = compressed("allreduce");
    if (round % 2 == 0) {
      MPI_Startall(3, reqs);
    } else {
      for (int j = 2; j >= 0; --j) MPI_Start(&reqs[j]);
    }
    if (round == 0) {
      MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    } else if (round == 1) {
      for (int j = 2; j >= 0; --j) MPI_Wait(&reqs[j], MPI_STATUS_IGNORE);
    } else if (staged) {
      // MPICH's own persistent collectives: its MPI_Testsome (4.0) reports
      // one of them several times.
      MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    } else {
      // With point-to-point traffic in the same array.
      const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
      std::vector<double> got(n);
      MPI_Irecv(got.data(), n, MPI_DOUBLE, prev, 11, comm, &reqs[3]);
      MPI_Request send;
      MPI_Isend(in.data(), n, MPI_DOUBLE, next, 11, comm, &send);
      int left = 4;
      while (left > 0) {
        int outcount = 0, idx[4];
        MPI_Testsome(4, reqs, &outcount, idx, MPI_STATUSES_IGNORE);
        if (outcount != MPI_UNDEFINED) left -= outcount;
      }
      MPI_Wait(&send, MPI_STATUS_IGNORE);
      CHECK(got[n - 1] == ((n - 1) % 101) * 0.25 + prev + round, "%s: p2p beside persistent", name);
    }
    CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[2] != MPI_REQUEST_NULL,
          "%s: a persistent request was freed by its completion", name);
    CHECK(compressed("allreduce") == before + (staged ? 0 : 2),
          "%s: persistent round %d compressed %s", name, round, staged ? "(node-aware)" : "not");
    MPI_Allreduce(in.data(), blocking.data(), n, MPI_DOUBLE, MPI_SUM, comm);
    CHECK(out == blocking, "%s: persistent Allreduce round %d", name, round);
    MPI_Allreduce(in.data(), blocking.data(), n, MPI_DOUBLE, MPI_MAX, comm);
    CHECK(inplace == blocking, "%s: persistent in-place Allreduce round %d", name, round);
    bool ok = true;
    for (int i = 0; i < n; ++i) ok = ok && bc[i] == (i % 101) * 0.25 + root + round;
    CHECK(ok, "%s: persistent Bcast round %d", name, round);
  }
  // Started in a different order on every other rank, as MPI allows (MPICH's
  // coll/p_order), with a persistent collective of MPI's own that the library
  // passes through (MPI_Barrier_init) in the same Waitall.
  MPI_Request barrier;
  MPI_Barrier_init(comm, MPI_INFO_NULL, &barrier);
  for (int i = 0; i < n; ++i) in[i] = i % 7 + rank;
  std::copy(in.begin(), in.end(), inplace.begin());
  if (rank == root) std::copy(in.begin(), in.end(), bc.begin());
  MPI_Request order[4] = {reqs[0], reqs[1], reqs[2], barrier};
  for (int j = 0; j < 4; ++j) MPI_Start(&order[rank % 2 == 0 ? j : 3 - j]);
  MPI_Status st[4];
  const int rc = MPI_Waitall(4, order, st);
  CHECK(rc == MPI_SUCCESS, "%s: Waitall of persistent calls started out of order: %d", name, rc);
  MPI_Allreduce(in.data(), blocking.data(), n, MPI_DOUBLE, MPI_SUM, comm);
  CHECK(out == blocking, "%s: persistent Allreduce started out of order", name);
  MPI_Allreduce(in.data(), blocking.data(), n, MPI_DOUBLE, MPI_MAX, comm);
  CHECK(inplace == blocking, "%s: persistent in-place Allreduce started out of order", name);
  CHECK(bc[n - 1] == (n - 1) % 7 + root, "%s: persistent Bcast started out of order", name);
  MPI_Request_free(&barrier);
  for (int j = 0; j < 3; ++j) MPI_Request_free(&reqs[j]);
  CHECK(reqs[0] == MPI_REQUEST_NULL, "%s: Request_free of a persistent collective", name);
}
#endif

}  // namespace nbc_test
