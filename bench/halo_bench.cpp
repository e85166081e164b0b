// adacomp-bench-halo: the halo exchange of a time-stepping code (one
// MPI_Sendrecv per step between rank pairs) under three variants side by
// side in one run, interleaved step by step so that each sees the same data
// and the same link conditions:
//   raw       plain MPI (AdaComp tier override "raw")
//   lossless  AdaComp lossless, inter-step coding off
//   interstep AdaComp lossless, inter-step coding on (XOR with the previous message)
//   hinted    AdaComp lossy, on a communicator hinted adacomp_rel_error_bound
//             (--bound, default 1e-4; docs/lossy-scopes.md)
// Each variant exchanges on its own tag, so each has its own channel. Every
// received message is compared with what the peer generated: bit for bit,
// and the hinted one element by element within the bound of the message's
// own value range.
//
//   mpirun -np 2 adacomp-bench-halo [--bytes 4M] [--steps 24] [--bound 1e-4] [--csv FILE]
//
// Data sets: drift (particle coordinates moving a little each step: no
// spatial correlation, strong temporal), heat (a diffusing 2-D field:
// strong spatial correlation, which the value predictor already uses), and
// patch (incompressible values of which one block changes per step).
// Exits non-zero if any message is wrong.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "adacomp.h"
#include "harness/harness.h"

namespace {

// One rank's message at every step of one data set.
class Series {
 public:
  Series(const std::string& kind, size_t n, int seed) : kind_(kind), v_(n), aux_(n) {
    std::mt19937_64 rng(1000 + seed);
    std::uniform_real_distribution<double> u(0.0, 100.0);
    std::normal_distribution<double> g(0.0, 1.0);
    if (kind == "drift") {
      for (size_t i = 0; i < n; ++i) v_[i] = u(rng), aux_[i] = g(rng);
    } else if (kind == "heat") {
      cols_ = 512;
      rows_ = n / cols_;
      for (size_t i = 0; i < n; ++i) {
        double x = double(i % cols_) / cols_, y = double(i / cols_) / rows_;
        v_[i] = 20 + 300 * std::exp(-((x - 0.3) * (x - 0.3) + (y - 0.4) * (y - 0.4)) / 0.01) +
                seed + 0.5 * g(rng);
      }
    } else {
      for (size_t i = 0; i < n; ++i) v_[i] = u(rng);
    }
    rng_.seed(2000 + seed);
  }
  const std::vector<double>& at_step(int step) {
    const size_t n = v_.size();
    if (kind_ == "drift") {
      out_.resize(n);
      for (size_t i = 0; i < n; ++i) out_[i] = v_[i] + 1e-3 * step * aux_[i];
      return out_;
    }
    if (step > 0 && kind_ == "heat") {
      // One explicit diffusion step (r = 0.2) on the interior.
      aux_ = v_;
      for (size_t r = 1; r + 1 < rows_; ++r)
        for (size_t c = 1; c + 1 < cols_; ++c) {
          size_t i = r * cols_ + c;
          v_[i] = aux_[i] + 0.2 * (aux_[i - 1] + aux_[i + 1] + aux_[i - cols_] + aux_[i + cols_] -
                                   4 * aux_[i]);
        }
    } else if (step > 0) {
      // One block of 1/32 of the values changes.
      std::uniform_real_distribution<double> u(0.0, 100.0);
      const size_t block = n / 32, start = (step * 7 % 32) * block;
      for (size_t i = start; i < start + block; ++i) v_[i] = u(rng_);
    }
    return v_;
  }

 private:
  std::string kind_;
  std::vector<double> v_, aux_, out_;
  size_t rows_ = 0, cols_ = 0;
  std::mt19937_64 rng_;
};

struct Variant {
  const char* name;
  const char* tier;
  int interstep_on;
  int tag;
  bool hinted;  // on the hinted communicator
};

// Whether every element of `got` is within `rel` of the range of `want`'s
// finite values, NaN and Inf exactly.
bool within_bound(const std::vector<double>& got, const std::vector<double>& want, double rel) {
  double lo = INFINITY, hi = -INFINITY;
  for (double x : want)
    if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
  const double bound = hi > lo ? rel * (hi - lo) : 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!std::isfinite(want[i])) {
      if (std::memcmp(&got[i], &want[i], sizeof(double)) != 0) return false;
    } else if (!(std::fabs(got[i] - want[i]) <= bound)) {
      return false;
    }
  }
  return true;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  size_t bytes = 4u << 20;
  int steps = 24;
  double rel_bound = 1e-4;
  std::string csv_path;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--bytes" && harness::parse_size(argv[i + 1], &bytes)) continue;
    if (a == "--steps") {
      steps = std::atoi(argv[i + 1]);
      continue;
    }
    if (a == "--bound" && std::atof(argv[i + 1]) > 0 && std::atof(argv[i + 1]) < 1) {
      rel_bound = std::atof(argv[i + 1]);
      continue;
    }
    if (a == "--csv") {
      csv_path = argv[i + 1];
      continue;
    }
    if (rank == 0) std::fprintf(stderr, "adacomp-bench-halo: bad argument %s\n", a.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (size % 2) {
    if (rank == 0) std::fprintf(stderr, "adacomp-bench-halo: needs an even number of ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int peer = rank ^ 1;
  const size_t n = bytes / sizeof(double);
  constexpr int kVariants = 4;
  const Variant variants[kVariants] = {{"raw", "raw", 0, 10, false},
                                       {"lossless", "lossless", 0, 11, false},
                                       {"interstep", "lossless", 1, 12, false},
                                       {"hinted", "lossy", 0, 13, true}};
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "adacomp_rel_error_bound", std::to_string(rel_bound).c_str());
  MPI_Comm halo;
  MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &halo);
  MPI_Info_free(&info);
  FILE* csv = nullptr;
  if (rank == 0 && !csv_path.empty()) {
    csv = std::fopen(csv_path.c_str(), "w");
    if (csv)
      std::fprintf(
          csv, "data,variant,bytes,steps,median_ms,ratio,wire_bytes,interstep_fraction,speedup_vs_raw,ok\n");
  }
  if (rank == 0)
    std::printf(
        "halo exchange, %d ranks, %s per message, %d steps; median step time, "
        "max over ranks; hinted: rel bound %g\n%-6s %-9s %10s %7s %12s %6s %8s %s\n",
        size, harness::size_label(bytes).c_str(), steps, rel_bound, "data", "variant", "ms",
        "ratio", "wire B/msg", "istep", "vs raw", "check");
  bool all_ok = true;
  for (const char* kind : {"drift", "heat", "patch"}) {
    Series mine(kind, n, rank), theirs(kind, n, peer);
    std::vector<std::vector<double>> times(kVariants);
    std::vector<unsigned long long> in(kVariants), wire(kVariants), intersteps(kVariants),
        sends(kVariants);
    std::vector<char> ok(kVariants, 1);
    std::vector<double> recv(n);
    for (int step = 0; step < steps; ++step) {
      const std::vector<double>& out = mine.at_step(step);
      const std::vector<double>& expect = theirs.at_step(step);
      for (int v = 0; v < kVariants; ++v) {
        adacomp_override_tier(variants[v].tier);
        adacomp_override_interstep(variants[v].interstep_on);
        adacomp_op_stats before{}, after{};
        adacomp_get_stats("send", &before);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_Sendrecv(out.data(), static_cast<int>(n), MPI_DOUBLE, peer, variants[v].tag,
                     recv.data(), static_cast<int>(n), MPI_DOUBLE, peer, variants[v].tag,
                     variants[v].hinted ? halo : MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double dt = MPI_Wtime() - t0, slowest = 0;
        MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        adacomp_get_stats("send", &after);
        times[v].push_back(slowest);
        in[v] += after.compressed_calls > before.compressed_calls ? after.bytes_in - before.bytes_in
                                                                  : bytes;
        wire[v] += after.compressed_calls > before.compressed_calls
                       ? after.bytes_wire - before.bytes_wire
                       : bytes;
        intersteps[v] += after.interstep_calls - before.interstep_calls;
        sends[v] += 1;
        if (variants[v].hinted ? !within_bound(recv, expect, rel_bound)
                               : std::memcmp(recv.data(), expect.data(), bytes) != 0)
          ok[v] = 0;
      }
    }
    adacomp_override_tier(nullptr);
    adacomp_override_interstep(-1);
    for (int v = 0; v < kVariants; ++v) {
      int good = ok[v], all_good = 0;
      MPI_Allreduce(&good, &all_good, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      all_ok = all_ok && all_good;
      unsigned long long local[3] = {in[v], wire[v], intersteps[v]}, total[3];
      MPI_Reduce(local, total, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
      if (rank != 0) continue;
      const double ms = median(times[v]) * 1e3, raw_ms = median(times[0]) * 1e3;
      const double ratio = total[1] ? double(total[0]) / total[1] : 0;
      const double interstep_frac = double(total[2]) / (sends[v] * size);
      const char* check = !all_good ? "WRONG" : variants[v].hinted ? "within bound" : "bit-exact";
      const double wire_per_step = double(total[1]) / (sends[v] * size);
      std::printf("%-6s %-9s %10.2f %7.3f %12.0f %5.0f%% %7.2fx %s\n", kind, variants[v].name, ms,
                  ratio, wire_per_step, 100 * interstep_frac, raw_ms / ms, check);
      if (csv)
        std::fprintf(csv, "%s,%s,%zu,%d,%.4f,%.4f,%.0f,%.3f,%.4f,%d\n", kind, variants[v].name,
                     bytes, steps, ms, ratio, wire_per_step, interstep_frac, raw_ms / ms, all_good);
    }
  }
  if (csv) std::fclose(csv);
  MPI_Comm_free(&halo);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
