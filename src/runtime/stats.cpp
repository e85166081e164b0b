#include "runtime/stats.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/report.h"

namespace adacomp {
namespace {

constexpr int kOps = static_cast<int>(OpKind::kCount);

constexpr const char* kCallNames[] = {
#define ADACOMP_CALL(Name) #Name,
#include "adacomp_calls.h"
#undef ADACOMP_CALL
};
static_assert(sizeof(kCallNames) / sizeof(kCallNames[0]) == kCallCount, "a name for every call");

// One rank's figures, laid out flat so that three reductions (sum, min,
// max) carry them all: per operation its counters and codec time, per call
// its count and time, then the rank's wall and MPI time.
// Per operation: its counters (runtime/op_stats.h), then the codec time.
constexpr int f_ns_codec = kOpCounters, kOpFields = kOpCounters + 1;
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
    const OpStats& s = stats_for(static_cast<OpKind>(i));
    uint64_t* o = &v[i * kOpFields];
    for (int c = 0; c < kOpCounters; ++c) o[c] = s.value(static_cast<OpCounter>(c));
    o[f_ns_codec] = o[counter_ns_compress] + o[counter_ns_decompress];
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
  std::string head = "adacomp: statistics summed over ranks\n", row;
  char cell[64];
  auto add = [](std::string* line, const char* text) { *line += ' ', *line += text; };
  std::snprintf(cell, sizeof cell, "%-12s", "operation");
  head += cell;
  for (int c = 0; c < kOpCounters; ++c) {
    const OpCounterInfo& f = kOpCounterInfo[c];
    if (c == counter_ns_compress) add(&head, "  ratio");
    std::snprintf(cell, sizeof cell, "%*s", f.width, f.heading);
    add(&head, cell);
  }
  std::fprintf(stderr, "%s\n", head.c_str());
  for (const OpRow& r : d.ops) {
    if (r.counters[counter_calls] == 0) continue;
    std::snprintf(cell, sizeof cell, "%-12s", r.key);
    row = cell;
    for (int c = 0; c < kOpCounters; ++c) {
      const OpCounterInfo& f = kOpCounterInfo[c];
      if (c == counter_ns_compress) {
        std::snprintf(cell, sizeof cell, "%7.3f", r.ratio());
        add(&row, cell);
      }
      if (f.unit == CounterUnit::count)
        std::snprintf(cell, sizeof cell, "%*llu", f.width, (unsigned long long)r.counters[c]);
      else
        std::snprintf(cell, sizeof cell, "%*.4f", f.width, r.counters[c] * 1e-9);
      add(&row, cell);
    }
    std::fprintf(stderr, "%s\n", row.c_str());
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

const char* call_name(CallId id) { return kCallNames[id]; }

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
    const int b = i * kOpFields;
    OpRow row{op_name(static_cast<OpKind>(i)), {}, range(b + counter_calls, 1),
              range(b + counter_bytes_wire, 1), range(b + f_ns_codec, 1e-9)};
    std::copy(&sum[b], &sum[b + kOpCounters], row.counters);
    d.ops.push_back(row);
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
