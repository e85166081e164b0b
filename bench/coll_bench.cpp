// adacomp-bench: every collective at every size under every AdaComp mode,
// side by side in one run, each result checked against plain MPI.
//
//   mpirun -np N adacomp-bench [--ops allreduce,bcast,reduce] [--min 1K]
//       [--max 64M]
//       [--modes plain,default,raw,lossless,lossy,pipelined,adaptive,adaptive-pipelined]
//       [--type f64|f32] [--field heat2d|heat3d] [--data FILE]
//       [--budget SECONDS] [--label NAME] [--csv FILE]
//
// Modes: plain is PMPI itself (the library not involved); default is the
// configured policy (with no adacomp.conf: the adaptive default);
// raw/lossless/lossy/pipelined force that tier at every size; adaptive and
// adaptive-pipelined are the library's policies (modes 3 and 4) with the
// configured thresholds and runtime model. Ops: allreduce, bcast, reduce,
// allgather, alltoall, reduce_scatter (block), sendrecv (ring). Speedups are
// over plain when it is measured, else over raw. Lossy modes need
// ADACOMP_ERROR_BOUND or ADACOMP_REL_ERROR_BOUND. The data are doubles
// (f64, MPI_DOUBLE) or floats (f32, MPI_FLOAT) of a built-in field (heat2d,
// a 2-D plate; heat3d, a 3-D temperature field: harness.h), or --data's raw
// values of that type. Exits non-zero if any result is wrong.
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

struct Options {
  std::vector<std::string> ops = {"allreduce", "bcast", "reduce"};
  std::vector<std::string> modes = {"raw",       "lossless", "lossy",
                                    "pipelined", "adaptive", "adaptive-pipelined"};
  size_t min_bytes = 1024, max_bytes = 64u << 20;
  std::string data_file, label = "run";
  Field field = Field::heat2d;
  double budget = 0.5;
};

// Every op, size and mode on values of T; rank 0 prints the tables and
// writes csv. True if every result was correct.
template <typename T>
bool run_all(const Options& o, int rank, FILE* csv) {
  bool all_ok = true;
  for (const std::string& op_name : o.ops) {
    Coll op;
    if (!parse_coll(op_name, &op)) usage(("unknown op " + op_name).c_str());
    if (rank == 0) {
      std::printf("\n%s (%s): median ms per call, speedup in ()\n%8s", op_name.c_str(),
                  o.label.c_str(), "bytes");
      for (const auto& m : o.modes) std::printf(" %20s", m.c_str());
      std::printf("\n");
    }
    for (size_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2) {
      std::vector<T> data = sample_field<T>(bytes / sizeof(T), rank, o.data_file, o.field);
      const double bound = configured_bound(data, MPI_COMM_WORLD);
      Sample probe = measure(op, data, "raw", 1, bound, MPI_COMM_WORLD);
      const int iters = iterations_for(probe.median_s, o.budget, 5, 1000);
      std::map<std::string, Sample> results;
      const std::vector<Sample> samples =
          measure_modes(op, data, o.modes, iters, bound, MPI_COMM_WORLD);
      for (size_t m = 0; m < o.modes.size(); ++m) results[o.modes[m]] = samples[m];
      const double raw_s = results.count("plain") ? results["plain"].median_s
                           : results.count("raw") ? results["raw"].median_s
                                                  : probe.median_s;
      if (rank == 0) {
        std::printf("%8s", size_label(bytes).c_str());
        for (const auto& mode : o.modes) {
          const Sample& s = results[mode];
          char cell[64];
          std::snprintf(cell, sizeof cell, "%.3f (%.2fx)%s", s.median_s * 1e3, raw_s / s.median_s,
                        s.ok ? "" : " WRONG");
          std::printf(" %20s", cell);
          if (csv)
            std::fprintf(csv, "%s,%s,%s,%zu,%.9f,%.4f,%.6g,%.6g,%d\n", o.label.c_str(),
                         op_name.c_str(), mode.c_str(), bytes, s.median_s, raw_s / s.median_s,
                         s.max_err, bound, s.ok ? 1 : 0);
          all_ok = all_ok && s.ok;
        }
        std::printf("\n");
        std::fflush(stdout);
      }
    }
  }
  return all_ok;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Options o;
  std::string type = "f64", csv_path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(("missing value for " + a).c_str());
      return argv[++i];
    };
    if (a == "--ops")
      o.ops = split(value());
    else if (a == "--modes")
      o.modes = split(value());
    else if (a == "--min") {
      if (!parse_size(value(), &o.min_bytes)) usage("bad --min");
    } else if (a == "--max") {
      if (!parse_size(value(), &o.max_bytes)) usage("bad --max");
    } else if (a == "--type") {
      type = value();
      if (type != "f64" && type != "f32") usage("--type is f64 or f32");
    } else if (a == "--field") {
      if (!parse_field(value(), &o.field)) usage("--field is heat2d or heat3d");
    } else if (a == "--data")
      o.data_file = value();
    else if (a == "--budget")
      o.budget = std::atof(value().c_str());
    else if (a == "--label")
      o.label = value();
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
  const bool all_ok = type == "f32" ? run_all<float>(o, rank, csv) : run_all<double>(o, rank, csv);
  if (csv) std::fclose(csv);
  int ok = all_ok;
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) std::printf("\nresults %s\n", ok ? "all correct" : "WRONG: see WRONG cells");
  MPI_Finalize();
  return ok ? 0 : 1;
}
