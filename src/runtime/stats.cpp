#include "runtime/stats.h"

#include <cstdio>

namespace adacomp {
namespace {

constexpr int kOps = static_cast<int>(Op::kCount);
constexpr int kFields = 8;
OpStats g_stats[kOps];

}  // namespace

const char* op_name(Op op) {
  switch (op) {
    case Op::allreduce: return "allreduce";
    case Op::bcast: return "bcast";
    case Op::reduce: return "reduce";
    case Op::send: return "send";
    case Op::recv: return "recv";
    case Op::allgather: return "allgather";
    case Op::allgatherv: return "allgatherv";
    case Op::gather: return "gather";
    case Op::gatherv: return "gatherv";
    case Op::scatter: return "scatter";
    case Op::scatterv: return "scatterv";
    case Op::alltoall: return "alltoall";
    case Op::alltoallv: return "alltoallv";
    case Op::reduce_scatter: return "reduce_scatter";
    case Op::reduce_scatter_block: return "reduce_scatter_block";
    case Op::kCount: break;
  }
  return "?";
}

const char* op_display_name(Op op) {
  switch (op) {
    case Op::allreduce: return "Allreduce";
    case Op::bcast: return "Bcast";
    case Op::reduce: return "Reduce";
    case Op::send: return "Send";
    case Op::recv: return "Recv";
    case Op::allgather: return "Allgather";
    case Op::allgatherv: return "Allgatherv";
    case Op::gather: return "Gather";
    case Op::gatherv: return "Gatherv";
    case Op::scatter: return "Scatter";
    case Op::scatterv: return "Scatterv";
    case Op::alltoall: return "Alltoall";
    case Op::alltoallv: return "Alltoallv";
    case Op::reduce_scatter: return "Reduce_scatter";
    case Op::reduce_scatter_block: return "Reduce_scatter_block";
    case Op::kCount: break;
  }
  return "?";
}

OpStats& stats_for(Op op) { return g_stats[static_cast<int>(op)]; }

void report_stats(MPI_Comm world, int verbose, const char* report_path) {
  uint64_t local[kOps][kFields], total[kOps][kFields];
  for (int i = 0; i < kOps; ++i) {
    const OpStats& s = g_stats[i];
    const uint64_t v[kFields] = {s.calls,      s.compressed_calls, s.bytes_in,
                                 s.bytes_wire, s.ns_compress,      s.ns_decompress,
                                 s.lossy_calls, s.pipelined_calls};
    for (int f = 0; f < kFields; ++f) local[i][f] = v[f];
  }
  PMPI_Reduce(local, total, kOps * kFields, MPI_UINT64_T, MPI_SUM, 0, world);
  int rank;
  PMPI_Comm_rank(world, &rank);
  if (rank != 0) return;

  if (verbose) {
    std::fprintf(stderr,
                 "adacomp: statistics summed over ranks\n"
                 "%-12s %10s %10s %8s %9s %14s %14s %7s %10s %10s\n",
                 "operation", "calls", "compressed", "lossy", "pipelined", "bytes_in",
                 "bytes_wire", "ratio", "comp_s", "decomp_s");
    for (int i = 0; i < kOps; ++i) {
      const uint64_t* t = total[i];
      if (t[0] == 0) continue;
      double ratio = t[3] ? static_cast<double>(t[2]) / t[3] : 0.0;
      std::fprintf(stderr, "%-12s %10llu %10llu %8llu %9llu %14llu %14llu %7.3f %10.4f %10.4f\n",
                   op_name(static_cast<Op>(i)), (unsigned long long)t[0],
                   (unsigned long long)t[1], (unsigned long long)t[6],
                   (unsigned long long)t[7], (unsigned long long)t[2],
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
                   "\"lossy_calls\": %llu, \"pipelined_calls\": %llu, "
                   "\"bytes_in\": %llu, \"bytes_wire\": %llu, \"ratio\": %.6f, "
                   "\"seconds_compress\": %.9f, \"seconds_decompress\": %.9f}%s\n",
                   op_name(static_cast<Op>(i)), (unsigned long long)t[0],
                   (unsigned long long)t[1], (unsigned long long)t[6],
                   (unsigned long long)t[7], (unsigned long long)t[2],
                   (unsigned long long)t[3], ratio, t[4] * 1e-9, t[5] * 1e-9,
                   i + 1 < kOps ? "," : "");
    }
    std::fprintf(f, "}\n");
    std::fclose(f);
  }
}

}  // namespace adacomp
