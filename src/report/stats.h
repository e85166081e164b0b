// Statistics at the MPI boundary: the per-operation counters
// (report/op_stats.h), the time inside each intercepted call, and their sum
// over ranks at MPI_Finalize into a table (ADACOMP_VERBOSE) and JSON
// (ADACOMP_REPORT).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include <mpi.h>

#include "decision/budget.h"
#include "decision/plan.h"
#include "report/op_stats.h"
#include "decision/gate.h"
#include "decision/size_class.h"

namespace adacomp {

// Time inside each intercepted C entry point (mpiP's "MPI time"), by call.
// Measured only when a report or the table is asked for (set_call_timing),
// so the default path pays one relaxed load.
// The calls are those of src/boundary/mpi_calls.txt (tools/gen_entries.py).
enum CallId : int {
#define ADACOMP_CALL(Name) call_##Name,
#include "adacomp_calls.h"
#undef ADACOMP_CALL
  kCallCount
};
const char* call_name(CallId id);  // "Allreduce", as in MPI_Allreduce

struct CallTimes {
  std::atomic<bool> on{false};
  std::atomic<uint64_t> calls[kCallCount] = {};
  std::atomic<uint64_t> ns[kCallCount] = {};
  std::atomic<uint64_t> bytes[kCallCount] = {};  // payloads of the calls with one
  // By size class, for calls with one payload (count and datatype).
  std::atomic<uint64_t> sized_calls[kCallCount][kSizeClasses] = {};
  std::atomic<uint64_t> sized_ns[kCallCount][kSizeClasses] = {};
};
extern CallTimes g_call_times;
inline void set_call_timing(bool on) { g_call_times.on.store(on, std::memory_order_relaxed); }
inline bool calls_timed() { return g_call_times.on.load(std::memory_order_relaxed); }
// Adds one call of `ns` made from `site` (the entry point's return
// address), whose coding added `coded` to the thread's tally; bytes < 0: no
// single payload size. With `persistent`, the _init call that made that
// request: its bytes count at each start (report/sites.h count_starts).
void record_call(CallId id, void* site, uint64_t ns, long long bytes, const ThreadTally& coded,
                 const LossyCertificate& certificate, const MPI_Request* persistent = nullptr);

// The certificates of the lossy codings this thread's current MPI call made
// (the worst over them, merge_certificate), for its call site in the report.
inline thread_local LossyCertificate t_certificate{};
// Adds one lossy call's or message's certificate to the thread's (only
// while calls are timed: the report is their one reader).
void note_certificate(const LossyCertificate& c);
// `into` and `c` as one: the widest range and proven bound, the tightest
// bound in force (so proven <= in_force still says every call held).
void merge_certificate(LossyCertificate* into, const LossyCertificate& c);
// Adds the difference from the exact result measured beside the lossy call
// just made (ADACOMP_LOSSY_CHECK) to the thread's certificate.
void note_measured_error(double error);

// Counts a call passed through uncoded, by its reason (decision/gate.h
// PassReason), only while calls are timed.
void note_pass(PassReason why);
// Follows a call's plan for the report: counts its pass, if the report
// counts it, and at ADACOMP_VERBOSE=2 prints each operation's first plan of
// every size class and outcome (decision/plan.h).
void note_plan(OpKind op, const Plan& plan);
// What the adaptive model settled on for an operation and size class (the
// report's "settled"): "raw" and "pass-through", or a codec and the layout.
void note_settled(OpKind op, size_t class_bytes, const char* codec, const char* path);

// Collective over world at MPI_Finalize: reduces every rank's counters (sum,
// min, max) to rank 0, which prints the table when verbose and writes the
// JSON report (report/report.h) to report_path, already expanded, when it
// is non-empty.
void report_stats(MPI_Comm world, int verbose, const std::string& report_path);

}  // namespace adacomp
