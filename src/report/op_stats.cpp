#include "report/op_stats.h"

namespace adacomp {
namespace {

constexpr int kOps = static_cast<int>(OpKind::kCount);
OpStats g_stats[kRegions][kOps];
std::atomic<int> g_region{1};

constexpr std::atomic<uint64_t> OpStats::*kMembers[kOpCounters] = {
#define ADACOMP_X(member, key, heading, width, unit) &OpStats::member,
    ADACOMP_OP_COUNTERS(ADACOMP_X)
#undef ADACOMP_X
};

}  // namespace

uint64_t OpStats::value(OpCounter c) const {
  return (this->*kMembers[c]).load(std::memory_order_relaxed);
}


void set_stats_region(int region) { g_region.store(region, std::memory_order_relaxed); }
OpStats& stats_for(OpKind op) {
  return g_stats[g_region.load(std::memory_order_relaxed)][static_cast<int>(op)];
}
const OpStats& stats_in(int region, OpKind op) { return g_stats[region][static_cast<int>(op)]; }
uint64_t op_total(OpKind op, OpCounter c) {
  uint64_t sum = 0;
  for (int r = 0; r < kRegions; ++r) sum += stats_in(r, op).value(c);
  return sum;
}

}  // namespace adacomp
