// Iallreduce, Ibcast, Ireduce and Ireduce_scatter_block against the blocking calls (a suite of
// test_nbc_compressed: tests/mpi/nbc_compressed.cpp).
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

// Iallreduce against the blocking compressed call (same bits) and, for
// integers, against PMPI.
template <class T>
void allreduce_case(MPI_Comm comm, const char* name, int n, MPI_Op op, bool in_place) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  const MPI_Datatype type = mpi_type<T>();
  std::vector<T> in = input<T>(rank, n), blocking(n), nb(n), plain(n);
  MPI_Allreduce(in.data(), blocking.data(), n, type, op, comm);
  const unsigned long long before = compressed("allreduce");
  MPI_Request req;
  if (in_place) {
    nb = in;
    MPI_Iallreduce(MPI_IN_PLACE, nb.data(), n, type, op, comm, &req);
  } else {
    MPI_Iallreduce(in.data(), nb.data(), n, type, op, comm, &req);
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(req == MPI_REQUEST_NULL, "%s: request not freed by Wait", name);
  CHECK(n == 0 || compressed("allreduce") == before + 1, "%s: n=%d not compressed", name, n);
  CHECK(n == 0 || std::memcmp(nb.data(), blocking.data(), n * sizeof(T)) == 0,
        "%s: n=%d Iallreduce differs from Allreduce", name, n);
  if (std::is_integral<T>::value) {
    PMPI_Allreduce(in.data(), plain.data(), n, type, op, comm);
    CHECK(n == 0 || std::memcmp(nb.data(), plain.data(), n * sizeof(T)) == 0,
          "%s: n=%d Iallreduce differs from PMPI", name, n);
  }
}

}  // namespace

void allreduce_cases(MPI_Comm comm, const char* name) {
  for (int n : {0, 1, 7, 1001, 40001}) {
    for (bool in_place : {false, true}) {
      allreduce_case<double>(comm, name, n, MPI_SUM, in_place);
      allreduce_case<int>(comm, name, n, MPI_SUM, in_place);
    }
    allreduce_case<float>(comm, name, n, MPI_MAX, false);
    allreduce_case<long long>(comm, name, n, MPI_PROD, false);
    allreduce_case<unsigned char>(comm, name, n, MPI_BOR, true);
    allreduce_case<int>(comm, name, n, MPI_MIN, false);
  }
}

void bcast_cases(MPI_Comm comm, const char* name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int n : {1, 7, 4099, 30001}) {
    for (int root = 0; root < size; ++root) {
      std::vector<double> want = input<double>(root, n), buf(n, -1.0);
      if (rank == root) buf = want;
      const unsigned long long before = compressed("bcast");
      MPI_Request req;
      MPI_Ibcast(buf.data(), n, MPI_DOUBLE, root, comm, &req);
      int flag = 0;
      while (!flag) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
      CHECK(compressed("bcast") == before + 1, "%s: Ibcast n=%d not compressed", name, n);
      CHECK(buf == want, "%s: Ibcast n=%d root=%d", name, n, root);
    }
  }
  // A non-contiguous type: packed, coded, unpacked.
  MPI_Datatype every_other;
  MPI_Type_vector(5000, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  std::vector<int> want(10000), buf(10000, -7);
  for (int i = 0; i < 10000; ++i) want[i] = i % 2 ? -7 : i * 3;
  if (rank == size - 1) buf = want;
  MPI_Request req;
  MPI_Ibcast(buf.data(), 1, every_other, size - 1, comm, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(buf == want, "%s: Ibcast of a vector type", name);
  MPI_Type_free(&every_other);
}

// MPI_Ireduce is local: it returns before any peer has joined. The root
// (rank 0) starts it and then receives from rank 1, its child in the tree;
// rank 1 first sends synchronously to the root, then starts its Ireduce. A
// root whose start waited for rank 1's frames would never reach the
// receive, and both ranks would hang.
void ireduce_is_local(MPI_Comm comm, const char* name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size < 2) return;
  const int n = 30001;
  std::vector<double> in = input<double>(rank, n), blocking(n), nb(n);
  MPI_Reduce(in.data(), blocking.data(), n, MPI_DOUBLE, MPI_SUM, 0, comm);
  const unsigned long long before = compressed("reduce");
  int token = 0;
  MPI_Request req;
  if (rank == 1) MPI_Ssend(&token, 1, MPI_INT, 0, 11, comm);
  MPI_Ireduce(in.data(), nb.data(), n, MPI_DOUBLE, MPI_SUM, 0, comm, &req);
  if (rank == 0) MPI_Recv(&token, 1, MPI_INT, 1, 11, comm, MPI_STATUS_IGNORE);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(compressed("reduce") == before + 1, "%s: local Ireduce not compressed", name);
  CHECK(rank != 0 || std::memcmp(nb.data(), blocking.data(), n * sizeof(double)) == 0,
        "%s: local Ireduce differs from Reduce", name);
}

// Ireduce at every root and Ireduce_scatter_block against the blocking
// compressed calls (same bits) and the compressed counters.
void reduce_cases(MPI_Comm comm, const char* name) {
  ireduce_is_local(comm, name);
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int n : {1, 7, 4099, 30001}) {
    std::vector<double> in = input<double>(rank, n);
    for (int root = 0; root < size; ++root) {
      for (bool in_place : {false, true}) {
        std::vector<double> blocking(n, -1.0), nb(n, -1.0);
        MPI_Reduce(in.data(), blocking.data(), n, MPI_DOUBLE, MPI_SUM, root, comm);
        const unsigned long long before = compressed("reduce");
        MPI_Request req;
        if (in_place && rank == root) {
          nb = in;
          MPI_Ireduce(MPI_IN_PLACE, nb.data(), n, MPI_DOUBLE, MPI_SUM, root, comm, &req);
        } else {
          MPI_Ireduce(in.data(), nb.data(), n, MPI_DOUBLE, MPI_SUM, root, comm, &req);
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(compressed("reduce") == before + 1, "%s: Ireduce n=%d not compressed", name, n);
        CHECK(rank != root || std::memcmp(nb.data(), blocking.data(), n * sizeof(double)) == 0,
              "%s: Ireduce n=%d root=%d in_place=%d differs from Reduce", name, n, root, in_place);
      }
    }
    for (bool in_place : {false, true}) {
      std::vector<int> all(static_cast<size_t>(n) * size), blocking(n), nb(n);
      for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i * 3 + rank);
      MPI_Reduce_scatter_block(all.data(), blocking.data(), n, MPI_INT, MPI_SUM, comm);
      const unsigned long long before = compressed("reduce_scatter_block");
      MPI_Request req;
      std::vector<int> inplace = all;
      if (in_place)
        MPI_Ireduce_scatter_block(MPI_IN_PLACE, inplace.data(), n, MPI_INT, MPI_SUM, comm, &req);
      else
        MPI_Ireduce_scatter_block(all.data(), nb.data(), n, MPI_INT, MPI_SUM, comm, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      const int* got = in_place ? inplace.data() : nb.data();
      CHECK(compressed("reduce_scatter_block") == before + 1,
            "%s: Ireduce_scatter_block n=%d not compressed", name, n);
      bool ok = true;
      for (int i = 0; i < n; ++i)
        ok = ok && got[i] == blocking[i] &&
             got[i] == size * (3 * (rank * n + i)) + size * (size - 1) / 2;
      CHECK(ok, "%s: Ireduce_scatter_block n=%d in_place=%d", name, n, in_place);
    }
  }
}

}  // namespace nbc_test
