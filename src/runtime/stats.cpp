#include "runtime/stats.h"

#include <cstdio>
#include <vector>

#include "runtime/report.h"

namespace adacomp {
namespace {

constexpr int kOps = static_cast<int>(Op::kCount);
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

constexpr const char* kCallNames[] = {
#define ADACOMP_CALL(Name) #Name,
#include "adacomp_calls.h"
#undef ADACOMP_CALL
};
static_assert(sizeof(kCallNames) / sizeof(kCallNames[0]) == kCallCount, "a name for every call");

// One rank's figures, laid out flat so that three reductions (sum, min,
// max) carry them all: per operation its counters and codec time, per call
// its count and time, then the rank's wall and MPI time.
enum OpField { f_calls, f_compressed, f_lossy, f_pipelined, f_xor, f_in, f_wire, f_ns_comp,
               f_ns_decomp, f_ns_codec, kOpFields };
constexpr int kCallBase = kOps * kOpFields;
constexpr int kSizeBase = kCallBase + 2 * kCallCount;
constexpr int kRankBase = kSizeBase + 2 * kCallCount * kSizeClasses;
constexpr int kValues = kRankBase + 2;

int size_class(long long bytes) {
  int k = 0;
  while (bytes > 0 && k + 1 < kSizeClasses) bytes >>= 1, ++k;
  return k;
}

std::vector<uint64_t> local_values() {
  std::vector<uint64_t> v(kValues);
  for (int i = 0; i < kOps; ++i) {
    const OpStats& s = g_stats[i];
    uint64_t* o = &v[i * kOpFields];
    o[f_calls] = s.calls, o[f_compressed] = s.compressed_calls, o[f_lossy] = s.lossy_calls;
    o[f_pipelined] = s.pipelined_calls, o[f_xor] = s.xor_calls, o[f_in] = s.bytes_in;
    o[f_wire] = s.bytes_wire, o[f_ns_comp] = s.ns_compress, o[f_ns_decomp] = s.ns_decompress;
    o[f_ns_codec] = o[f_ns_comp] + o[f_ns_decomp];
  }
  uint64_t mpi_ns = 0;
  for (int c = 0; c < kCallCount; ++c) {
    v[kCallBase + 2 * c] = g_call_times.calls[c];
    v[kCallBase + 2 * c + 1] = g_call_times.ns[c];
    mpi_ns += g_call_times.ns[c];
    for (int k = 0; k < kSizeClasses; ++k) {
      v[kSizeBase + 2 * (c * kSizeClasses + k)] = g_call_times.sized_calls[c][k];
      v[kSizeBase + 2 * (c * kSizeClasses + k) + 1] = g_call_times.sized_ns[c][k];
    }
  }
  v[kRankBase] = static_cast<uint64_t>((PMPI_Wtime() - report_start_wtime()) * 1e9);
  v[kRankBase + 1] = mpi_ns;
  return v;
}

void print_table(const ReportData& d) {
  std::fprintf(stderr,
               "adacomp: statistics summed over ranks\n"
               "%-12s %10s %10s %8s %9s %8s %14s %14s %7s %10s %10s\n",
               "operation", "calls", "compressed", "lossy", "pipelined", "xor", "bytes_in",
               "bytes_wire", "ratio", "comp_s", "decomp_s");
  for (const OpRow& r : d.ops) {
    if (r.calls == 0) continue;
    std::fprintf(stderr, "%-12s %10llu %10llu %8llu %9llu %8llu %14llu %14llu %7.3f %10.4f %10.4f\n",
                 r.key, (unsigned long long)r.calls, (unsigned long long)r.compressed_calls,
                 (unsigned long long)r.lossy_calls, (unsigned long long)r.pipelined_calls,
                 (unsigned long long)r.xor_calls, (unsigned long long)r.bytes_in,
                 (unsigned long long)r.bytes_wire,
                 r.bytes_wire ? double(r.bytes_in) / r.bytes_wire : 0.0, r.seconds_compress,
                 r.seconds_decompress);
  }
  std::fprintf(stderr,
               "adacomp: per rank, wall %.3f/%.3f/%.3f s, in intercepted MPI calls "
               "%.3f/%.3f/%.3f s (min/mean/max)\n",
               d.wall_seconds.min, d.wall_seconds.mean, d.wall_seconds.max, d.mpi_seconds.min,
               d.mpi_seconds.mean, d.mpi_seconds.max);
}

}  // namespace

CallTimes g_call_times;

void record_call(CallId id, uint64_t ns, long long bytes) {
  g_call_times.calls[id].fetch_add(1, std::memory_order_relaxed);
  g_call_times.ns[id].fetch_add(ns, std::memory_order_relaxed);
  if (bytes < 0) return;
  const int k = size_class(bytes);
  g_call_times.sized_calls[id][k].fetch_add(1, std::memory_order_relaxed);
  g_call_times.sized_ns[id][k].fetch_add(ns, std::memory_order_relaxed);
}

const char* op_name(Op op) { return kOpNames[static_cast<int>(op)].key; }
const char* op_display_name(Op op) { return kOpNames[static_cast<int>(op)].display; }
const char* call_name(CallId id) { return kCallNames[id]; }

OpStats& stats_for(Op op) { return g_stats[static_cast<int>(op)]; }

void report_stats(MPI_Comm world, int verbose, const std::string& report_path) {
  int rank, size;
  PMPI_Comm_rank(world, &rank);
  PMPI_Comm_size(world, &size);
  const std::vector<uint64_t> mine = local_values();
  std::vector<uint64_t> sum(kValues), lo(kValues), hi(kValues);
  PMPI_Reduce(mine.data(), sum.data(), kValues, MPI_UINT64_T, MPI_SUM, 0, world);
  PMPI_Reduce(mine.data(), lo.data(), kValues, MPI_UINT64_T, MPI_MIN, 0, world);
  PMPI_Reduce(mine.data(), hi.data(), kValues, MPI_UINT64_T, MPI_MAX, 0, world);
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  int len = 0;
  PMPI_Get_processor_name(host, &len);
  std::vector<char> hosts(rank == 0 ? size_t(size) * MPI_MAX_PROCESSOR_NAME : 1);
  PMPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, hosts.data(), MPI_MAX_PROCESSOR_NAME,
              MPI_CHAR, 0, world);
  if (rank != 0) return;

  ReportData d;
  d.ranks = size;
  for (int r = 0; r < size; ++r) d.hosts.emplace_back(&hosts[size_t(r) * MPI_MAX_PROCESSOR_NAME]);
  auto range = [&](int i, double scale) {
    return RankRange{lo[i] * scale, sum[i] * scale / size, hi[i] * scale};
  };
  d.wall_seconds = range(kRankBase, 1e-9);
  d.mpi_seconds = range(kRankBase + 1, 1e-9);
  for (int i = 0; i < kOps; ++i) {
    const uint64_t* t = &sum[i * kOpFields];
    const int b = i * kOpFields;
    d.ops.push_back({kOpNames[i].key, t[f_calls], t[f_compressed], t[f_lossy], t[f_pipelined],
                     t[f_xor], t[f_in], t[f_wire], t[f_ns_comp] * 1e-9, t[f_ns_decomp] * 1e-9,
                     range(b + f_calls, 1), range(b + f_wire, 1), range(b + f_ns_codec, 1e-9)});
  }
  for (int c = 0; c < kCallCount; ++c) {
    const int b = kCallBase + 2 * c;
    if (sum[b] == 0) continue;
    CallRow row{kCallNames[c], sum[b], sum[b + 1] * 1e-9, range(b + 1, 1e-9), {}};
    for (int k = 0; k < kSizeClasses; ++k) {
      const int z = kSizeBase + 2 * (c * kSizeClasses + k);
      if (sum[z]) row.sizes.push_back({k == 0 ? 0 : 1ull << (k - 1), sum[z], sum[z + 1] * 1e-9});
    }
    d.calls.push_back(row);
  }
  if (verbose) print_table(d);
  std::string error;
  if (!report_path.empty() && !write_report(report_path, d, &error))
    std::fprintf(stderr, "adacomp: %s\n", error.c_str());
}

}  // namespace adacomp
