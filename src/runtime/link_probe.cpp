#include "runtime/link_probe.h"

#include <algorithm>
#include <vector>

#include "requests/idle_wait.h"

namespace adacomp {
namespace {

constexpr int kTagProbe = 7;
constexpr int kLatencySamples = 5;
constexpr int kTransferSamples = 3;  // each costs link time at MPI_Init
constexpr int kWarmUpTransfers = 2;  // untimed
// The one transfer size; with the counts above, 640 KB in all. More bulk
// data leaves TCP (these emulated links, Open MPI's TCP transport and MPICH
// over UCX's) slower for the application's later messages of about 64 KB,
// for the whole job: plain MPICH's 64 KB ping-pong went from 38 to 156 us
// after five 1 MB round trips, Open MPI's from 30 to 49 us; after five of
// 128 KB nothing changed, after nine MPICH's was at 94 us again
// (docs/benchmarks.md, the 10 Gbit/s OSU run). An application that never
// sends such messages would pay for the probe's.
constexpr size_t kProbeBytes = 128 << 10;

// A loaded host only ever adds time to a round trip, so the fastest of a
// few is the one least disturbed (the median needs most of them clean).
double fastest(const std::vector<double>& v) {
  return v.empty() ? 0 : *std::min_element(v.begin(), v.end());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n == 0 ? 0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// `rounds` round trips of `bytes` from the first end and one byte back (the
// reply need not carry the data back: half the link time the probe costs at
// MPI_Init).
std::vector<double> round_trips(int peer, bool first, std::vector<char>& buf, size_t bytes,
                                int rounds) {
  const MPI_Comm comm = MPI_COMM_WORLD;
  std::vector<double> t;
  for (int i = 0; i < rounds; ++i) {
    const double t0 = PMPI_Wtime();
    const int n = static_cast<int>(bytes);
    if (first) {
      PMPI_Send(buf.data(), n, MPI_BYTE, peer, kTagProbe, comm);
      PMPI_Recv(buf.data(), 1, MPI_BYTE, peer, kTagProbe, comm, MPI_STATUS_IGNORE);
    } else {
      PMPI_Recv(buf.data(), n, MPI_BYTE, peer, kTagProbe, comm, MPI_STATUS_IGNORE);
      PMPI_Send(buf.data(), 1, MPI_BYTE, peer, kTagProbe, comm);
    }
    t.push_back(PMPI_Wtime() - t0);
  }
  return t;
}

// The first end's `choice`, which the other end receives: both take the
// same branch.
bool first_ends_choice(int peer, bool first, bool choice) {
  int c = choice;
  if (first)
    PMPI_Send(&c, 1, MPI_INT, peer, kTagProbe, MPI_COMM_WORLD);
  else
    PMPI_Recv(&c, 1, MPI_INT, peer, kTagProbe, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return c != 0;
}

// This pair's estimate, as `first` (the deciding end) sees it: the fastest
// of kLatencySamples small round trips, and of kTransferSamples transfers of
// kProbeBytes both the fastest (the route's figure) and the median (the
// senders'). Why two: a link shaped by a token bucket (tools/netns.sh;
// cloud VMs' burst credits) sends a transfer at once after any idle moment,
// such as a peer descheduled between two transfers, so the fastest read a
// 1 Gbit/s link at 148-732 MB/s (8 jobs), and its senders stopped coding
// where forced coding ran 2.7x plain; the median read 121-192 in 7 of 8.
// But the route is fixed for the job, and a framed one costs small messages
// (0.94-0.96x plain at 4-32 KB on a 5 Gbit/s link read low, 90-700 MB/s):
// only the fastest, which errs high, may frame it (docs/p2p.md). The rate is
// the transfer's bytes over its time less a small round trip's (the
// latency and the reply); a rendezvous handshake left in makes it read
// low, by about 10% at 10 Gbit/s, which the check during the run raises
// (runtime/link_check.h). At 1 Gbit/s the transfer takes about 1 ms, at
// 10 Gbit/s 0.1 ms against a 9 us round trip: enough to tell the two sides
// of the route's threshold (about 1 GB/s, decision/model.h inter_node_direct).
void probe_once(int peer, bool first, std::vector<char>& buf, ProbeReading* out) {
  const double round_trip = fastest(round_trips(peer, first, buf, 8, kLatencySamples));
  out->link.latency_s = round_trip / 2;
  // Untimed first: a shaper's burst allowance (256 KB in tools/netns.sh)
  // lets the first transfers through at once, and the fastest of the timed
  // ones would then be such a transfer (a 1 Gbit/s link read 62 MB/s). At
  // 10 Gbit/s it refills during each transfer, so such a link reads high
  // (3.2 GB/s): on the right side of the route's threshold all the same.
  round_trips(peer, first, buf, kProbeBytes, kWarmUpTransfers);
  const std::vector<double> t = round_trips(peer, first, buf, kProbeBytes, kTransferSamples);
  // A transfer no slower than the small round trip (a link too fast to
  // time at this size) reads as its bytes over a tenth of the transfer.
  const auto rate = [&](double seconds) {
    const double data_time = std::max(seconds - round_trip, 0.1 * seconds);
    return data_time > 0 ? static_cast<double>(kProbeBytes) / data_time : 0;
  };
  out->link.bandwidth_Bps = rate(median(t));
  out->fastest_Bps = rate(fastest(t));
}

// A small round trip slower than this on its fastest of kLatencySamples
// means a host too loaded to time anything (a loaded 2-core host: 2-5 ms);
// no fabric MPI runs on takes that long.
constexpr double kDisturbedLatency = 100e-6;
constexpr int kProbeAttempts = 3;

// The pair's probe, taken again (up to kProbeAttempts) while it was
// disturbed; the first end decides, so both ends repeat alike. Disturbed
// every time, the last reading stands: a low one, which the median over
// pairs outvotes from three pairs on (no reading would leave an outlier
// pair alone to decide) and the check during the run raises.
ProbeReading probe_pair(int peer, bool first) {
  std::vector<char> buf(kProbeBytes);
  round_trips(peer, first, buf, 1, 1);  // connection set-up
  ProbeReading r;
  for (int attempt = 1;; ++attempt) {
    probe_once(peer, first, buf, &r);
    if (attempt == kProbeAttempts ||
        !first_ends_choice(peer, first, r.link.latency_s > kDisturbedLatency))
      return r;
  }
}

}  // namespace

ProbeReading probe_inter_node_link(const Locality& loc, const Config& c) {
  // Nodes 2k and 2k+1 form pair k; their leaders probe at the same time
  // (different links). Both ends time the same round trips, and each
  // reports its reading: a pair's figure is the lower one (an end that
  // read high does not decide it; one that read low is raised during the
  // run, runtime/link_check.h), and every rank takes the median over the
  // pairs, from the same gathered figures, so all agree bit for bit.
  // Bandwidth (median), latency, fastest bandwidth; zero: not a probing leader.
  constexpr int kFigures = 3;
  double mine[kFigures] = {0, 0, 0};
  const int pair_node = loc.node ^ 1;
  const int size = static_cast<int>(loc.node_of.size());
  if (loc.local_rank == 0 && pair_node < loc.nodes) {
    const ProbeReading r = probe_pair(loc.leader_of(pair_node), loc.node % 2 == 0);
    const double scale = loc.node == c.probe_outlier_node ? c.probe_outlier_factor : 1;
    mine[0] = r.link.bandwidth_Bps * scale;
    mine[1] = r.link.latency_s;
    mine[2] = r.fastest_Bps * scale;
  }
  std::vector<double> all(kFigures * static_cast<size_t>(size));
  // The other ranks wait for the probe asleep, not in MPI's busy polling:
  // on a node with more ranks than cores their spinning takes the probing
  // leader's core and skews its timings (measured: 16 MB/s read on a
  // 125 MB/s link, 2 nodes x 2 ranks on 2 cores).
  MPI_Request gathered;
  PMPI_Iallgather(mine, kFigures, MPI_DOUBLE, all.data(), kFigures, MPI_DOUBLE, MPI_COMM_WORLD,
                  &gathered);
  wait_asleep(&gathered);
  // Per pair, the lower positive reading of each end (an end may measure
  // none), the latency of the end whose median reading is lower.
  const size_t pairs = static_cast<size_t>(loc.nodes / 2);
  std::vector<double> pair_bandwidth(pairs, 0), pair_latency(pairs, 0), pair_fastest(pairs, 0);
  for (int r = 0; r < size; ++r) {
    const double* figures = &all[kFigures * static_cast<size_t>(r)];
    const size_t k = static_cast<size_t>(loc.node_of[static_cast<size_t>(r)] / 2);
    if (figures[0] <= 0 || k >= pairs) continue;
    if (pair_bandwidth[k] == 0 || figures[0] < pair_bandwidth[k]) {
      pair_bandwidth[k] = figures[0];
      pair_latency[k] = figures[1];
    }
    if (pair_fastest[k] == 0 || figures[2] < pair_fastest[k]) pair_fastest[k] = figures[2];
  }
  std::vector<double> bandwidths, latencies, fastests;
  for (size_t k = 0; k < pairs; ++k) {
    if (pair_bandwidth[k] <= 0) continue;
    bandwidths.push_back(pair_bandwidth[k]);
    latencies.push_back(pair_latency[k]);
    fastests.push_back(pair_fastest[k]);
  }
  ProbeReading agreed;
  agreed.link.bandwidth_Bps = median(bandwidths);
  agreed.link.latency_s = median(latencies);
  agreed.fastest_Bps = median(fastests);
  return agreed;
}

}  // namespace adacomp
