// adacomp-bench: every collective at every size under every AdaComp mode,
// side by side in one run, each result checked against plain MPI.
//
//   mpirun -np N adacomp-bench [--ops allreduce,bcast,reduce] [--min 1K]
//       [--max 64M]
//       [--modes plain,default,raw,lossless,lossy,pipelined,adaptive,adaptive-pipelined]
//       [--data FILE] [--budget SECONDS] [--label NAME] [--csv FILE]
//
// Modes: plain is PMPI itself (the library not involved); default is the
// configured policy (with no adacomp.conf: the adaptive default);
// raw/lossless/lossy/pipelined force that tier at every size; adaptive and
// adaptive-pipelined are the library's policies (modes 3 and 4) with the
// configured thresholds and runtime model. Ops: allreduce, bcast, reduce,
// allgather, alltoall, reduce_scatter (block), sendrecv (ring). Speedups are
// over plain when it is measured, else over raw. Lossy modes need
// ADACOMP_ERROR_BOUND or ADACOMP_REL_ERROR_BOUND. Exits non-zero if any
// result is wrong.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "harness/harness.h"

using namespace harness;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "adacomp-bench: %s\n", why);
  MPI_Abort(MPI_COMM_WORLD, 2);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<std::string> ops = {"allreduce", "bcast", "reduce"};
  std::vector<std::string> modes = {"raw",       "lossless", "lossy",
                                    "pipelined", "adaptive", "adaptive-pipelined"};
  size_t min_bytes = 1024, max_bytes = 64u << 20;
  std::string data_file, label = "run", csv_path;
  double budget = 0.5;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value for " + a).c_str());
      return argv[++i];
    };
    if (a == "--ops")
      ops = split(value());
    else if (a == "--modes")
      modes = split(value());
    else if (a == "--min") {
      if (!parse_size(value(), &min_bytes)) usage("bad --min");
    } else if (a == "--max") {
      if (!parse_size(value(), &max_bytes)) usage("bad --max");
    } else if (a == "--data")
      data_file = value();
    else if (a == "--budget")
      budget = std::atof(value().c_str());
    else if (a == "--label")
      label = value();
    else if (a == "--csv")
      csv_path = value();
    else
      usage(("unknown argument " + a).c_str());
  }
  FILE* csv = nullptr;
  if (rank == 0 && !csv_path.empty()) {
    csv = std::fopen(csv_path.c_str(), "w");
    if (!csv) usage("cannot write --csv file");
    std::fprintf(csv, "label,op,mode,bytes,median_s,speedup_vs_raw,max_abs_err,bound,ok\n");
  }
  bool all_ok = true;
  for (const std::string& op_name : ops) {
    Coll op;
    if (!parse_coll(op_name, &op)) usage(("unknown op " + op_name).c_str());
    if (rank == 0) {
      std::printf("\n%s (%s): median ms per call, speedup in ()\n%8s", op_name.c_str(),
                  label.c_str(), "bytes");
      for (const auto& m : modes) std::printf(" %20s", m.c_str());
      std::printf("\n");
    }
    for (size_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
      std::vector<double> data = sample_field(bytes / sizeof(double), rank, data_file);
      const double bound = configured_bound(data, MPI_COMM_WORLD);
      Sample probe = measure(op, data, "raw", 1, bound, MPI_COMM_WORLD);
      const int iters = iterations_for(probe.median_s, budget, 5, 1000);
      std::map<std::string, Sample> results;
      const std::vector<Sample> samples =
          measure_modes(op, data, modes, iters, bound, MPI_COMM_WORLD);
      for (size_t m = 0; m < modes.size(); ++m) results[modes[m]] = samples[m];
      const double raw_s = results.count("plain") ? results["plain"].median_s
                           : results.count("raw") ? results["raw"].median_s
                                                  : probe.median_s;
      if (rank == 0) {
        std::printf("%8s", size_label(bytes).c_str());
        for (const auto& mode : modes) {
          const Sample& s = results[mode];
          char cell[64];
          std::snprintf(cell, sizeof cell, "%.3f (%.2fx)%s", s.median_s * 1e3, raw_s / s.median_s,
                        s.ok ? "" : " WRONG");
          std::printf(" %20s", cell);
          if (csv)
            std::fprintf(csv, "%s,%s,%s,%zu,%.9f,%.4f,%.6g,%.6g,%d\n", label.c_str(),
                         op_name.c_str(), mode.c_str(), bytes, s.median_s, raw_s / s.median_s,
                         s.max_err, bound, s.ok ? 1 : 0);
          all_ok = all_ok && s.ok;
        }
        std::printf("\n");
        std::fflush(stdout);
      }
    }
  }
  if (csv) std::fclose(csv);
  int ok = all_ok;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("\nresults %s\n", ok ? "all correct" : "WRONG: see WRONG cells");
  MPI_Finalize();
  return ok ? 0 : 1;
}
