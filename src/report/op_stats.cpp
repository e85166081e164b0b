#include "report/op_stats.h"

namespace adacomp {
namespace {

constexpr int kOps = static_cast<int>(OpKind::kCount);
OpStats g_stats[kRegions][kOps];
std::atomic<int> g_region{1};

// In the order of enum OpKind: report key, and the name after "MPI_".
struct OpNames {
  const char* key;
  const char* display;
};
constexpr OpNames kOpNames[] = {
    {"allreduce", "Allreduce"},
    {"bcast", "Bcast"},
    {"reduce", "Reduce"},
    {"send", "Send"},
    {"recv", "Recv"},
    {"allgather", "Allgather"},
    {"allgatherv", "Allgatherv"},
    {"gather", "Gather"},
    {"gatherv", "Gatherv"},
    {"scatter", "Scatter"},
    {"scatterv", "Scatterv"},
    {"alltoall", "Alltoall"},
    {"alltoallv", "Alltoallv"},
    {"reduce_scatter", "Reduce_scatter"},
    {"reduce_scatter_block", "Reduce_scatter_block"},
};
static_assert(sizeof(kOpNames) / sizeof(kOpNames[0]) == kOps, "a name for every OpKind");

constexpr std::atomic<uint64_t> OpStats::*kMembers[kOpCounters] = {
#define ADACOMP_X(member, key, heading, width, unit) &OpStats::member,
    ADACOMP_OP_COUNTERS(ADACOMP_X)
#undef ADACOMP_X
};

}  // namespace

uint64_t OpStats::value(OpCounter c) const {
  return (this->*kMembers[c]).load(std::memory_order_relaxed);
}

const char* op_name(OpKind op) { return kOpNames[static_cast<int>(op)].key; }
std::string call_name(OpKind op, CallForm form) {
  const OpNames& n = kOpNames[static_cast<int>(op)];
  switch (form) {
    case CallForm::nonblocking:
      return std::string("I") + n.key;  // MPI_Iallreduce
    case CallForm::persistent:
      return std::string(n.display) + "_init";
    case CallForm::blocking:
      break;
  }
  return n.display;
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
