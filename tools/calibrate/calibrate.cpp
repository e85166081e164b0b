// adacomp-calibrate: measures this machine's network and codecs and writes
// the tier thresholds that fit them.
//
//   mpirun -np N adacomp-calibrate [--data FILE] [--out adacomp.conf]
//       [--csv FILE] [--min 1K] [--max 64M] [--budget S] [--allow-one-host]
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
const char* const kTiers[] = {"raw", "lossless", "lossy", "pipelined"};
constexpr int kNumTiers = 4;

const char kHelp[] =
    "usage: mpirun -np N [--map-by node] adacomp-calibrate [--out adacomp.conf] [--csv FILE]\n"
    "                    [--data FILE] [--min 1K] [--max 64M] [--budget S] [--allow-one-host]\n"
    "\n"
    "Measures the network between ranks 0 and 1 and every AdaComp tier for Allreduce,\n"
    "Bcast and Reduce at power-of-two sizes, checks every result, and writes the tier\n"
    "thresholds and link model that fit this machine to --out (default adacomp.conf),\n"
    "every measurement to --csv (default: next to --out, .csv). Put ranks on two\n"
    "different nodes: a calibration on one host measures shared memory, not the network.\n"
    "\n"
    "Lossy tiers are measured only with an error bound, taken from the environment as\n"
    "the library takes it: ADACOMP_ERROR_BOUND (absolute) or ADACOMP_REL_ERROR_BOUND\n"
    "(relative to the value range), exported to every rank. The output names the bound\n"
    "but does not set it (lossy compression stays each job's choice). Without one, no\n"
    "lossy tier, threshold or codec is measured or written.\n"
    "\n"
    "  --data FILE        raw doubles to measure on (default: a built-in heat field)\n"
    "  --min/--max BYTES  size range (K/M/G suffixes; default 1K..64M)\n"
    "  --budget S         seconds per measurement (default 0.3)\n"
    "  --allow-one-host   calibrate although every rank runs on one host\n"
    "  -h, --help         this text;  -V, --version  version and MPI\n";

// Answered before MPI_Init, so they work without mpirun.
void help_or_version(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-h" || a == "--help") std::fputs(kHelp, stdout), std::exit(0);
    if (a == "-V" || a == "--version")
      std::printf("adacomp-calibrate %s for %s\n", ADACOMP_VERSION, ADACOMP_MPI_BUILT_FOR),
          std::exit(0);
  }
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "adacomp-calibrate: %s\n", why);
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

struct Hosts {
  std::string list;      // "node1 (ranks 0,2), node2 (ranks 1,3)"
  std::string rank0;     // rank 0's host
  int distinct = 0;
};

// Every rank's host name, gathered on every rank.
Hosts gather_hosts() {
  int size, len;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char mine[MPI_MAX_PROCESSOR_NAME] = {0};
  MPI_Get_processor_name(mine, &len);
  std::vector<char> all(size_t(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                MPI_CHAR, MPI_COMM_WORLD);
  auto name = [&](int r) { return std::string(&all[size_t(r) * MPI_MAX_PROCESSOR_NAME]); };
  Hosts h;
  h.rank0 = name(0);
  std::vector<std::pair<std::string, std::string>> groups;  // host, its ranks
  for (int r = 0; r < size; ++r) {
    auto g = std::find_if(groups.begin(), groups.end(),
                          [&](const auto& p) { return p.first == name(r); });
    if (g == groups.end()) groups.push_back({name(r), std::to_string(r)});
    else g->second += "," + std::to_string(r);
  }
  h.distinct = static_cast<int>(groups.size());
  for (const auto& [host, ranks] : groups)
    h.list += (h.list.empty() ? "" : ", ") + host + " (ranks " + ranks + ")";
  return h;
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
  c->encode(p, data.data(), bytes, enc.data(), enc.size());  // warm: contexts, pages
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
  help_or_version(argc, argv);
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::string data_file, out_path = "adacomp.conf", csv_path;
  bool allow_one_host = false;
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
    else if (a == "--allow-one-host") allow_one_host = true;
    else usage(("unknown argument " + a).c_str());
  }
  if (size < 2) usage("needs at least 2 ranks to measure a network");
  // The CSV goes next to the conf: a.conf -> a.csv.
  if (csv_path.empty()) {
    size_t dot = out_path.rfind('.'), slash = out_path.rfind('/');
    csv_path = (dot != std::string::npos && (slash == std::string::npos || dot > slash)
                    ? out_path.substr(0, dot)
                    : out_path) + ".csv";
  }
  const Hosts hosts = gather_hosts();
  if (rank == 0 && hosts.distinct == 1)
    std::fprintf(stderr,
                 "[calibrate] %s: all %d ranks run on one host (%s): this measures shared\n"
                 "[calibrate] memory, not the network, and would switch compression off for the\n"
                 "[calibrate] whole cluster. Put ranks on two nodes (mpirun --map-by node, or\n"
                 "[calibrate] srun -N 2 --ntasks-per-node 1)%s.\n",
                 allow_one_host ? "WARNING" : "refusing", size, hosts.rank0.c_str(),
                 allow_one_host ? "; continuing because of --allow-one-host"
                                : ", or pass --allow-one-host to calibrate this host alone");
  if (hosts.distinct == 1 && !allow_one_host) {
    MPI_Finalize();
    return 3;
  }

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
  const size_t steps = kNumOps * ns;
  size_t step = 0;
  const double started = MPI_Wtime();
  for (int o = 0; o < kNumOps; ++o) {
    const Coll op = kOps[o];
    for (size_t s = 0; s < ns; ++s) {
      ++step;
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
      if (rank == 0) {
        // Time left from the time per byte so far (sizes double each step).
        double elapsed = MPI_Wtime() - started, done = 0, total = 0;
        for (size_t i = 0; i < steps; ++i) {
          total += sizes[i % ns];
          if (i < step) done += sizes[i % ns];
        }
        std::fprintf(stderr, "[calibrate] %zu of %zu, %.0f s, about %.0f s left: %-9s %6s:%s\n",
                     step, steps, elapsed, elapsed * (total - done) / done, coll_name(op),
                     size_label(sizes[s]).c_str(), line.c_str());
      }
    }
  }
  // Tier t covers sizes [start[t], start[t+1]) of each op; the configuration
  // takes each tier's earliest start over the ops. Without a bound there is
  // no lossy tier to place: it is never chosen, and no threshold is written.
  size_t best_i[3] = {ns, ns, ns};
  auto label = [&](size_t i) { return i < ns ? size_label(sizes[i]) : std::string("never"); };
  auto threshold_text = [&](size_t i) { return i < ns ? std::to_string(sizes[i]) : std::string("never"); };
  std::string per_op;
  for (int o = 0; o < kNumOps; ++o) {
    if (!have_bound) rel[o][2].assign(ns, INFINITY);
    size_t starts[3];
    best_starts(rel[o], ns, starts);
    for (int t = 0; t < 3; ++t) best_i[t] = std::min(best_i[t], starts[t]);
    per_op += "#   " + std::string(coll_name(kOps[o])) + ": lossless from " + label(starts[0]) +
              (have_bound ? ", lossy from " + label(starts[1]) : "") + ", pipelined from " +
              label(starts[2]) + "\n";
  }
  best_i[1] = std::max(best_i[1], best_i[0]);
  best_i[2] = std::max(best_i[2], best_i[1]);
  std::string bound_used;
  for (const char* var : {"ADACOMP_ERROR_BOUND", "ADACOMP_REL_ERROR_BOUND"})
    if (const char* v = std::getenv(var)) bound_used = std::string(var) + "=" + v;

  // The codecs the auto settings choose among for floats (the runtime model
  // times them on the real calls; docs/codecs.md), for reading only; the
  // lossy ones at the bound the tiers were measured with.
  const std::vector<double> field = sample_field(1 << 19, rank, data_file);
  const double field_bound = configured_bound(field, MPI_COMM_WORLD);
  if (rank == 0) {
    std::string speeds;
    for (adacomp::CodecId id : {adacomp::CodecId::bitplane, adacomp::CodecId::quant_zstd,
                                adacomp::CodecId::quant_fast}) {
      const adacomp::Codec* codec = adacomp::find_codec(id);
      if (codec->lossy && !have_bound) continue;
      double c, d, r;
      codec_speed(id, field, codec->lossy ? field_bound : 0, &c, &d, &r);
      char line[160];
      std::snprintf(line, sizeof line, "#   %-10s %.0f / %.0f, %.2fx%s%s\n", codec->name, c, d, r,
                    codec->lossy ? " at " : "", codec->lossy ? bound_used.c_str() : "");
      speeds += line;
    }
    FILE* out = std::fopen(out_path.c_str(), "w");
    if (!out) usage("cannot write the configuration file");
    std::time_t now = std::time(nullptr);
    char when[64];
    std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    // ADACOMP_MPI: a build for the other MPI refuses this file (man adacomp.conf).
    std::fprintf(out,
                 "# Written by adacomp-calibrate %s (%s) on %s: %d ranks on %d node(s), data %s.\n"
                 "# Hosts: %s%s\n"
                 "# Error bound: %s\n"
                 "# Environment variables override these settings.\n"
                 "ADACOMP_MPI = %s\n"
                 "ADACOMP_MODE = %s\n"
                 "ADACOMP_THRESHOLD_LOSSLESS = %s\n",
                 ADACOMP_VERSION, ADACOMP_MPI_BUILT_FOR, when, size,
                 *std::max_element(node.begin(), node.end()) + 1,
                 data_file.empty() ? "built-in heat field" : data_file.c_str(), hosts.list.c_str(),
                 hosts.distinct == 1 ? " -- ONE HOST: shared memory, not the network" : "",
                 have_bound ? (bound_used + ", lossy tiers measured with it (not set here: "
                                            "lossy compression stays each job's choice)").c_str()
                            : "none (ADACOMP_ERROR_BOUND and ADACOMP_REL_ERROR_BOUND unset), "
                              "so no lossy tier was measured",
                 ADACOMP_MPI_FLAVOR, best_i[2] < ns ? "pipelined" : "adaptive",
                 threshold_text(best_i[0]).c_str());
    if (have_bound)
      std::fprintf(out, "ADACOMP_THRESHOLD_LOSSY = %s\n", threshold_text(best_i[1]).c_str());
    std::fprintf(out, "ADACOMP_THRESHOLD_PIPELINE = %s\n# Where each operation alone would start "
                 "each tier:\n%s", threshold_text(best_i[2]).c_str(), per_op.c_str());
    if (inter_b >= 0)
      std::fprintf(out, "ADACOMP_LINK_BANDWIDTH = %.6g\nADACOMP_LINK_LATENCY = %.6g\n",
                   inter.bandwidth, inter.latency);
    if (intra_b >= 0)
      std::fprintf(out, "ADACOMP_INTRA_BANDWIDTH = %.6g\nADACOMP_INTRA_LATENCY = %.6g\n",
                   intra.bandwidth, intra.latency);
    std::fprintf(out,
                 "# Codec speed on one core (MB/s compress / decompress, ratio):\n%s"
                 "# Every measurement: %s\n",
                 speeds.c_str(), csv_path.c_str());
    std::fclose(out);
    std::fprintf(stderr, "[calibrate] thresholds: lossless from %s%s, pipelined from %s; "
                 "wrote %s and %s\n", label(best_i[0]).c_str(),
                 have_bound ? (", lossy from " + label(best_i[1])).c_str() : "",
                 label(best_i[2]).c_str(), out_path.c_str(), csv_path.c_str());
  }
  if (csv) std::fclose(csv);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
