#include "runtime/link_probe.h"

#include <algorithm>
#include <vector>

namespace adacomp {
namespace {

constexpr int kTagProbe = 7;
constexpr int kRounds = 3;
constexpr double kLongEnough = 2e-3;       // seconds one way: bandwidth dominates
constexpr size_t kMaxProbeBytes = 8 << 20;

// Best one-way time of `bytes` over kRounds round trips (half of each).
double one_way(MPI_Comm comm, int peer, bool first, std::vector<char>& buf, size_t bytes) {
  double best = 1e30;
  for (int i = 0; i < kRounds; ++i) {
    const double t0 = PMPI_Wtime();
    const int n = static_cast<int>(bytes);
    if (first) {
      PMPI_Send(buf.data(), n, MPI_BYTE, peer, kTagProbe, comm);
      PMPI_Recv(buf.data(), n, MPI_BYTE, peer, kTagProbe, comm, MPI_STATUS_IGNORE);
    } else {
      PMPI_Recv(buf.data(), n, MPI_BYTE, peer, kTagProbe, comm, MPI_STATUS_IGNORE);
      PMPI_Send(buf.data(), n, MPI_BYTE, peer, kTagProbe, comm);
    }
    best = std::min(best, (PMPI_Wtime() - t0) / 2);
  }
  return best;
}

}  // namespace

LinkModel probe_inter_node_link(const CommState& world) {
  const Locality& loc = world.loc;
  const int a = loc.leader_of(0), b = loc.leader_of(1);
  const int me = world.coll.rank;
  double result[2] = {0, 0};  // bandwidth, latency
  if (me == a || me == b) {
    const int peer = me == a ? b : a;
    std::vector<char> buf(kMaxProbeBytes);
    one_way(world.coll.comm, peer, me == a, buf, 1);  // connection set-up
    const double latency = one_way(world.coll.comm, peer, me == a, buf, 8);
    // Grow the message until its transfer outweighs latency (and any
    // shaper's burst allowance); both ends see the same times.
    size_t bytes = 256 << 10;
    // `a`'s times decide, so both ends leave the loop together.
    double t = 0;
    for (;;) {
      t = one_way(world.coll.comm, peer, me == a, buf, bytes);
      if (me == a) PMPI_Send(&t, 1, MPI_DOUBLE, b, kTagProbe, world.coll.comm);
      else PMPI_Recv(&t, 1, MPI_DOUBLE, a, kTagProbe, world.coll.comm, MPI_STATUS_IGNORE);
      if (t >= kLongEnough || bytes >= kMaxProbeBytes) break;
      bytes *= 2;
    }
    result[0] = t > latency ? static_cast<double>(bytes) / (t - latency) : 0;
    result[1] = latency;
  }
  PMPI_Bcast(result, 2, MPI_DOUBLE, a, world.coll.comm);
  LinkModel link;
  link.bandwidth_Bps = result[0];
  link.latency_s = result[1];
  return link;
}

}  // namespace adacomp
