#include "report/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "report/report.h"
#include "report/sites.h"
#include "runtime/runtime.h"

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
// max) carry them all: per region and operation its counters and codec
// time, per call its count, time and bytes, its size histogram, the pass
// reasons, then the rank's wall and MPI time.
constexpr int f_ns_codec = kOpCounters, kOpFields = kOpCounters + 1;
constexpr int kCallBase = kRegions * kOps * kOpFields;
constexpr int kCallFields = 3;
constexpr int kSizeBase = kCallBase + kCallFields * kCallCount;
constexpr int kPassBase = kSizeBase + 2 * kCallCount * kSizeClasses;
constexpr int kRankBase = kPassBase + kPassReasons;
constexpr int kValues = kRankBase + 2;

std::atomic<uint64_t> g_passes[kPassReasons] = {};
std::mutex g_settled_mu;
std::vector<Settled> g_settled;

std::vector<uint64_t> local_values() {
  std::vector<uint64_t> v(kValues);
  for (int g = 0; g < kRegions; ++g)
    for (int i = 0; i < kOps; ++i) {
      const OpStats& s = stats_in(g, static_cast<OpKind>(i));
      uint64_t* o = &v[(g * kOps + i) * kOpFields];
      for (int c = 0; c < kOpCounters; ++c) o[c] = s.value(static_cast<OpCounter>(c));
      o[f_ns_codec] = o[counter_ns_compress] + o[counter_ns_decompress];
    }
  uint64_t mpi_ns = 0;
  for (int c = 0; c < kCallCount; ++c) {
    v[kCallBase + kCallFields * c] = g_call_times.calls[c];
    v[kCallBase + kCallFields * c + 1] = g_call_times.ns[c];
    v[kCallBase + kCallFields * c + 2] = g_call_times.bytes[c];
    mpi_ns += g_call_times.ns[c];
    for (int k = 0; k < kSizeClasses; ++k) {
      v[kSizeBase + 2 * (c * kSizeClasses + k)] = g_call_times.sized_calls[c][k];
      v[kSizeBase + 2 * (c * kSizeClasses + k) + 1] = g_call_times.sized_ns[c][k];
    }
  }
  for (int p = 0; p < kPassReasons; ++p) v[kPassBase + p] = g_passes[p];
  v[kRankBase] = static_cast<uint64_t>((PMPI_Wtime() - report_start_wtime()) * 1e9);
  v[kRankBase + 1] = mpi_ns;
  return v;
}

// This rank's row of the per-rank table, from its own values.
RankRow rank_row(const std::vector<uint64_t>& v, const LinkFigures& link) {
  RankRow r;
  r.wall = v[kRankBase] * 1e-9;
  r.mpi = v[kRankBase + 1] * 1e-9;
  for (int c = 0; c < kCallCount; ++c) {
    r.calls += v[kCallBase + kCallFields * c];
    r.bytes += v[kCallBase + kCallFields * c + 2];
  }
  uint64_t raw = 0, wire = 0, codec = 0;
  for (int g = 0; g < kRegions; ++g)
    for (int i = 0; i < kOps; ++i) {
      const uint64_t* o = &v[(g * kOps + i) * kOpFields];
      raw += o[counter_bytes_in], wire += o[counter_bytes_wire], codec += o[f_ns_codec];
    }
  r.wire = static_cast<double>(wire);
  r.saved = saved_seconds(link, raw, wire, codec);
  return r;
}

}  // namespace

CallTimes g_call_times;

void record_call(CallId id, void* site, uint64_t ns, long long bytes, const ThreadTally& coded,
                 const MPI_Request* persistent) {
  g_call_times.calls[id].fetch_add(1, std::memory_order_relaxed);
  g_call_times.ns[id].fetch_add(ns, std::memory_order_relaxed);
  record_site(id, site, ns, bytes, coded, persistent);
  if (bytes < 0) return;
  if (!persistent)  // else counted at each start
    g_call_times.bytes[id].fetch_add(static_cast<uint64_t>(bytes), std::memory_order_relaxed);
  const int k = size_class(static_cast<size_t>(bytes));
  g_call_times.sized_calls[id][k].fetch_add(1, std::memory_order_relaxed);
  g_call_times.sized_ns[id][k].fetch_add(ns, std::memory_order_relaxed);
}

const char* call_name(CallId id) { return kCallNames[id]; }

void note_pass(PassReason why) {
  if (g_call_times.on.load(std::memory_order_relaxed))
    g_passes[static_cast<int>(why)].fetch_add(1, std::memory_order_relaxed);
}

namespace {

// The plans ADACOMP_VERBOSE=2 printed: one line per operation, size class
// and outcome, so a run of millions of calls prints a few dozen.
struct PlanSeen {
  OpKind op;
  int size_class;
  bool coded;
  PassReason reason;
  Tier tier;
  Layout layout;
  bool pipelined;
  bool operator==(const PlanSeen& o) const {
    return op == o.op && size_class == o.size_class && coded == o.coded && reason == o.reason &&
           tier == o.tier && layout == o.layout && pipelined == o.pipelined;
  }
};
std::mutex g_plans_mu;
std::vector<PlanSeen> g_plans_seen;

void print_plan_once(OpKind op, const Plan& p) {
  const PlanSeen seen{op, size_class(p.bytes), p.coded, p.reason, p.tier.tier, p.layout,
                      p.tier.pipelined};
  {
    std::lock_guard<std::mutex> g(g_plans_mu);
    if (std::find(g_plans_seen.begin(), g_plans_seen.end(), seen) != g_plans_seen.end()) return;
    g_plans_seen.push_back(seen);
  }
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!p.coded) {
    std::fprintf(stderr, "adacomp: plan: rank %d: %s of %zu bytes: passed through, %s\n", rank,
                 op_name(op), p.bytes, pass_words(p.reason));
    return;
  }
  static const char* const kTiers[] = {"raw", "lossless", "lossy"};
  std::fprintf(stderr,
               "adacomp: plan: rank %d: %s of %zu bytes: coded %s with %s, %s, %d chunk(s), "
               "%d segment(s)%s\n",
               rank, op_name(op), p.bytes, kTiers[static_cast<int>(p.tier.tier)],
               p.codec ? p.codec->name : "?", layout_name(p.layout), p.chunks, p.segments,
               p.adaptive ? ", chosen by the runtime model" : "");
}

}  // namespace

void note_plan(OpKind op, const Plan& p) {
  if (!p.coded && p.counted) note_pass(p.reason);
  if (config().verbose >= 2 && (p.coded || p.counted)) print_plan_once(op, p);
}

void note_settled(OpKind op, size_t class_bytes, const char* codec, const char* path) {
  if (!g_call_times.on.load(std::memory_order_relaxed)) return;
  std::lock_guard<std::mutex> g(g_settled_mu);
  for (const Settled& s : g_settled)
    if (s.op == op && s.class_bytes == class_bytes && s.codec == codec && s.path == path) return;
  g_settled.push_back({op, class_bytes, codec, path});
}

void report_stats(MPI_Comm world, int verbose, const std::string& report_path) {
  int rank, size;
  PMPI_Comm_rank(world, &rank);
  PMPI_Comm_size(world, &size);
  const LinkFigures link = report_link();
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
  const RankRow row = rank_row(mine, link);
  const double my_row[kRankFields] = {row.wall, row.mpi, row.calls, row.bytes, row.wire, row.saved};
  std::vector<double> rows(rank == 0 ? size_t(size) * kRankFields : 1);
  PMPI_Gather(my_row, kRankFields, MPI_DOUBLE, rows.data(), kRankFields, MPI_DOUBLE, 0, world);
  std::vector<SiteRow> sites = gather_sites(world);
  if (rank != 0) return;

  ReportData d;
  d.ranks = size;
  d.nodes = job_nodes();
  d.link = link;
  d.sites = std::move(sites);
  for (int r = 0; r < size; ++r) {
    d.hosts.emplace_back(&hosts[size_t(r) * MPI_MAX_PROCESSOR_NAME]);
    const double* f = &rows[size_t(r) * kRankFields];
    d.rank_rows.push_back({f[0], f[1], f[2], f[3], f[4], f[5]});
  }
  auto range = [&](int i, double scale) {
    return RankRange{lo[i] * scale, sum[i] * scale / size, hi[i] * scale};
  };
  d.wall_seconds = range(kRankBase, 1e-9);
  d.mpi_seconds = range(kRankBase + 1, 1e-9);
  // Per region; the spread over ranks is known for the regions' sum only.
  std::vector<uint64_t> total(kOps * kOpFields);
  for (int g = 0; g < kRegions; ++g) {
    Region region{g, {}};
    bool any = false;
    for (int i = 0; i < kOps; ++i) {
      const int b = (g * kOps + i) * kOpFields;
      OpRow op{op_name(static_cast<OpKind>(i)),
               {},
               range(b + counter_calls, 1),
               range(b + counter_bytes_wire, 1),
               range(b + f_ns_codec, 1e-9)};
      std::copy(&sum[b], &sum[b + kOpCounters], op.counters);
      for (int c = 0; c < kOpFields; ++c) total[i * kOpFields + c] += sum[b + c];
      any = any || op.counters[counter_calls] > 0;
      region.ops.push_back(op);
    }
    if (any) d.regions.push_back(region);
  }
  for (int i = 0; i < kOps; ++i) {
    // The ranges of the sum over regions: exact with one region, else the
    // regions' own spreads added (an upper bound of the spread).
    OpRow op{op_name(static_cast<OpKind>(i)), {}, {}, {}, {}};
    std::copy(&total[i * kOpFields], &total[i * kOpFields + kOpCounters], op.counters);
    for (int g = 0; g < kRegions; ++g) {
      const int b = (g * kOps + i) * kOpFields;
      for (auto [field, into] : {std::pair{b + counter_calls, &op.calls_per_rank},
                                 {b + counter_bytes_wire, &op.bytes_wire_per_rank},
                                 {b + f_ns_codec, &op.codec_seconds_per_rank}}) {
        const double scale = field == b + f_ns_codec ? 1e-9 : 1;
        const RankRange r = range(field, scale);
        into->min += r.min, into->mean += r.mean, into->max += r.max;
      }
    }
    d.ops.push_back(op);
  }
  for (int c = 0; c < kCallCount; ++c) {
    const int b = kCallBase + kCallFields * c;
    if (sum[b] == 0) continue;
    CallRow row{kCallNames[c], sum[b], sum[b + 1] * 1e-9, range(b + 1, 1e-9), {}};
    for (int k = 0; k < kSizeClasses; ++k) {
      const int z = kSizeBase + 2 * (c * kSizeClasses + k);
      if (sum[z]) row.sizes.push_back({class_bytes(k), sum[z], sum[z + 1] * 1e-9});
    }
    d.calls.push_back(row);
  }
  for (int p = 0; p < kPassReasons; ++p) d.passes[p] = sum[kPassBase + p];
  {
    std::lock_guard<std::mutex> g(g_settled_mu);
    d.settled = g_settled;
  }
  print_report(d, verbose);
  std::string error;
  if (!report_path.empty() && !write_report(report_path, d, &error))
    std::fprintf(stderr, "adacomp: %s\n", error.c_str());
}

}  // namespace adacomp
