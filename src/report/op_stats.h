// Per-operation counters: plain data, no MPI. Updated lock-free from any
// thread; report/stats.h sums them over ranks at MPI_Finalize into the
// table (ADACOMP_VERBOSE) and the JSON report (ADACOMP_REPORT).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "decision/operation.h"

namespace adacomp {

const char* op_name(OpKind op);  // "allreduce": report keys

// The name after "MPI_" of the call the application made ("Allreduce",
// "Iallreduce", "Allreduce_init"): what its error messages name.
std::string call_name(OpKind op, CallForm form);

// The one list of an operation's counters, in the order the table and the
// JSON report show them: member, JSON key, table heading, table width, unit
// (times are counted in nanoseconds and shown in seconds). Both outputs put
// the ratio bytes_in / bytes_wire between the counts and the times.
#define ADACOMP_OP_COUNTERS(X)                                                                   \
  X(calls, "calls", "calls", 10, count)                                                          \
  X(compressed_calls, "compressed_calls", "compressed", 10, count)                               \
  X(lossy_calls, "lossy_calls", "lossy", 8, count)             /* of compressed */               \
  X(pipelined_calls, "pipelined_calls", "pipelined", 9, count) /* of compressed */               \
  X(interstep_calls, "xor_calls", "xor", 8, count)             /* of compressed: inter-step */   \
  X(bytes_in, "bytes_in", "bytes_in", 14, count)               /* payload given to the codecs */ \
  X(bytes_wire, "bytes_wire", "bytes_wire", 14, count)         /* frame bytes sent */            \
  X(ns_compress, "seconds_compress", "comp_s", 10, nanoseconds)                                  \
  X(ns_decompress, "seconds_decompress", "decomp_s", 10, nanoseconds)

enum OpCounter : int {
#define ADACOMP_X(member, key, heading, width, unit) counter_##member,
  ADACOMP_OP_COUNTERS(ADACOMP_X)
#undef ADACOMP_X
      kOpCounters
};

enum class CounterUnit : uint8_t { count, nanoseconds };
struct OpCounterInfo {
  const char* key;
  const char* heading;
  int width;
  CounterUnit unit;
};
inline constexpr OpCounterInfo kOpCounterInfo[kOpCounters] = {
#define ADACOMP_X(member, key, heading, width, unit) {key, heading, width, CounterUnit::unit},
    ADACOMP_OP_COUNTERS(ADACOMP_X)
#undef ADACOMP_X
};

struct OpStats {
#define ADACOMP_X(member, key, heading, width, unit) std::atomic<uint64_t> member{0};
  ADACOMP_OP_COUNTERS(ADACOMP_X)
#undef ADACOMP_X
  uint64_t value(OpCounter c) const;
};

// MPI_Pcontrol regions: the counters are kept per coding level, 0 (coding
// switched off) and 1 (on; MPI_Pcontrol levels above 1 count as 1).
constexpr int kRegions = 2;
// The region the counters of new calls go to (set by MPI_Pcontrol).
void set_stats_region(int region);
// The current region's counters of `op`.
OpStats& stats_for(OpKind op);
const OpStats& stats_in(int region, OpKind op);
// A counter of `op` summed over the regions.
uint64_t op_total(OpKind op, OpCounter c);

// What this thread's coding did so far: the report's call sites take the
// difference over each call (report/sites.h).
// (No initialisers: a call clock that is off leaves its copy unset.)
struct ThreadTally {
  uint64_t raw, wire;  // payload bytes coded, and their frame bytes sent
  uint64_t codec_ns;   // coding and decoding
};
inline thread_local ThreadTally t_tally{};

// Times a codec's scope and adds the elapsed nanoseconds to a shared counter,
// this thread's tally and, optionally, a local counter.
class ScopedTimer {
 public:
  explicit ScopedTimer(std::atomic<uint64_t>& sink, uint64_t* local = nullptr)
      : sink_(sink), local_(local), start_(std::chrono::steady_clock::now()) {}
  ~ScopedTimer() {
    auto ns = static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now() - start_)
                                        .count());
    sink_.fetch_add(ns, std::memory_order_relaxed);
    t_tally.codec_ns += ns;
    if (local_) *local_ += ns;
  }
  ScopedTimer(const ScopedTimer&) = delete;
  ScopedTimer& operator=(const ScopedTimer&) = delete;

 private:
  std::atomic<uint64_t>& sink_;
  uint64_t* local_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace adacomp
