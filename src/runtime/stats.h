// Statistics at the MPI boundary: the per-operation counters
// (runtime/op_stats.h), the time inside each intercepted call, and their sum
// over ranks at MPI_Finalize into a table (ADACOMP_VERBOSE) and JSON
// (ADACOMP_REPORT).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include <mpi.h>

#include "runtime/op_stats.h"

namespace adacomp {

// Time inside each intercepted C entry point (mpiP's "MPI time"), by call.
// Measured only when a report or the table is asked for (set_call_timing),
// so the default path pays one relaxed load.
// The calls are those of src/interpose/mpi_calls.txt (tools/gen_entries.py).
enum CallId : int {
#define ADACOMP_CALL(Name) call_##Name,
#include "adacomp_calls.h"
#undef ADACOMP_CALL
  kCallCount
};
const char* call_name(CallId id);  // "Allreduce", as in MPI_Allreduce

// Message-size classes of the call histograms: 0 bytes, then [2^(k-1), 2^k).
constexpr int kSizeClasses = 42;

struct CallTimes {
  std::atomic<bool> on{false};
  std::atomic<uint64_t> calls[kCallCount] = {};
  std::atomic<uint64_t> ns[kCallCount] = {};
  // By size class, for calls with one payload (count and datatype).
  std::atomic<uint64_t> sized_calls[kCallCount][kSizeClasses] = {};
  std::atomic<uint64_t> sized_ns[kCallCount][kSizeClasses] = {};
};
extern CallTimes g_call_times;
inline void set_call_timing(bool on) { g_call_times.on.store(on, std::memory_order_relaxed); }
// Adds one call of `ns`; bytes < 0: no single payload size.
void record_call(CallId id, uint64_t ns, long long bytes);

class CallClock {
 public:
  explicit CallClock(CallId id) : id_(id), on_(g_call_times.on.load(std::memory_order_relaxed)) {
    if (on_) start_ = std::chrono::steady_clock::now();
  }
  // bytes() gives the call's payload size or -1; asked only when timing,
  // and only after the call succeeded, so its arguments are known valid.
  template <typename Bytes>
  void stop(int rc, Bytes&& bytes) {
    if (!on_) return;
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now() - start_).count();
    record_call(id_, static_cast<uint64_t>(ns), rc == MPI_SUCCESS ? bytes() : -1);
  }
  CallClock(const CallClock&) = delete;
  CallClock& operator=(const CallClock&) = delete;

 private:
  CallId id_;
  bool on_;
  std::chrono::steady_clock::time_point start_;
};

// Collective over world at MPI_Finalize: reduces every rank's counters (sum,
// min, max) to rank 0, which prints the table when verbose and writes the
// JSON report (runtime/report.h) to report_path, already expanded, when it
// is non-empty.
void report_stats(MPI_Comm world, int verbose, const std::string& report_path);

}  // namespace adacomp
