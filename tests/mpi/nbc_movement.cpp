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
#include <string>

#include "nbc_movement.h"

namespace nbc_movement {

bool g_default = false;

namespace {

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
    CHECK(same(got, want), "%s: Iallgather n=%d in_place=%d differs from PMPI", c.name, n,
          in_place);
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
      MPI_Iallgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, got.data(), counts.data(), displs.data(),
                      type, c.comm, &req);
    } else {
      MPI_Iallgatherv(mine.data(), counts[c.rank], type, got.data(), counts.data(), displs.data(),
                      type, c.comm, &req);
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
      MPI_Igatherv(ip ? MPI_IN_PLACE : vin.data(), counts[c.rank], type, vgot.data(), counts.data(),
                   displs.data(), type, root, c.comm, &req);
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
      PMPI_Scatterv(vsrc.data(), counts.data(), displs.data(), type, svwant.data(), counts[c.rank],
                    type, root, c.comm);
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
      CHECK(token_in == (c.rank - 1 + c.size) % c.size + 100, "%s: mixed Waitall token %d", c.name,
            token_in);
    }
    CHECK(same(ag, ag_want), "%s: outstanding Iallgather round %d", c.name, round);
    CHECK(same(at, at_want), "%s: outstanding Ialltoall round %d", c.name, round);
    CHECK(c.rank != c.size - 1 || same(ga, ga_want), "%s: outstanding Igather round %d", c.name,
          round);
    CHECK(same(sc, sc_want), "%s: outstanding Iscatter round %d", c.name, round);
  }
}

void run(MPI_Comm comm, const char* name, bool quick) {
  Ctx c{comm, name, 0, 0};
  MPI_Comm_rank(comm, &c.rank);
  MPI_Comm_size(comm, &c.size);
  // The communicator's first compressed collective is a blocking one: it
  // creates the library's state (plan_call in src/coll/plan.h).
  int one = 1, total = 0;
  MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, comm);
  const std::vector<int> sizes =
      quick ? std::vector<int>{0, 7, 3001} : std::vector<int>{0, 1, 7, 1001, 20001};
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
}  // namespace nbc_movement

int main(int argc, char** argv) {
  using namespace nbc_movement;
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
