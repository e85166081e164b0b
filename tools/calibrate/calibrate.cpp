// adacomp-calibrate: measures this machine's network and codecs and writes
// the tier thresholds that fit them.
//
//   mpirun -np N adacomp-calibrate [--data FILE] [--out adacomp.conf]
//       [--csv adacomp-calibration.csv] [--min 1K] [--max 64M] [--budget S]
//
// Links: when the ranks span nodes it times the link between two nodes
// (ADACOMP_LINK_*) and, where a node holds two ranks, the link inside a node
// (ADACOMP_INTRA_*), separately. When every rank shares one node it says so
// loudly and records the node-local link only: that is not the network.
//
// For Allreduce, Bcast and Reduce at every power-of-two size it times plain
// MPI and each AdaComp tier (lossless, lossy when a bound is set, pipelined),
// checking every result. For each operation the tiers start at sizes
// T1 <= T2 <= T3 that minimise its time relative to raw over all sizes, a
// compressed tier having to beat the one below it by 3% to count, so noise
// cannot push a threshold down (medians, not means, are compared). The
// configuration takes, per tier, the smallest start of any operation, so no
// operation that wins alone is kept raw by the others; the runtime model
// then keeps each operation and size on whichever path measures faster.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "harness/harness.h"

using namespace harness;

namespace {

constexpr double kMustWinBy = 1.03;
constexpr size_t kNever = size_t{1} << 40;
const char* const kTiers[] = {"raw", "lossless", "lossy", "pipelined"};
constexpr int kNumTiers = 4;

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "adacomp-calibrate: %s\n", why);
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

// Half the median round trip between ranks a and b (PMPI: never compressed).
double ping_pong(int a, int b, size_t bytes, int reps) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<char> buf(bytes);
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    double t0 = MPI_Wtime();
    if (rank == a) {
      PMPI_Send(buf.data(), (int)bytes, MPI_BYTE, b, 0, MPI_COMM_WORLD);
      PMPI_Recv(buf.data(), (int)bytes, MPI_BYTE, b, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == b) {
      PMPI_Recv(buf.data(), (int)bytes, MPI_BYTE, a, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      PMPI_Send(buf.data(), (int)bytes, MPI_BYTE, a, 0, MPI_COMM_WORLD);
    }
    t.push_back(MPI_Wtime() - t0);
  }
  std::nth_element(t.begin(), t.begin() + reps / 2, t.end());
  double half = t[reps / 2] / 2;
  PMPI_Bcast(&half, 1, MPI_DOUBLE, a, MPI_COMM_WORLD);
  return half;
}

struct Link {
  double latency = 0, bandwidth = 0;
};
Link measure_link(int a, int b) {
  Link l;
  l.latency = ping_pong(a, b, 8, 101);
  l.bandwidth = (4 << 20) / ping_pong(a, b, 4 << 20, 9);
  return l;
}

// Tier starts (indices into the sizes) minimising the summed relative time
// of rel[tier][size], compressed tiers handicapped by kMustWinBy.
void best_starts(const std::vector<std::vector<double>>& rel, size_t ns, size_t out[3]) {
  double best = INFINITY;
  out[0] = out[1] = out[2] = ns;
  auto cost = [&](int t, size_t s) { return rel[t][s] * (t == 0 ? 1.0 : kMustWinBy); };
  for (size_t i1 = 0; i1 <= ns; ++i1)
    for (size_t i2 = i1; i2 <= ns; ++i2)
      for (size_t i3 = i2; i3 <= ns; ++i3) {
        double total = 0;
        for (size_t s = 0; s < ns; ++s) total += cost(s < i1 ? 0 : s < i2 ? 1 : s < i3 ? 2 : 3, s);
        if (total < best - 1e-12) best = total, out[0] = i1, out[1] = i2, out[2] = i3;
      }
}

// Single-core codec throughput on the sample field, MB/s (1e6 bytes).
void codec_speed(adacomp::CodecId id, const std::vector<double>& data, double bound,
                 double* comp, double* decomp, double* ratio) {
  using namespace adacomp;
  const Codec* c = find_codec(id);
  EncodeParams p;
  p.kind = ElemKind::f64;
  p.abs_bound = bound;
  const size_t bytes = data.size() * sizeof(double);
  std::vector<uint8_t> enc(c->max_encoded(bytes)), dec(bytes);
  auto now = [] { return std::chrono::steady_clock::now(); };
  auto t0 = now();
  long n = c->encode(p, data.data(), bytes, enc.data(), enc.size());
  auto t1 = now();
  if (n > 0) c->decode(ElemKind::f64, enc.data(), n, dec.data(), bytes);
  auto t2 = now();
  *comp = bytes / std::chrono::duration<double>(t1 - t0).count() / 1e6;
  *decomp = bytes / std::chrono::duration<double>(t2 - t1).count() / 1e6;
  *ratio = n > 0 ? double(bytes) / n : 1.0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::string data_file, out_path = "adacomp.conf", csv_path = "adacomp-calibration.csv";
  size_t min_bytes = 1024, max_bytes = 64u << 20;
  double budget = 0.3;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value for " + a).c_str());
      return argv[++i];
    };
    if (a == "--data") data_file = value();
    else if (a == "--out") out_path = value();
    else if (a == "--csv") csv_path = value();
    else if (a == "--min") { if (!parse_size(value(), &min_bytes)) usage("bad --min"); }
    else if (a == "--max") { if (!parse_size(value(), &max_bytes)) usage("bad --max"); }
    else if (a == "--budget") budget = std::atof(value().c_str());
    else usage(("unknown argument " + a).c_str());
  }
  if (size < 2) usage("needs at least 2 ranks to measure a network");

  // Where the ranks are: the two nodes' first ranks for the network, the
  // first node with two ranks for the link inside a node.
  const std::vector<int> node = node_of_ranks(MPI_COMM_WORLD);
  int inter_b = -1, intra_a = -1, intra_b = -1;
  for (int r = 1; r < size; ++r) {
    if (inter_b < 0 && node[r] != node[0]) inter_b = r;
    for (int q = 0; q < r && intra_b < 0; ++q)
      if (node[q] == node[r]) intra_a = q, intra_b = r;
  }
  Link inter, intra;
  if (inter_b >= 0) inter = measure_link(0, inter_b);
  if (intra_b >= 0) intra = measure_link(intra_a, intra_b);
  if (rank == 0) {
    if (inter_b >= 0)
      std::fprintf(stderr, "[calibrate] link between nodes (ranks 0, %d): latency %.1f us, "
                   "bandwidth %.1f MB/s\n", inter_b, inter.latency * 1e6, inter.bandwidth / 1e6);
    if (intra_b >= 0)
      std::fprintf(stderr, "[calibrate] link inside a node (ranks %d, %d): latency %.1f us, "
                   "bandwidth %.1f MB/s\n", intra_a, intra_b, intra.latency * 1e6,
                   intra.bandwidth / 1e6);
    if (inter_b < 0)
      std::fprintf(stderr,
                   "[calibrate] WARNING: all %d ranks share one node. This measures the link "
                   "inside a node only\n[calibrate] WARNING: (written as ADACOMP_INTRA_*), not "
                   "the network: run with ranks on two nodes\n[calibrate] WARNING: (e.g. mpirun "
                   "--map-by node) to calibrate the network.\n", size);
  }

  std::vector<size_t> sizes;
  for (size_t b = min_bytes; b <= max_bytes; b *= 2) sizes.push_back(b);
  const size_t ns = sizes.size();
  // rel[op][t][s]: time of tier t at size s relative to raw, per op.
  constexpr Coll kOps[] = {Coll::allreduce, Coll::bcast, Coll::reduce};
  constexpr int kNumOps = 3;
  std::vector<std::vector<std::vector<double>>> rel(
      kNumOps, std::vector<std::vector<double>>(kNumTiers, std::vector<double>(ns, 0.0)));
  FILE* csv = rank == 0 ? std::fopen(csv_path.c_str(), "w") : nullptr;
  if (rank == 0 && !csv) usage("cannot write the CSV file");
  if (csv) std::fprintf(csv, "op,tier,bytes,median_s,max_abs_err,ok\n");
  bool all_ok = true, have_bound = false;
  for (int o = 0; o < kNumOps; ++o) {
    const Coll op = kOps[o];
    for (size_t s = 0; s < ns; ++s) {
      std::vector<double> data = sample_field(sizes[s] / sizeof(double), rank, data_file);
      const double bound = configured_bound(data, MPI_COMM_WORLD);
      have_bound = bound > 0;
      Sample probe = measure(op, data, "raw", 1, bound, MPI_COMM_WORLD);
      const int iters = iterations_for(probe.median_s, budget, 5, 400);
      double raw_s = 0;
      std::string line;
      for (int t = 0; t < kNumTiers; ++t) {
        if (t == 2 && !have_bound) continue;  // filled in from lossless below
        Sample m = measure(op, data, kTiers[t], iters, bound, MPI_COMM_WORLD);
        if (t == 0) raw_s = m.median_s;
        rel[o][t][s] = m.median_s / raw_s;
        all_ok = all_ok && m.ok;
        if (csv)
          std::fprintf(csv, "%s,%s,%zu,%.9f,%.6g,%d\n", coll_name(op), kTiers[t], sizes[s],
                       m.median_s, m.max_err, m.ok ? 1 : 0);
        char cell[64];
        std::snprintf(cell, sizeof cell, " %s %.3f ms%s", kTiers[t], m.median_s * 1e3,
                      m.ok ? "" : " WRONG");
        line += cell;
      }
      if (rank == 0)
        std::fprintf(stderr, "[calibrate] %-9s %6s:%s\n", coll_name(op), size_label(sizes[s]).c_str(),
                     line.c_str());
    }
  }
  // Tier t covers sizes [start[t], start[t+1]) of each op; the configuration
  // takes each tier's earliest start over the ops.
  size_t best_i[3] = {ns, ns, ns};
  auto threshold = [&](size_t i) { return i < ns ? sizes[i] : kNever; };
  std::string per_op;
  for (int o = 0; o < kNumOps; ++o) {
    if (!have_bound) rel[o][2] = rel[o][1];
    size_t starts[3];
    best_starts(rel[o], ns, starts);
    for (int t = 0; t < 3; ++t) best_i[t] = std::min(best_i[t], starts[t]);
    char line[160];
    std::snprintf(line, sizeof line, "#   %-9s lossless from %s, lossy from %s, pipelined from %s\n",
                  coll_name(kOps[o]), size_label(threshold(starts[0])).c_str(),
                  size_label(threshold(starts[1])).c_str(), size_label(threshold(starts[2])).c_str());
    per_op += line;
  }
  best_i[1] = std::max(best_i[1], best_i[0]);
  best_i[2] = std::max(best_i[2], best_i[1]);

  if (rank == 0) {
    std::vector<double> field = sample_field(1 << 19, 0, data_file);
    double fc, fd, fr, qc = 0, qd = 0, qr = 0;
    codec_speed(adacomp::CodecId::fpc, field, 0, &fc, &fd, &fr);
    double range = 0;
    {
      auto [lo, hi] = std::minmax_element(field.begin(), field.end());
      range = *hi - *lo;
    }
    codec_speed(adacomp::CodecId::quant, field, 1e-4 * range, &qc, &qd, &qr);
    FILE* out = std::fopen(out_path.c_str(), "w");
    if (!out) usage("cannot write the configuration file");
    std::time_t now = std::time(nullptr);
    char when[64];
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    std::fprintf(out,
                 "# Written by adacomp-calibrate on %s: %d ranks on %d node(s), data %s, %s.\n"
                 "# Environment variables override these settings.\n"
                 "ADACOMP_MODE = %s\n"
                 "ADACOMP_THRESHOLD_LOSSLESS = %zu\n"
                 "ADACOMP_THRESHOLD_LOSSY = %zu\n"
                 "ADACOMP_THRESHOLD_PIPELINE = %zu\n"
                 "# Where each operation alone would start each tier:\n%s",
                 when, size, *std::max_element(node.begin(), node.end()) + 1,
                 data_file.empty() ? "built-in heat field" : data_file.c_str(),
                 have_bound ? "lossy tiers measured with the configured bound"
                            : "no error bound set, so lossy tiers measured as lossless",
                 threshold(best_i[2]) < kNever ? "pipelined" : "adaptive", threshold(best_i[0]),
                 threshold(best_i[1]), threshold(best_i[2]), per_op.c_str());
    if (inter_b >= 0)
      std::fprintf(out, "ADACOMP_LINK_BANDWIDTH = %.6g\nADACOMP_LINK_LATENCY = %.6g\n",
                   inter.bandwidth, inter.latency);
    if (intra_b >= 0)
      std::fprintf(out, "ADACOMP_INTRA_BANDWIDTH = %.6g\nADACOMP_INTRA_LATENCY = %.6g\n",
                   intra.bandwidth, intra.latency);
    std::fprintf(out,
                 "# Codec speed on one core (MB/s compress / decompress, ratio):\n"
                 "#   fpc   %.0f / %.0f, %.2fx\n"
                 "#   quant %.0f / %.0f, %.2fx at relative bound 1e-4\n"
                 "# Every measurement: %s\n",
                 fc, fd, fr, qc, qd, qr, csv_path.c_str());
    std::fclose(out);
    std::fprintf(stderr,
                 "[calibrate] thresholds: lossless from %s, lossy from %s, pipelined from %s "
                 "(\"never\" = %s); wrote %s and %s\n",
                 size_label(threshold(best_i[0])).c_str(), size_label(threshold(best_i[1])).c_str(),
                 size_label(threshold(best_i[2])).c_str(), size_label(kNever).c_str(),
                 out_path.c_str(), csv_path.c_str());
  }
  if (csv) std::fclose(csv);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
