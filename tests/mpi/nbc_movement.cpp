// Compressed nonblocking data-movement collectives (issue 14): MPI_Iallgather,
// Iallgatherv, Igather, Igatherv, Iscatter, Iscatterv, Ialltoall, Ialltoallv,
// compression forced, against PMPI's blocking calls (the same bytes) for
// MPI_BYTE, MPI_INT, MPI_DOUBLE and MPI_FLOAT, in place, count 0 and odd
// counts, uneven v counts (some zero), every root, a derived type, on the
// world and a split communicator; completed by Wait, a Test loop and a
// Testsome loop beside point-to-point requests; several outstanding at once
// completed in reverse order; a mixed Waitall; on MPICH the persistent
// forms (and Reduce_init) started repeatedly with new data. The compressed
// counters prove each call ran compressed, and frames travelled.
//
// Run with ADACOMP_NONBLOCKING=on; --default: without it, every call is
// MPI's (nothing counted) and exact. --quick (oversubscribed MPICH): the
// world communicator and fewer sizes. --corrupt (ADACOMP_FAULT=corrupt-frames):
// the failure reaches the error handler from Wait and Test, never a hang,
// named after the call the user made (MPI_Iallgather, MPI_Allgather_init...).
#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"

namespace {

bool g_default = false;  // --default: nothing may be compressed

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
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

struct Counters {
  unsigned long long calls, bytes;
};
Counters counters(const char* op) {
  const adacomp_op_stats s = op_stats(op);
  return {s.compressed_calls, s.bytes_in};
}

// `op` ran compressed exactly once since `before` on this rank (when
// `expected`), and, over all ranks of `c`, coded frames went out when more
// than one rank exchanged data (`moved`). Collective over c.comm.
void check_compressed(const Ctx& c, const char* op, const Counters& before, bool expected,
                      bool moved, const char* what, int n) {
  const Counters now = counters(op);
  const bool want = expected && !g_default;
  CHECK(now.calls == before.calls + (want ? 1 : 0), "%s: %s n=%d compressed %llu times", c.name,
        what, n, now.calls - before.calls);
  unsigned long long mine = now.bytes - before.bytes, all = 0;
  PMPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, c.comm);
  CHECK((all > 0) == (want && moved && c.size > 1), "%s: %s n=%d coded %llu bytes", c.name, what,
        n, all);
}

// Completes `req` the how-th way: Wait, a Test loop, or a Testsome loop
// beside a point-to-point exchange of this rank with itself.
void complete(const Ctx& c, MPI_Request* req, int how) {
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
int vcount(int n, int a, int b) { return n == 0 || (a + b) % 3 == 2 ? 0 : n + a + b; }
// Whether a v call moves data between two different ranks: some rank other
// than `except` (-1: any) has a block.
bool moves(const std::vector<int>& counts, int except) {
  int with_data = 0;
  for (size_t j = 0; j < counts.size(); ++j)
    with_data += counts[j] > 0 && static_cast<int>(j) != except;
  return except >= 0 ? with_data > 0 : with_data > 0 && counts.size() > 1;
}
std::vector<int> displs_of(const std::vector<int>& counts, int* total) {
  std::vector<int> d(counts.size());
  int at = 0;
  for (size_t j = 0; j < counts.size(); ++j) d[j] = at, at += counts[j] + 1;
  *total = at;
  return d;
}

template <class T>
void allgather_cases(const Ctx& c, MPI_Datatype type, int n, int how) {
  const std::vector<T> in = fill<T>(n, c.rank, how);
  for (bool in_place : {false, true}) {
    std::vector<T> want(static_cast<size_t>(n) * c.size), got(want.size(), T(-1));
    PMPI_Allgather(in.data(), n, type, want.data(), n, type, c.comm);
    const Counters before = counters("allgather");
    MPI_Request req;
    if (in_place) {
      std::copy(in.begin(), in.end(), got.begin() + static_cast<size_t>(n) * c.rank);
      MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, got.data(), n, type, c.comm, &req);
    } else {
      MPI_Iallgather(in.data(), n, type, got.data(), n, type, c.comm, &req);
    }
    complete(c, &req, how + in_place);
    check_compressed(c, "allgather", before, n > 0, n > 0, "Iallgather", n);
    CHECK(same(got, want), "%s: Iallgather n=%d in_place=%d differs from PMPI", c.name, n, in_place);
  }
  // Allgatherv: rank j contributes vcount(n, j, j) elements.
  std::vector<int> counts(c.size);
  for (int j = 0; j < c.size; ++j) counts[j] = vcount(n, j, j);
  int total = 0;
  const std::vector<int> displs = displs_of(counts, &total);
  const std::vector<T> mine = fill<T>(counts[c.rank], c.rank, how);
  for (bool in_place : {false, true}) {
    std::vector<T> want(total, T(-1)), got(total, T(-1));
    PMPI_Allgatherv(mine.data(), counts[c.rank], type, want.data(), counts.data(), displs.data(),
                    type, c.comm);
    const Counters before = counters("allgatherv");
    MPI_Request req;
    if (in_place) {
      std::copy(mine.begin(), mine.end(), got.begin() + displs[c.rank]);
      MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, got.data(), counts.data(),
                      displs.data(), type, c.comm, &req);
    } else {
      MPI_Iallgatherv(mine.data(), counts[c.rank], type, got.data(), counts.data(),
                      displs.data(), type, c.comm, &req);
    }
    complete(c, &req, how + 1 + in_place);
    check_compressed(c, "allgatherv", before, true, moves(counts, -1), "Iallgatherv", n);
    CHECK(same(got, want), "%s: Iallgatherv n=%d in_place=%d differs from PMPI", c.name, n,
          in_place);
  }
}

// Igather(v) and Iscatter(v) at every root, in place at the root.
template <class T>
void rooted_cases(const Ctx& c, MPI_Datatype type, int n, int how) {
  std::vector<int> counts(c.size);
  for (int j = 0; j < c.size; ++j) counts[j] = vcount(n, j, j);
  int total = 0;
  const std::vector<int> displs = displs_of(counts, &total);
  const size_t all = static_cast<size_t>(n) * c.size;
  for (int root = 0; root < c.size; ++root) {
    const bool is_root = c.rank == root;
    for (bool in_place : {false, true}) {
      const bool ip = in_place && is_root;
      // Gather.
      const std::vector<T> in = fill<T>(n, c.rank, root);
      std::vector<T> want(all, T(-1)), got(all, T(-1));
      PMPI_Gather(in.data(), n, type, want.data(), n, type, root, c.comm);
      if (ip) std::copy(in.begin(), in.end(), got.begin() + static_cast<size_t>(n) * root);
      Counters before = counters("gather");
      MPI_Request req;
      MPI_Igather(ip ? MPI_IN_PLACE : in.data(), n, type, got.data(), n, type, root, c.comm, &req);
      complete(c, &req, how + root);
      check_compressed(c, "gather", before, n > 0, n > 0, "Igather", n);
      CHECK(!is_root || same(got, want), "%s: Igather n=%d root=%d differs", c.name, n, root);
      // Gatherv.
      const std::vector<T> vin = fill<T>(counts[c.rank], c.rank, root);
      std::vector<T> vwant(total, T(-1)), vgot(total, T(-1));
      PMPI_Gatherv(vin.data(), counts[c.rank], type, vwant.data(), counts.data(), displs.data(),
                   type, root, c.comm);
      if (ip) std::copy(vin.begin(), vin.end(), vgot.begin() + displs[root]);
      before = counters("gatherv");
      MPI_Igatherv(ip ? MPI_IN_PLACE : vin.data(), counts[c.rank], type, vgot.data(),
                   counts.data(), displs.data(), type, root, c.comm, &req);
      complete(c, &req, how + root + 1);
      check_compressed(c, "gatherv", before, true, moves(counts, root), "Igatherv", n);
      CHECK(!is_root || same(vgot, vwant), "%s: Igatherv n=%d root=%d differs", c.name, n, root);
      // Scatter: the root's own block stays in its send buffer in place.
      const std::vector<T> src = fill<T>(all, root, 3);
      std::vector<T> swant(n, T(-1)), sgot(n, T(-1));
      PMPI_Scatter(src.data(), n, type, swant.data(), n, type, root, c.comm);
      before = counters("scatter");
      MPI_Iscatter(src.data(), n, type, ip ? MPI_IN_PLACE : sgot.data(), n, type, root, c.comm,
                   &req);
      complete(c, &req, how + root + 2);
      check_compressed(c, "scatter", before, n > 0, n > 0, "Iscatter", n);
      CHECK(ip || same(sgot, swant), "%s: Iscatter n=%d root=%d differs", c.name, n, root);
      // Scatterv.
      const std::vector<T> vsrc = fill<T>(total, root, 4);
      std::vector<T> svwant(counts[c.rank], T(-1)), svgot(counts[c.rank], T(-1));
      PMPI_Scatterv(vsrc.data(), counts.data(), displs.data(), type, svwant.data(),
                    counts[c.rank], type, root, c.comm);
      before = counters("scatterv");
      MPI_Iscatterv(vsrc.data(), counts.data(), displs.data(), type,
                    ip ? MPI_IN_PLACE : svgot.data(), counts[c.rank], type, root, c.comm, &req);
      complete(c, &req, how + root);
      check_compressed(c, "scatterv", before, true, moves(counts, root), "Iscatterv", n);
      CHECK(ip || same(svgot, svwant), "%s: Iscatterv n=%d root=%d differs", c.name, n, root);
    }
  }
}

template <class T>
void alltoall_cases(const Ctx& c, MPI_Datatype type, int n, int how) {
  const size_t all = static_cast<size_t>(n) * c.size;
  const std::vector<T> in = fill<T>(all, c.rank, how);
  std::vector<int> counts(c.size);
  for (int j = 0; j < c.size; ++j) counts[j] = vcount(n, c.rank, j);
  int total = 0;
  const std::vector<int> displs = displs_of(counts, &total);
  const std::vector<T> vin = fill<T>(total, c.rank, how + 1);
  for (bool in_place : {false, true}) {
    std::vector<T> want(all, T(-1)), got(all, T(-1));
    PMPI_Alltoall(in.data(), n, type, want.data(), n, type, c.comm);
    if (in_place) got = in;
    Counters before = counters("alltoall");
    MPI_Request req;
    MPI_Ialltoall(in_place ? MPI_IN_PLACE : in.data(), n, type, got.data(), n, type, c.comm, &req);
    complete(c, &req, how + in_place);
    check_compressed(c, "alltoall", before, n > 0, n > 0, "Ialltoall", n);
    CHECK(same(got, want), "%s: Ialltoall n=%d in_place=%d differs", c.name, n, in_place);

    std::vector<T> vwant(total, T(-1)), vgot(total, T(-1));
    PMPI_Alltoallv(vin.data(), counts.data(), displs.data(), type, vwant.data(), counts.data(),
                   displs.data(), type, c.comm);
    if (in_place) vgot = vin;
    before = counters("alltoallv");
    MPI_Ialltoallv(in_place ? MPI_IN_PLACE : vin.data(), counts.data(), displs.data(), type,
                   vgot.data(), counts.data(), displs.data(), type, c.comm, &req);
    complete(c, &req, how + 2 + in_place);
    bool cross = false;  // some pair of different ranks exchanges data
    for (int a = 0; a < c.size; ++a)
      for (int b = 0; b < c.size; ++b) cross = cross || (a != b && vcount(n, a, b) > 0);
    check_compressed(c, "alltoallv", before, true, cross, "Ialltoallv", n);
    // In place the gaps keep the input's bytes.
    if (in_place)
      for (int j = 0; j < c.size; ++j) vwant[displs[j] + counts[j]] = vin[displs[j] + counts[j]];
    CHECK(same(vgot, vwant), "%s: Ialltoallv n=%d in_place=%d differs", c.name, n, in_place);
  }
}

// A derived (strided) type: packed, coded, unpacked like the blocking call.
void derived_case(const Ctx& c) {
  const int n = 5001;
  MPI_Datatype every_other;
  MPI_Type_vector(n, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  MPI_Aint lb, extent;
  MPI_Type_get_extent(every_other, &lb, &extent);
  const size_t ints = extent / sizeof(int);
  std::vector<int> in = fill<int>(ints, c.rank, 9), want(ints * c.size, -5), got(want);
  PMPI_Allgather(in.data(), 1, every_other, want.data(), 1, every_other, c.comm);
  const Counters before = counters("allgather");
  MPI_Request req;
  MPI_Iallgather(in.data(), 1, every_other, got.data(), 1, every_other, c.comm, &req);
  complete(c, &req, 0);
  check_compressed(c, "allgather", before, true, true, "Iallgather (vector type)", n);
  CHECK(same(got, want), "%s: Iallgather of a vector type differs", c.name);
  MPI_Type_free(&every_other);
}

// Several calls outstanding at once, completed in reverse order; then a
// Waitall mixing them with point-to-point requests.
void outstanding(const Ctx& c) {
  const int n = 3001;
  const size_t all = static_cast<size_t>(n) * c.size;
  const std::vector<double> a = fill<double>(n, c.rank, 1), b = fill<double>(all, c.rank, 2);
  std::vector<double> ag(all), ag_want(all), at(all), at_want(all), ga(all), ga_want(all);
  std::vector<double> sc(n), sc_want(n);
  PMPI_Allgather(a.data(), n, MPI_DOUBLE, ag_want.data(), n, MPI_DOUBLE, c.comm);
  PMPI_Alltoall(b.data(), n, MPI_DOUBLE, at_want.data(), n, MPI_DOUBLE, c.comm);
  PMPI_Gather(a.data(), n, MPI_DOUBLE, ga_want.data(), n, MPI_DOUBLE, c.size - 1, c.comm);
  PMPI_Scatter(b.data(), n, MPI_DOUBLE, sc_want.data(), n, MPI_DOUBLE, 0, c.comm);
  for (int round = 0; round < 2; ++round) {
    std::fill(ag.begin(), ag.end(), -1.0);
    std::fill(at.begin(), at.end(), -1.0);
    std::fill(sc.begin(), sc.end(), -1.0);
    MPI_Request r[6];
    int token_out = c.rank + 100, token_in = -1;
    MPI_Iallgather(a.data(), n, MPI_DOUBLE, ag.data(), n, MPI_DOUBLE, c.comm, &r[0]);
    MPI_Ialltoall(b.data(), n, MPI_DOUBLE, at.data(), n, MPI_DOUBLE, c.comm, &r[1]);
    MPI_Igather(a.data(), n, MPI_DOUBLE, ga.data(), n, MPI_DOUBLE, c.size - 1, c.comm, &r[2]);
    MPI_Iscatter(b.data(), n, MPI_DOUBLE, sc.data(), n, MPI_DOUBLE, 0, c.comm, &r[3]);
    if (round == 0) {
      for (int i = 3; i >= 0; --i) MPI_Wait(&r[i], MPI_STATUS_IGNORE);
    } else {
      const int right = (c.rank + 1) % c.size, left = (c.rank - 1 + c.size) % c.size;
      MPI_Irecv(&token_in, 1, MPI_INT, left, 5, c.comm, &r[4]);
      MPI_Isend(&token_out, 1, MPI_INT, right, 5, c.comm, &r[5]);
      std::swap(r[0], r[4]);  // collectives and point-to-point interleaved
      MPI_Waitall(6, r, MPI_STATUSES_IGNORE);
      CHECK(token_in == (c.rank - 1 + c.size) % c.size + 100, "%s: mixed Waitall token %d",
            c.name, token_in);
    }
    CHECK(same(ag, ag_want), "%s: outstanding Iallgather round %d", c.name, round);
    CHECK(same(at, at_want), "%s: outstanding Ialltoall round %d", c.name, round);
    CHECK(c.rank != c.size - 1 || same(ga, ga_want), "%s: outstanding Igather round %d", c.name,
          round);
    CHECK(same(sc, sc_want), "%s: outstanding Iscatter round %d", c.name, round);
  }
}

#if MPI_VERSION >= 4
// The MPI-4 large-count forms (with small counts) run the same engine.
void large_count_forms(const Ctx& c) {
  const int n = 1001;
  const size_t all = static_cast<size_t>(n) * c.size;
  const std::vector<double> in = fill<double>(all, c.rank, 5);
  std::vector<double> want(all), got(all, -1.0), vwant(all), vgot(all, -1.0);
  PMPI_Alltoall(in.data(), n, MPI_DOUBLE, want.data(), n, MPI_DOUBLE, c.comm);
  Counters before = counters("alltoall");
  MPI_Request req;
  MPI_Ialltoall_c(in.data(), n, MPI_DOUBLE, got.data(), n, MPI_DOUBLE, c.comm, &req);
  complete(c, &req, 1);
  check_compressed(c, "alltoall", before, true, true, "Ialltoall_c", n);
  CHECK(same(got, want), "%s: Ialltoall_c differs", c.name);
  std::vector<int> counts(c.size, n), displs(c.size);
  std::vector<MPI_Count> counts_c(c.size, n);
  std::vector<MPI_Aint> displs_c(c.size);
  for (int j = 0; j < c.size; ++j) displs[j] = j * n, displs_c[j] = static_cast<MPI_Aint>(j) * n;
  PMPI_Allgatherv(in.data(), n, MPI_DOUBLE, vwant.data(), counts.data(), displs.data(),
                  MPI_DOUBLE, c.comm);
  before = counters("allgatherv");
  MPI_Iallgatherv_c(in.data(), n, MPI_DOUBLE, vgot.data(), counts_c.data(), displs_c.data(),
                    MPI_DOUBLE, c.comm, &req);
  complete(c, &req, 2);
  check_compressed(c, "allgatherv", before, true, true, "Iallgatherv_c", n);
  CHECK(same(vgot, vwant), "%s: Iallgatherv_c differs", c.name);
}

// Persistent forms started four times with new data, by MPI_Start and
// MPI_Startall, completed by Waitall, reversed Waits and a Testsome loop;
// every start compressed (but a node-aware Reduce) and equal to PMPI.
void persistent_cases(const Ctx& c) {
  const bool staged_reduce = node_aware(c.comm);
  const int n = 2001, root = c.size - 1;
  const size_t all = static_cast<size_t>(n) * c.size;
  std::vector<int> counts(c.size);
  for (int j = 0; j < c.size; ++j) counts[j] = vcount(n, j, j);
  int total = 0;
  const std::vector<int> displs = displs_of(counts, &total);
  std::vector<int> in(n), many(all), vin(counts[c.rank]), vmany(total);
  std::vector<int> ag(all), at(all), red(n), ga(all), sc(n), agv(total), gav(total), scv(counts[c.rank]);
  const char* ops[] = {"allgather", "alltoall", "reduce", "gather", "scatter",
                       "allgatherv", "gatherv", "scatterv"};
  const int k = 8;
  MPI_Request r[k];
  MPI_Allgather_init(in.data(), n, MPI_INT, ag.data(), n, MPI_INT, c.comm, MPI_INFO_NULL, &r[0]);
  MPI_Alltoall_init(many.data(), n, MPI_INT, at.data(), n, MPI_INT, c.comm, MPI_INFO_NULL, &r[1]);
  MPI_Reduce_init(in.data(), red.data(), n, MPI_INT, MPI_SUM, root, c.comm, MPI_INFO_NULL, &r[2]);
  MPI_Gather_init(in.data(), n, MPI_INT, ga.data(), n, MPI_INT, root, c.comm, MPI_INFO_NULL, &r[3]);
  MPI_Scatter_init(many.data(), n, MPI_INT, sc.data(), n, MPI_INT, 0, c.comm, MPI_INFO_NULL,
                   &r[4]);
  MPI_Allgatherv_init(vin.data(), counts[c.rank], MPI_INT, agv.data(), counts.data(),
                      displs.data(), MPI_INT, c.comm, MPI_INFO_NULL, &r[5]);
  MPI_Gatherv_init(vin.data(), counts[c.rank], MPI_INT, gav.data(), counts.data(), displs.data(),
                   MPI_INT, 0, c.comm, MPI_INFO_NULL, &r[6]);
  MPI_Scatterv_init(vmany.data(), counts.data(), displs.data(), MPI_INT, scv.data(),
                    counts[c.rank], MPI_INT, root, c.comm, MPI_INFO_NULL, &r[7]);
  for (int start = 0; start < 4; ++start) {
    // New data in the same storage (the requests hold its address).
    refill(in, c.rank, start);
    refill(many, c.rank, 10 + start);
    refill(vin, c.rank, 20 + start);
    refill(vmany, c.rank, 30 + start);
    std::vector<int> ag_w(all), at_w(all), red_w(n), ga_w(all), sc_w(n), agv_w(total, 0),
        gav_w(total, 0), scv_w(counts[c.rank]);
    std::fill(agv.begin(), agv.end(), 0);
    std::fill(gav.begin(), gav.end(), 0);
    PMPI_Allgather(in.data(), n, MPI_INT, ag_w.data(), n, MPI_INT, c.comm);
    PMPI_Alltoall(many.data(), n, MPI_INT, at_w.data(), n, MPI_INT, c.comm);
    PMPI_Reduce(in.data(), red_w.data(), n, MPI_INT, MPI_SUM, root, c.comm);
    PMPI_Gather(in.data(), n, MPI_INT, ga_w.data(), n, MPI_INT, root, c.comm);
    PMPI_Scatter(many.data(), n, MPI_INT, sc_w.data(), n, MPI_INT, 0, c.comm);
    PMPI_Allgatherv(vin.data(), counts[c.rank], MPI_INT, agv_w.data(), counts.data(),
                    displs.data(), MPI_INT, c.comm);
    PMPI_Gatherv(vin.data(), counts[c.rank], MPI_INT, gav_w.data(), counts.data(), displs.data(),
                 MPI_INT, 0, c.comm);
    PMPI_Scatterv(vmany.data(), counts.data(), displs.data(), MPI_INT, scv_w.data(),
                  counts[c.rank], MPI_INT, root, c.comm);
    unsigned long long before[k];
    for (int i = 0; i < k; ++i) before[i] = counters(ops[i]).calls;
    if (start % 2) MPI_Startall(k, r);
    else for (int i = 0; i < k; ++i) MPI_Start(&r[i]);
    if (start % 3 == 0) {
      MPI_Waitall(k, r, MPI_STATUSES_IGNORE);
    } else if (start % 3 == 1 || staged_reduce) {
      // (MPICH 4.0's MPI_Testsome reports its own persistent collectives,
      // as the node-aware Reduce is, more than once.)
      for (int i = k - 1; i >= 0; --i) MPI_Wait(&r[i], MPI_STATUS_IGNORE);
    } else {
      for (int done = 0; done < k;) {
        int outcount = 0, idx[k];
        MPI_Testsome(k, r, &outcount, idx, MPI_STATUSES_IGNORE);
        if (outcount != MPI_UNDEFINED) done += outcount;
      }
    }
    for (int i = 0; i < k; ++i)
      CHECK(r[i] != MPI_REQUEST_NULL &&
                counters(ops[i]).calls ==
                    before[i] + (staged_reduce && std::strcmp(ops[i], "reduce") == 0 ? 0 : 1),
            "%s: persistent %s start %d not compressed", c.name, ops[i], start);
    CHECK(same(ag, ag_w), "%s: Allgather_init start %d", c.name, start);
    CHECK(same(at, at_w), "%s: Alltoall_init start %d", c.name, start);
    CHECK(c.rank != root || same(red, red_w), "%s: Reduce_init start %d", c.name, start);
    CHECK(c.rank != root || same(ga, ga_w), "%s: Gather_init start %d", c.name, start);
    CHECK(same(sc, sc_w), "%s: Scatter_init start %d", c.name, start);
    CHECK(same(agv, agv_w), "%s: Allgatherv_init start %d", c.name, start);
    CHECK(c.rank != 0 || same(gav, gav_w), "%s: Gatherv_init start %d", c.name, start);
    CHECK(same(scv, scv_w), "%s: Scatterv_init start %d", c.name, start);
  }
  for (int i = 0; i < k; ++i) MPI_Request_free(&r[i]);
}
#endif

void run(MPI_Comm comm, const char* name, bool quick) {
  Ctx c{comm, name, 0, 0};
  MPI_Comm_rank(comm, &c.rank);
  MPI_Comm_size(comm, &c.size);
  // The communicator's first compressed collective is a blocking one: it
  // creates the library's state (plan_nonblocking in src/coll/plan.h).
  int one = 1, total = 0;
  MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, comm);
  const std::vector<int> sizes = quick ? std::vector<int>{0, 7, 3001}
                                       : std::vector<int>{0, 1, 7, 1001, 20001};
  int how = 0;
  for (int n : sizes) {
    allgather_cases<unsigned char>(c, MPI_BYTE, n, how++);
    allgather_cases<double>(c, MPI_DOUBLE, n, how++);
    rooted_cases<int>(c, MPI_INT, n, how++);
    rooted_cases<float>(c, MPI_FLOAT, n, how++);
    alltoall_cases<float>(c, MPI_FLOAT, n, how++);
    alltoall_cases<unsigned char>(c, MPI_BYTE, n, how++);
    if (!quick) {
      allgather_cases<int>(c, MPI_INT, n, how++);
      rooted_cases<double>(c, MPI_DOUBLE, n, how++);
      alltoall_cases<int>(c, MPI_INT, n, how++);
    }
  }
  derived_case(c);
  outstanding(c);
#if MPI_VERSION >= 4
  large_count_forms(c);
  if (!g_default) persistent_cases(c);
#endif
}

// Corrupt frames: every receiver's request reports the AdaComp error through
// the communicator's handler, from Wait and from Test, in a message that
// names the call the user made; nothing hangs.
void corrupt() {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comm = error_counting_comm();
  const int n = 20000;
  std::vector<double> in(n * size, 1.0 + rank), out(n * size);
  MPI_Allgather(in.data(), n, MPI_DOUBLE, out.data(), n, MPI_DOUBLE, comm);  // creates the state
  g_errors_seen = 0;
  MPI_Request req;
  MPI_Iallgather(in.data(), n, MPI_DOUBLE, out.data(), n, MPI_DOUBLE, comm, &req);
  CHECK(g_errors_seen == 0, "error reported before Wait");
  check_failed_completion(&req, size > 1, "Iallgather");
  if (size > 1) CHECK(g_errors_seen == 1, "error handler called %d times from Wait", g_errors_seen);
  MPI_Ialltoall(in.data(), n, MPI_DOUBLE, out.data(), n, MPI_DOUBLE, comm, &req);
  check_failed_completion(&req, size > 1, "Ialltoall", Completion::test_loop);
  MPI_Iscatter(in.data(), n, MPI_DOUBLE, out.data(), n, MPI_DOUBLE, 0, comm, &req);
  check_failed_completion(&req, size > 1 && rank != 0, "Iscatter");
#if MPI_VERSION >= 4
  MPI_Allgather_init(in.data(), n, MPI_DOUBLE, out.data(), n, MPI_DOUBLE, comm, MPI_INFO_NULL,
                     &req);
  MPI_Start(&req);
  check_failed_completion(&req, size > 1, "Allgather_init");
  MPI_Request_free(&req);
#endif
  free_usable(&comm);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* mode = argc > 1 ? argv[1] : "";
  if (std::strcmp(mode, "--corrupt") == 0) {
    corrupt();
    return finish_test("nbc_movement --corrupt");
  }
  g_default = std::strcmp(mode, "--default") == 0;
  const bool quick = std::strcmp(mode, "--quick") == 0;
  run(MPI_COMM_WORLD, "world", quick || g_default);
  if (!quick && !g_default) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    run(half, "split", false);
    MPI_Comm_free(&half);
  }
  return finish_test(g_default ? "nbc_movement --default" : "nbc_movement");
}
