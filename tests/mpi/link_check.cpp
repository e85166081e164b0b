// The link between nodes (docs/p2p.md, "Routes between nodes"), under
// ADACOMP_NODE_MAP with the probe's test hook ADACOMP_LINK_PROBE_OUTLIER:
//   agree high|low  one node's reading scaled by 1e9 (high) or 1e-9 (low):
//                   every rank holds the same figure, bit for bit, and the
//                   outlier does not decide it (six one-rank nodes: the
//                   median of three pairs; two nodes, high at either end:
//                   the lower of the pair's two readings);
//   raise REPORT    two nodes, node 0's reading scaled by 1e-6 (a probe
//                   taken at a loaded moment): point-to-point is framed and
//                   coded; the coded bodies' receives show the link achieves
//                   far more; a compressed Allreduce's settlement raises the
//                   figure alike on every rank (in-band, no collective of
//                   its own); the banner, the text report and the JSON report
//                   (REPORT, ADACOMP_REPORT) show the probe's figure, the
//                   raised one and the route.
// Only figures agreed or bounded by orders of magnitude are checked; nothing
// is timed.
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "check.h"

namespace {

int rank_, size_;

adacomp_link link_figures() {
  adacomp_link l{};
  adacomp_get_link(&l);
  return l;
}

// Every rank's value of `v`; true when all are bit for bit the same.
bool same_everywhere(double v) {
  std::vector<double> all(static_cast<size_t>(size_));
  MPI_Allgather(&v, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
  for (double x : all)
    if (std::memcmp(&x, &v, sizeof v) != 0) return false;
  return true;
}

void agree(bool high) {
  const adacomp_link l = link_figures();
  CHECK(l.measured == 1 && l.bandwidth_Bps > 0 && l.latency_s > 0,
        "a measured link: measured %d, %g B/s, %g s", l.measured, l.bandwidth_Bps, l.latency_s);
  CHECK(l.probed_Bps == l.bandwidth_Bps && l.raises == 0, "no check yet: probed %g, now %g",
        l.probed_Bps, l.bandwidth_Bps);
  CHECK(same_everywhere(l.bandwidth_Bps) && same_everywhere(l.latency_s),
        "ranks disagree on the link: %g B/s, %g s here", l.bandwidth_Bps, l.latency_s);
  // A pair reads at least 1 MB/s here (shared memory), so scaled by 1e9 it
  // is above 1e15 B/s; scaled by 1e-9, below 1e3 B/s (under 1 TB/s).
  if (high)
    CHECK(l.bandwidth_Bps < 1e13, "a high outlier decided the figure: %g B/s", l.bandwidth_Bps);
  else
    CHECK(l.bandwidth_Bps > 1e4, "a low outlier decided the figure: %g B/s", l.bandwidth_Bps);
}

// Barely compressible (a random mantissa, one exponent: about 1.2x), so
// that the coded bodies stay above the link check's 1 MiB.
double value(int from, size_t i, int round) {
  uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull ^ (static_cast<uint64_t>(from) << 32 | round);
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 31;
  const double scale = static_cast<double>(uint64_t{1} << 52);
  return 1.0 + static_cast<double>(h & ((uint64_t{1} << 52) - 1)) / scale;
}

std::string file_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void raise() {
  const adacomp_link before = link_figures();
  CHECK(before.measured == 1 && before.p2p_direct == 0,
        "a low probe frames point-to-point: measured %d, direct %d", before.measured,
        before.p2p_direct);
  // Coded messages between the two nodes: their bodies (several MB, far
  // above any eager limit) tell the receivers what the link achieves.
  const int peer = rank_ ^ 1;
  constexpr int n = 1 << 19;  // 4 MB of doubles
  std::vector<double> out(n), in(n);
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < n; ++i) out[i] = value(rank_, i, round);
    MPI_Sendrecv(out.data(), n, MPI_DOUBLE, peer, 5, in.data(), n, MPI_DOUBLE, peer, 5,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += in[i] != value(peer, i, round);
    CHECK(wrong == 0, "round %d: %d wrong", round, wrong);
  }
  const adacomp_link seen = link_figures();
  CHECK(op_stats("send").compressed_calls > 0, "no message was coded on a slow-looking link");
  CHECK(seen.achieved_Bps > 1e3 * seen.probed_Bps,
        "the bodies' receives achieved %g B/s, the probe read %g", seen.achieved_Bps,
        seen.probed_Bps);
  CHECK(seen.raises == 0 && seen.bandwidth_Bps == seen.probed_Bps,
        "raised before any agreement: %g B/s", seen.bandwidth_Bps);
  // A compressed Allreduce: its runtime model settles within a few calls,
  // and the settlement's MAX carries the link vote.
  std::vector<double> v(1 << 17, 1.0 + rank_), sum(v.size());
  for (int call = 0; call < 24; ++call)
    MPI_Allreduce(v.data(), sum.data(), static_cast<int>(v.size()), MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
  CHECK(sum[0] == size_ * (size_ + 1) / 2.0, "Allreduce: %g", sum[0]);
  const adacomp_link after = link_figures();
  double most = 0;
  MPI_Allreduce(&seen.achieved_Bps, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  CHECK(after.raises >= 1 && after.bandwidth_Bps >= most && after.bandwidth_Bps > after.probed_Bps,
        "not raised: %d raises, %g B/s, best achieved %g, probe %g", after.raises,
        after.bandwidth_Bps, most, after.probed_Bps);
  CHECK(same_everywhere(after.bandwidth_Bps), "ranks disagree on the raised figure: %g here",
        after.bandwidth_Bps);
  CHECK(after.p2p_direct == 0, "the route class changed during the run");
}

// After MPI_Finalize, on rank 0: the report and what the library printed.
int check_outputs(const std::string& report, const std::string& printed) {
  const std::string json = file_text(report), text = file_text(printed);
  std::printf("%s", text.c_str());
  int wrong = 0;
  for (const char* want : {"\"source\": \"measured\"", "\"raised_in_run\": true",
                           "\"p2p_between_nodes\": \"framed\"", "\"probed_Bps\": "}) {
    if (json.find(want) == std::string::npos) {
      std::printf("FAIL: the report lacks %s\n", want);
      ++wrong;
    }
  }
  for (const char* want :
       {"link between nodes", "(measured at MPI_Init); point-to-point between nodes framed",
        "raised during the run", "point-to-point between nodes: framed"}) {
    if (text.find(want) == std::string::npos) {
      std::printf("FAIL: the library printed no '%s'\n", want);
      ++wrong;
    }
  }
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  // The banner and the text report go to rank 0's stderr: keep them.
  const std::string printed = "/tmp/link_check." + std::to_string(getpid()) + ".err";
  if (mode == "raise") std::freopen(printed.c_str(), "w", stderr);
  start_test(&argc, &argv, &rank_, &size_);
  if (mode == "agree")
    agree(argc > 2 && std::strcmp(argv[2], "high") == 0);
  else if (mode == "raise")
    raise();
  else
    CHECK(false, "usage: test_link_check agree high|low | raise REPORT");
  int failures = 0;
  MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const int rank = rank_;
  MPI_Finalize();
  if (mode == "raise") {
    std::fflush(stderr);
    if (rank == 0 && argc > 2)
      failures += check_outputs(argv[2], printed);
    else if (rank != 0)
      std::printf("%s", file_text(printed).c_str());
    std::remove(printed.c_str());
  }
  if (rank == 0) std::printf("link_check %s: %d failed checks\n", mode.c_str(), failures);
  return failures ? 1 : 0;
}
