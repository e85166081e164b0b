// Shared by the two files of test_nbc_movement: nbc_movement.cpp (the
// nonblocking forms, the driver) and nbc_movement_mpi4.cpp (the MPI-4
// large-count and persistent forms).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "check.h"

namespace nbc_movement {

extern bool g_default;  // --default: nothing may be compressed

struct Ctx {
  MPI_Comm comm;
  const char* name;
  int rank, size;
};

template <class T>
std::vector<T> fill(size_t n, int rank, int salt) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = static_cast<T>((i % 97) * 0.37 + rank * 1.25 + salt + (i % 5 == 0 ? 100 : 0));
  return v;
}

template <class T>
void refill(std::vector<T>& v, int rank, int salt) {
  const std::vector<T> data = fill<T>(v.size(), rank, salt);
  std::copy(data.begin(), data.end(), v.begin());
}

template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

struct Counters {
  unsigned long long calls, bytes;
};
inline Counters counters(const char* op) {
  const adacomp_op_stats s = op_stats(op);
  return {s.compressed_calls, s.bytes_in};
}

// `op` ran compressed exactly once since `before` on this rank (when
// `expected`), and, over all ranks of `c`, coded frames went out when more
// than one rank exchanged data (`moved`). Collective over c.comm.
inline void check_compressed(const Ctx& c, const char* op, const Counters& before, bool expected,
                             bool moved, const char* what, int n) {
  const Counters now = counters(op);
  const bool want = expected && !g_default;
  CHECK(now.calls == before.calls + (want ? 1 : 0), "%s: %s n=%d compressed %llu times", c.name,
        what, n, now.calls - before.calls);
  unsigned long long mine = now.bytes - before.bytes, all = 0;
  PMPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, c.comm);
  CHECK((all > 0) == (want && moved && c.size > 1), "%s: %s n=%d coded %llu bytes", c.name, what, n,
        all);
}

// Completes `req` the how-th way: Wait, a Test loop, or a Testsome loop
// beside a point-to-point exchange of this rank with itself.
inline void complete(const Ctx& c, MPI_Request* req, int how) {
  if (how % 3 == 0) {
    MPI_Wait(req, MPI_STATUS_IGNORE);
  } else if (how % 3 == 1) {
    int flag = 0;
    while (!flag) MPI_Test(req, &flag, MPI_STATUS_IGNORE);
  } else {
    int out_token = 42 + how, in_token = 0;
    MPI_Request r[3] = {MPI_REQUEST_NULL, *req, MPI_REQUEST_NULL};
    MPI_Irecv(&in_token, 1, MPI_INT, c.rank, 77, c.comm, &r[0]);
    MPI_Isend(&out_token, 1, MPI_INT, c.rank, 77, c.comm, &r[2]);
    for (int left = 3; left > 0;) {
      int outcount = 0, idx[3];
      MPI_Testsome(3, r, &outcount, idx, MPI_STATUSES_IGNORE);
      if (outcount != MPI_UNDEFINED) left -= outcount;
    }
    CHECK(in_token == out_token, "%s: Testsome point-to-point token %d", c.name, in_token);
    *req = r[1];
  }
  CHECK(*req == MPI_REQUEST_NULL, "%s: request not freed by completion %d", c.name, how % 3);
}

// Uneven v counts, symmetric (f(a, b) == f(b, a), as an in-place Alltoallv
// needs), zero for some pairs and all zero for n 0; blocks placed with a
// one-element gap.
inline int vcount(int n, int a, int b) { return n == 0 || (a + b) % 3 == 2 ? 0 : n + a + b; }
// Whether a v call moves data between two different ranks: some rank other
// than `except` (-1: any) has a block.
inline bool moves(const std::vector<int>& counts, int except) {
  int with_data = 0;
  for (size_t j = 0; j < counts.size(); ++j)
    with_data += counts[j] > 0 && static_cast<int>(j) != except;
  return except >= 0 ? with_data > 0 : with_data > 0 && counts.size() > 1;
}
inline std::vector<int> displs_of(const std::vector<int>& counts, int* total) {
  std::vector<int> d(counts.size());
  int at = 0;
  for (size_t j = 0; j < counts.size(); ++j) d[j] = at, at += counts[j] + 1;
  *total = at;
  return d;
}

#if MPI_VERSION >= 4
void large_count_forms(const Ctx& c);
void persistent_cases(const Ctx& c);
#endif

}  // namespace nbc_movement
