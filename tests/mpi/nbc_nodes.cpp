// Node-aware nonblocking collectives (issue 24): on a layout with several
// ranks on some node (ADACOMP_NODE_MAP), MPI_Iallreduce, MPI_Ibcast,
// MPI_Ireduce and MPI_Ireduce_scatter_block run the blocking calls'
// node-aware schedule, node stages included, and compress: the compressed
// counter goes up by one per call and the result is the blocking call's, bit
// for bit (and PMPI's for integers), in place, at odd counts and every root.
// Several calls outstanding on one communicator, completed in reverse
// order, start their node stages in call order on every rank (else MPI
// would mismatch them). A communicator whose node groups are not made yet
// passes its first nonblocking call through; MPI_COMM_WORLD's are made at
// MPI_Init, so its very first collective, nonblocking, is compressed.
//
// Run with ADACOMP_NONBLOCKING=on, ADACOMP_NODE_MAP and compression forced;
// --lossy BOUND in lossy mode (the Allreduce reduces on codes in both
// layouts): the same comparisons.
#include <mpi.h>

#include <cstring>
#include <type_traits>
#include <vector>

#include "check.h"

namespace {

template <class T>
std::vector<T> input(int rank, int n) {
  std::vector<T> v(n);
  for (int i = 0; i < n; ++i)
    v[i] = static_cast<T>((i % 89) * 0.31 + rank * 1.75 + (i % 7 == 0 ? 50 : 0));
  return v;
}

unsigned long long compressed(const char* op) { return op_stats(op).compressed_calls; }

template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <class T>
void allreduce_case(MPI_Comm comm, int n, MPI_Op op, bool in_place) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  const MPI_Datatype type = mpi_type<T>();
  std::vector<T> in = input<T>(rank, n), blocking(n), nb(n);
  MPI_Allreduce(in.data(), blocking.data(), n, type, op, comm);
  const unsigned long long before = compressed("allreduce");
  MPI_Request req;
  if (in_place) nb = in;
  MPI_Iallreduce(in_place ? MPI_IN_PLACE : in.data(), nb.data(), n, type, op, comm, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(compressed("allreduce") == before + 1, "Iallreduce n=%d in_place=%d not compressed", n,
        in_place);
  CHECK(same(nb, blocking), "Iallreduce n=%d in_place=%d differs from Allreduce", n, in_place);
  if (std::is_integral<T>::value) {
    std::vector<T> plain(n);
    PMPI_Allreduce(in.data(), plain.data(), n, type, op, comm);
    CHECK(same(nb, plain), "Iallreduce n=%d differs from PMPI", n);
  }
}

template <class T>
void bcast_case(MPI_Comm comm, int n, int root) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  const MPI_Datatype type = mpi_type<T>();
  const std::vector<T> data = input<T>(root + 3, n);
  std::vector<T> blocking = rank == root ? data : std::vector<T>(n);
  std::vector<T> nb = rank == root ? data : std::vector<T>(n);
  MPI_Bcast(blocking.data(), n, type, root, comm);
  const unsigned long long before = compressed("bcast");
  MPI_Request req;
  MPI_Ibcast(nb.data(), n, type, root, comm, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(compressed("bcast") == before + 1, "Ibcast n=%d root=%d not compressed", n, root);
  CHECK(same(nb, blocking), "Ibcast n=%d root=%d differs from Bcast", n, root);
}

template <class T>
void reduce_case(MPI_Comm comm, int n, int root, bool in_place) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  const MPI_Datatype type = mpi_type<T>();
  std::vector<T> in = input<T>(rank, n), blocking(n), nb(n);
  MPI_Reduce(in.data(), blocking.data(), n, type, MPI_SUM, root, comm);
  const unsigned long long before = compressed("reduce");
  const bool place = in_place && rank == root;
  if (place) nb = in;
  MPI_Request req;
  MPI_Ireduce(place ? MPI_IN_PLACE : in.data(), nb.data(), n, type, MPI_SUM, root, comm, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(compressed("reduce") == before + 1, "Ireduce n=%d root=%d not compressed", n, root);
  CHECK(rank != root || same(nb, blocking), "Ireduce n=%d root=%d in_place=%d differs", n, root,
        in_place);
}

template <class T>
void reduce_scatter_case(MPI_Comm comm, int block) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const MPI_Datatype type = mpi_type<T>();
  std::vector<T> in = input<T>(rank, block * size), blocking(block), nb(block);
  MPI_Reduce_scatter_block(in.data(), blocking.data(), block, type, MPI_SUM, comm);
  const unsigned long long before = compressed("reduce_scatter_block");
  MPI_Request req;
  MPI_Ireduce_scatter_block(in.data(), nb.data(), block, type, MPI_SUM, comm, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(compressed("reduce_scatter_block") == before + 1, "Ireduce_scatter_block %d", block);
  CHECK(same(nb, blocking), "Ireduce_scatter_block block=%d differs", block);
}

// Allreduce, Bcast, Allreduce outstanding at once, completed in reverse
// order: their node stages start in call order on every rank.
void outstanding(MPI_Comm comm, int n) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  std::vector<double> a = input<double>(rank, n), b(n), c = input<double>(rank + 9, n);
  std::vector<double> ra(n), rc(n), bb(n);
  if (rank == 0) b = input<double>(42, n), bb = b;
  std::vector<double> ea(n), ec(n);
  MPI_Allreduce(a.data(), ea.data(), n, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(c.data(), ec.data(), n, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Bcast(bb.data(), n, MPI_DOUBLE, 0, comm);
  const unsigned long long before = compressed("allreduce");
  MPI_Request reqs[3];
  MPI_Iallreduce(a.data(), ra.data(), n, MPI_DOUBLE, MPI_SUM, comm, &reqs[0]);
  MPI_Ibcast(b.data(), n, MPI_DOUBLE, 0, comm, &reqs[1]);
  MPI_Iallreduce(c.data(), rc.data(), n, MPI_DOUBLE, MPI_MAX, comm, &reqs[2]);
  for (int i = 2; i >= 0; --i) MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
  CHECK(compressed("allreduce") == before + 2, "outstanding Iallreduces not compressed");
  CHECK(same(ra, ea) && same(rc, ec) && same(b, bb), "outstanding calls differ (n=%d)", n);
}

// A blocking Allreduce in segments on `comm` while an Iallreduce is
// outstanding on another communicator, which the other ranks wait for
// first (legal: MPI progresses it while rank 0 is inside its call). The
// segments' polling must advance it, or the ranks deadlock.
void progress_while_segmented(MPI_Comm comm, int n) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm other;
  MPI_Comm_dup(comm, &other);
  std::vector<double> a = input<double>(rank, n), b = input<double>(rank + 3, n);
  std::vector<double> ra(n), rb(n), ea(n), eb(n);
  MPI_Allreduce(a.data(), ea.data(), n, MPI_DOUBLE, MPI_SUM, other);  // makes its node groups
  MPI_Allreduce(b.data(), eb.data(), n, MPI_DOUBLE, MPI_SUM, comm);
  const unsigned long long before = compressed("allreduce");
  MPI_Request req;
  MPI_Iallreduce(a.data(), ra.data(), n, MPI_DOUBLE, MPI_SUM, other, &req);
  if (rank == 0) MPI_Allreduce(b.data(), rb.data(), n, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  if (rank != 0) MPI_Allreduce(b.data(), rb.data(), n, MPI_DOUBLE, MPI_SUM, comm);
  CHECK(compressed("allreduce") == before + 2, "Iallreduce and Allreduce not both compressed");
  CHECK(same(ra, ea) && same(rb, eb), "calls across communicators differ (n=%d)", n);
  MPI_Comm_free(&other);
}

// A fresh communicator: no node groups yet, so its first Iallreduce passes
// through (creating them would block); after a blocking one it compresses.
void fresh_comm(int n) {
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int rank;
  MPI_Comm_rank(comm, &rank);
  std::vector<int> in = input<int>(rank, n), out(n), plain(n);
  const unsigned long long before = compressed("allreduce");
  MPI_Request req;
  MPI_Iallreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, comm, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  PMPI_Allreduce(in.data(), plain.data(), n, MPI_INT, MPI_SUM, comm);
  CHECK(compressed("allreduce") == before, "first Iallreduce on a fresh comm compressed");
  CHECK(same(out, plain), "first Iallreduce on a fresh comm wrong");
  allreduce_case<int>(comm, n, MPI_SUM, false);
  MPI_Comm_free(&comm);
}

// MPI_COMM_WORLD itself, before any blocking collective on it: its first
// MPI_Iallreduce and MPI_Ibcast take the node-aware path and are right.
void world_first(int n) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<int> in = input<int>(rank, n), out(n), plain(n);
  const unsigned long long reduced = compressed("allreduce"), sent = compressed("bcast");
  MPI_Request req;
  MPI_Iallreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  std::vector<int> bcast = input<int>(rank, n), root_data = input<int>(0, n);
  MPI_Ibcast(bcast.data(), n, MPI_INT, 0, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  PMPI_Allreduce(in.data(), plain.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(compressed("allreduce") == reduced + 1, "first Iallreduce on MPI_COMM_WORLD not compressed");
  CHECK(compressed("bcast") == sent + 1, "first Ibcast on MPI_COMM_WORLD not compressed");
  CHECK(same(out, plain), "first Iallreduce on MPI_COMM_WORLD wrong");
  CHECK(same(bcast, root_data), "first Ibcast on MPI_COMM_WORLD wrong");
}

#if MPI_VERSION >= 4
// Persistent node-aware calls started in a different order on every other
// rank, as MPI allows: their node stages could not start in one order, so
// they pass through (not compressed) and are right.
void persistent_out_of_order(MPI_Comm comm, int n) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  // Whole numbers: MPI's sum, in whatever order, is exact.
  std::vector<double> a(n), ra(n), ea(n), b(n), eb(n);
  for (int i = 0; i < n; ++i) a[i] = i % 89 + rank;
  if (rank == 0) b = input<double>(7, n), eb = b;
  PMPI_Allreduce(a.data(), ea.data(), n, MPI_DOUBLE, MPI_SUM, comm);
  PMPI_Bcast(eb.data(), n, MPI_DOUBLE, 0, comm);
  MPI_Request reqs[2];
  MPI_Allreduce_init(a.data(), ra.data(), n, MPI_DOUBLE, MPI_SUM, comm, MPI_INFO_NULL, &reqs[0]);
  MPI_Bcast_init(b.data(), n, MPI_DOUBLE, 0, comm, MPI_INFO_NULL, &reqs[1]);
  const unsigned long long before = compressed("allreduce");
  for (int j = 0; j < 2; ++j) MPI_Start(&reqs[rank % 2 == 0 ? j : 1 - j]);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  CHECK(compressed("allreduce") == before, "node-aware persistent Allreduce compressed");
  CHECK(same(ra, ea) && same(b, eb), "persistent calls started out of order differ (n=%d)", n);
  for (MPI_Request& r : reqs) MPI_Request_free(&r);
}
#endif

}  // namespace

int main(int argc, char** argv) {
  int rank, size;
  start_test(&argc, &argv, &rank, &size);
  const bool lossy = argc > 1 && std::strcmp(argv[1], "--lossy") == 0;
  // --segmented (pipelined mode): vectors the Allreduce, Reduce_scatter and
  // Reduce cut into segments too, alone and outstanding with other calls.
  const bool segmented = argc > 1 && std::strcmp(argv[1], "--segmented") == 0;
  if (!lossy) world_first(20001);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  for (int n : {1, 7, 1001, 40001}) {
    allreduce_case<double>(comm, n, MPI_SUM, false);
    allreduce_case<double>(comm, n, MPI_SUM, true);
    allreduce_case<float>(comm, n, MPI_SUM, true);
    if (lossy) continue;
    allreduce_case<int>(comm, n, MPI_SUM, false);
    allreduce_case<double>(comm, n, MPI_MAX, true);
    for (int root = 0; root < size; ++root) {
      bcast_case<double>(comm, n, root);
      reduce_case<double>(comm, n, root, root % 2 == 0);
    }
    bcast_case<int>(comm, n, size - 1);
  }
  if (segmented) {
    allreduce_case<double>(comm, 300001, MPI_SUM, false);
    allreduce_case<double>(comm, 300001, MPI_SUM, true);
    allreduce_case<float>(comm, 600001, MPI_SUM, true);
    outstanding(comm, 300001);
    progress_while_segmented(comm, 300001);
    reduce_scatter_case<double>(comm, 100003);  // rails: in segments
    for (int root = 0; root < size; ++root)  // node stage in segments
      reduce_case<double>(comm, 300001, root, root % 2 == 0);
  }
  if (!lossy) {
    for (int block : {1, 333}) reduce_scatter_case<double>(comm, block);
    outstanding(comm, 20001);
    fresh_comm(5001);
#if MPI_VERSION >= 4
    persistent_out_of_order(comm, 20001);
#endif
  }
  MPI_Comm_free(&comm);
  return finish_test(lossy       ? "nbc_nodes --lossy"
                     : segmented ? "nbc_nodes --segmented"
                                 : "nbc_nodes");
}
