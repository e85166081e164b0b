// The MPI-4 forms of the compressed nonblocking data-movement collectives
// (tests/mpi/nbc_movement.cpp runs them): large-count calls and persistent
// requests.
#include "nbc_movement.h"

namespace nbc_movement {

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
  PMPI_Allgatherv(in.data(), n, MPI_DOUBLE, vwant.data(), counts.data(), displs.data(), MPI_DOUBLE,
                  c.comm);
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
  std::vector<int> ag(all), at(all), red(n), ga(all), sc(n), agv(total), gav(total),
      scv(counts[c.rank]);
  const char* ops[] = {"allgather", "alltoall",   "reduce",  "gather",
                       "scatter",   "allgatherv", "gatherv", "scatterv"};
  const int k = 8;
  MPI_Request r[k];
  MPI_Allgather_init(in.data(), n, MPI_INT, ag.data(), n, MPI_INT, c.comm, MPI_INFO_NULL, &r[0]);
  MPI_Alltoall_init(many.data(), n, MPI_INT, at.data(), n, MPI_INT, c.comm, MPI_INFO_NULL, &r[1]);
  MPI_Reduce_init(in.data(), red.data(), n, MPI_INT, MPI_SUM, root, c.comm, MPI_INFO_NULL, &r[2]);
  MPI_Gather_init(in.data(), n, MPI_INT, ga.data(), n, MPI_INT, root, c.comm, MPI_INFO_NULL, &r[3]);
  MPI_Scatter_init(many.data(), n, MPI_INT, sc.data(), n, MPI_INT, 0, c.comm, MPI_INFO_NULL, &r[4]);
  MPI_Allgatherv_init(vin.data(), counts[c.rank], MPI_INT, agv.data(), counts.data(), displs.data(),
                      MPI_INT, c.comm, MPI_INFO_NULL, &r[5]);
  MPI_Gatherv_init(vin.data(), counts[c.rank], MPI_INT, gav.data(), counts.data(), displs.data(),
                   MPI_INT, 0, c.comm, MPI_INFO_NULL, &r[6]);
  MPI_Scatterv_init(vmany.data(), counts.data(), displs.data(), MPI_INT, scv.data(), counts[c.rank],
                    MPI_INT, root, c.comm, MPI_INFO_NULL, &r[7]);
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
    PMPI_Allgatherv(vin.data(), counts[c.rank], MPI_INT, agv_w.data(), counts.data(), displs.data(),
                    MPI_INT, c.comm);
    PMPI_Gatherv(vin.data(), counts[c.rank], MPI_INT, gav_w.data(), counts.data(), displs.data(),
                 MPI_INT, 0, c.comm);
    PMPI_Scatterv(vmany.data(), counts.data(), displs.data(), MPI_INT, scv_w.data(), counts[c.rank],
                  MPI_INT, root, c.comm);
    unsigned long long before[k];
    for (int i = 0; i < k; ++i) before[i] = counters(ops[i]).calls;
    if (start % 2)
      MPI_Startall(k, r);
    else
      for (int i = 0; i < k; ++i) MPI_Start(&r[i]);
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

}  // namespace nbc_movement
