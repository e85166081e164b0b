// Point-to-point routes between nodes (decision/model.h inter_node_direct):
// run under ADACOMP_NODE_MAP with a link that makes the route direct (a
// calibrated fast link, or ADACOMP_P2P_ROUTE=direct) or framed (a calibrated
// slow link). Every rank exchanges compressible doubles with every other
// rank through Sendrecv, Isend/Irecv with MPI_ANY_SOURCE, and Probe + Recv;
// data are checked exactly, then the statistics tell the route:
//   direct  the library framed no message (send calls 0): plain MPI's cost
//   framed  messages to other nodes were framed, and some were coded (none
//           under ADACOMP_THRESHOLD_P2P); small
//           wildcard receives are MPI's own where a truncation ends the job
//           (fatal error handlers), the library's where one returns
#include <mpi.h>

#include <cstring>
#include <vector>

#include "check.h"

namespace {

int rank_, size_;

double value(int from, int to, size_t i, int round) {
  return 1000.0 * from + to + 0.25 * static_cast<double>(i % 64) + round;
}

void exchange(int n, int round) {
  std::vector<double> out(n), in(n);
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    for (int i = 0; i < n; ++i) out[i] = value(rank_, peer, i, round);
    MPI_Sendrecv(out.data(), n, MPI_DOUBLE, peer, 1, in.data(), n, MPI_DOUBLE, peer, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += in[i] != value(peer, rank_, i, round);
    CHECK(wrong == 0, "Sendrecv %d doubles with %d: %d wrong", n, peer, wrong);
  }
  // Wildcard receives from every other rank, then probed ones.
  std::vector<std::vector<double>> outs(size_, std::vector<double>(n));
  std::vector<MPI_Request> sends;
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    for (int i = 0; i < n; ++i) outs[peer][i] = value(rank_, peer, i, round + 1);
    sends.emplace_back();
    MPI_Isend(outs[peer].data(), n, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &sends.back());
  }
  for (int k = 1; k < size_; ++k) {
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(in.data(), n, MPI_DOUBLE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &r);
    for (int flag = 0; !flag;) MPI_Test(&r, &flag, &st);
    int count = -1, wrong = 0;
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    for (int i = 0; i < n; ++i) wrong += in[i] != value(st.MPI_SOURCE, rank_, i, round + 1);
    CHECK(count == n && wrong == 0, "ANY_SOURCE receive from %d: count %d, %d wrong", st.MPI_SOURCE,
          count, wrong);
  }
  MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  sends.clear();
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    sends.emplace_back();
    MPI_Isend(outs[peer].data(), n, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD, &sends.back());
  }
  for (int k = 1; k < size_; ++k) {
    MPI_Status st;
    MPI_Probe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st);
    int count = -1;
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == n, "Probe from %d: count %d, not %d", st.MPI_SOURCE, count, n);
    MPI_Recv(in.data(), n, MPI_DOUBLE, st.MPI_SOURCE, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += in[i] != value(st.MPI_SOURCE, rank_, i, round + 1);
    CHECK(wrong == 0, "probed receive from %d: %d wrong", st.MPI_SOURCE, wrong);
  }
  MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
}

// Receives too small for a marker, posted with MPI_ANY_SOURCE and polled
// with MPI_Test on `comm`, one from every other rank. They are the
// library's (counted by its "recv" statistics) only where a truncation must
// be reported to a sender that goes on: some error handler that returns.
// Where the handlers of `comm` and MPI_COMM_WORLD are both fatal a truncation
// ends the job, and they are MPI's own (p2p/comm_setup.cpp recv_declined).
void small_wildcards(MPI_Comm comm, bool library_expected, const char* handlers) {
  const unsigned long long before = op_stats("recv").calls;
  std::vector<double> outs(size_);
  std::vector<MPI_Request> sends;
  for (int peer = 0; peer < size_; ++peer) {
    if (peer == rank_) continue;
    outs[peer] = value(rank_, peer, 0, 99);
    sends.emplace_back();
    MPI_Isend(&outs[peer], 1, MPI_DOUBLE, peer, 4, comm, &sends.back());
  }
  for (int k = 1; k < size_; ++k) {
    double in = -1;
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(&in, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 4, comm, &r);
    for (int flag = 0; !flag;) MPI_Test(&r, &flag, &st);
    CHECK(in == value(st.MPI_SOURCE, rank_, 0, 99), "small ANY_SOURCE receive from %d (%s): %g",
          st.MPI_SOURCE, handlers, in);
  }
  MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
  const unsigned long long taken = op_stats("recv").calls - before;
  const unsigned long long expected = library_expected ? size_ - 1 : 0;
  CHECK(taken == expected, "small wildcard receives (%s): the library took %llu, expected %llu",
        handlers, taken, expected);
  MPI_Barrier(comm);
}

}  // namespace

int main(int argc, char** argv) {
  start_test(&argc, &argv, &rank_, &size_);
  const bool direct = argc > 1 && std::strcmp(argv[1], "direct") == 0;
  for (int round = 0; round < 12; ++round)
    for (int n : {1, 100, 20000, 131072}) exchange(n, round);
  if (!direct) {
    // Under the default policy a sender codes from ADACOMP_THRESHOLD_P2P
    // (64K) on, though T1 is 8K on this slow link: 16 KB never, 64 KB yes.
    const auto coded_now = [] {
      unsigned long long mine = op_stats("send").compressed_calls, all = 0;
      MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      return all;
    };
    const unsigned long long before = coded_now();
    for (int round = 0; round < 4; ++round) exchange(2048, round);
    const unsigned long long small = coded_now() - before;
    CHECK(small == 0, "16 KB messages under the point-to-point floor: %llu coded", small);
    for (int round = 0; round < 4; ++round) exchange(8192, round);
    CHECK(coded_now() - before > 0, "64 KB messages on a slow link: none coded");
    // The library keeps each handler's fatality from the communicator's
    // making and MPI_Comm_set_errhandler: each change below must reach it.
    small_wildcards(MPI_COMM_WORLD, false, "fatal");
    MPI_Comm returning, inherited;
    MPI_Comm_dup(MPI_COMM_WORLD, &returning);
    MPI_Comm_set_errhandler(returning, MPI_ERRORS_RETURN);
    small_wildcards(returning, true, "communicator's returns");
    MPI_Comm_dup(returning, &inherited);
    small_wildcards(inherited, true, "inherited by a duplicate");
    MPI_Comm_set_errhandler(inherited, MPI_ERRORS_ARE_FATAL);
    small_wildcards(inherited, false, "communicator's fatal again");
    MPI_Comm_free(&inherited);
    MPI_Comm_free(&returning);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    small_wildcards(MPI_COMM_WORLD, true, "world's returns");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    small_wildcards(MPI_COMM_WORLD, false, "world's fatal again");
  }
  const adacomp_op_stats sent = op_stats("send");
  unsigned long long framed = 0, coded = 0;
  MPI_Allreduce(&sent.calls, &framed, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&sent.compressed_calls, &coded, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (direct) {
    CHECK(framed == 0, "direct route: the library framed %llu messages", framed);
  } else {
    CHECK(framed > 0, "framed route: no message was framed");
    CHECK(coded > 0, "framed route on a slow link: no message was coded (%llu framed)", framed);
  }
  int failures = 0;
  MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0)
    std::printf("p2p_route (%s): %llu framed, %llu coded; %d failed checks\n",
                direct ? "direct" : "framed", framed, coded, failures);
  MPI_Finalize();
  return failures ? 1 : 0;
}
