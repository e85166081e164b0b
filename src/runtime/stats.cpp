#include "runtime/stats.h"

#include <cstdio>

namespace adacomp {
namespace {

constexpr int kOps = static_cast<int>(Op::kCount);
constexpr int kFields = 9;
OpStats g_stats[kOps];

// In the order of enum Op: report key, and the name after "MPI_".
struct OpNames {
  const char* key;
  const char* display;
};
constexpr OpNames kOpNames[] = {
    {"allreduce", "Allreduce"},   {"bcast", "Bcast"},
    {"reduce", "Reduce"},         {"send", "Send"},
    {"recv", "Recv"},             {"allgather", "Allgather"},
    {"allgatherv", "Allgatherv"}, {"gather", "Gather"},
    {"gatherv", "Gatherv"},       {"scatter", "Scatter"},
    {"scatterv", "Scatterv"},     {"alltoall", "Alltoall"},
    {"alltoallv", "Alltoallv"},   {"reduce_scatter", "Reduce_scatter"},
    {"reduce_scatter_block", "Reduce_scatter_block"},
};
static_assert(sizeof(kOpNames) / sizeof(kOpNames[0]) == kOps, "a name for every Op");

}  // namespace

const char* op_name(Op op) { return kOpNames[static_cast<int>(op)].key; }
const char* op_display_name(Op op) { return kOpNames[static_cast<int>(op)].display; }

OpStats& stats_for(Op op) { return g_stats[static_cast<int>(op)]; }

void report_stats(MPI_Comm world, int verbose, const char* report_path) {
  uint64_t local[kOps][kFields], total[kOps][kFields];
  for (int i = 0; i < kOps; ++i) {
    const OpStats& s = g_stats[i];
    const uint64_t v[kFields] = {s.calls,      s.compressed_calls, s.bytes_in,
                                 s.bytes_wire, s.ns_compress,      s.ns_decompress,
                                 s.lossy_calls, s.pipelined_calls, s.xor_calls};
    for (int f = 0; f < kFields; ++f) local[i][f] = v[f];
  }
  PMPI_Reduce(local, total, kOps * kFields, MPI_UINT64_T, MPI_SUM, 0, world);
  int rank;
  PMPI_Comm_rank(world, &rank);
  if (rank != 0) return;

  if (verbose) {
    std::fprintf(stderr,
                 "adacomp: statistics summed over ranks\n"
                 "%-12s %10s %10s %8s %9s %8s %14s %14s %7s %10s %10s\n",
                 "operation", "calls", "compressed", "lossy", "pipelined", "xor", "bytes_in",
                 "bytes_wire", "ratio", "comp_s", "decomp_s");
    for (int i = 0; i < kOps; ++i) {
      const uint64_t* t = total[i];
      if (t[0] == 0) continue;
      double ratio = t[3] ? static_cast<double>(t[2]) / t[3] : 0.0;
      std::fprintf(stderr,
                   "%-12s %10llu %10llu %8llu %9llu %8llu %14llu %14llu %7.3f %10.4f %10.4f\n",
                   op_name(static_cast<Op>(i)), (unsigned long long)t[0],
                   (unsigned long long)t[1], (unsigned long long)t[6],
                   (unsigned long long)t[7], (unsigned long long)t[8], (unsigned long long)t[2],
                   (unsigned long long)t[3], ratio, t[4] * 1e-9, t[5] * 1e-9);
    }
  }
  if (report_path && *report_path) {
    FILE* f = std::fopen(report_path, "w");
    if (!f) {
      std::fprintf(stderr, "adacomp: cannot write report '%s'\n", report_path);
      return;
    }
    std::fprintf(f, "{\n");
    for (int i = 0; i < kOps; ++i) {
      const uint64_t* t = total[i];
      double ratio = t[3] ? static_cast<double>(t[2]) / t[3] : 0.0;
      std::fprintf(f,
                   "  \"%s\": {\"calls\": %llu, \"compressed_calls\": %llu, "
                   "\"lossy_calls\": %llu, \"pipelined_calls\": %llu, \"xor_calls\": %llu, "
                   "\"bytes_in\": %llu, \"bytes_wire\": %llu, \"ratio\": %.6f, "
                   "\"seconds_compress\": %.9f, \"seconds_decompress\": %.9f}%s\n",
                   op_name(static_cast<Op>(i)), (unsigned long long)t[0],
                   (unsigned long long)t[1], (unsigned long long)t[6],
                   (unsigned long long)t[7], (unsigned long long)t[8], (unsigned long long)t[2],
                   (unsigned long long)t[3], ratio, t[4] * 1e-9, t[5] * 1e-9,
                   i + 1 < kOps ? "," : "");
    }
    std::fprintf(f, "}\n");
    std::fclose(f);
  }
}

}  // namespace adacomp
