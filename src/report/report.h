// The JSON report (ADACOMP_REPORT): its file name, checked at MPI_Init, and
// its contents, written by rank 0 at MPI_Finalize. Schema: docs/report.md.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "report/op_stats.h"
#include "report/sites.h"
#include "report/stats.h"

namespace adacomp {

constexpr int kReportSchema = 2;

// Expands %p (pid), %j (job id from the scheduler's variables, else
// "nojob"), %h (host name) and %% in `pattern`; a pattern naming a
// directory (existing, or ending in '/') gets a file name of its own in it,
// mpiP/Darshan-style: PROGRAM.JOBID.PID.YYYYMMDD-HHMMSS.adacomp.json. Then
// checks that the file can be written: false with the reason otherwise.
// Called on rank 0 at MPI_Init (its pid; the rank that writes).
bool expand_report_path(const std::string& pattern, std::string* path, std::string* error);
// The scheduler's job id (SLURM_JOB_ID, ...), or "".
std::string job_id();

// Records the start of the run (MPI_Init) for the report's header.
void report_begin();
double report_start_wtime();

struct RankRange {
  double min = 0, mean = 0, max = 0;
};

// One row per operation: counters summed over ranks (in the order of
// ADACOMP_OP_COUNTERS), and how they spread.
struct OpRow {
  const char* key;
  uint64_t counters[kOpCounters];
  RankRange calls_per_rank, bytes_wire_per_rank, codec_seconds_per_rank;
  double ratio() const {
    const uint64_t wire = counters[counter_bytes_wire];
    return wire ? double(counters[counter_bytes_in]) / wire : 0.0;
  }
};

// Calls of one size class: payloads from `bytes_from` to twice that.
struct SizeRow {
  uint64_t bytes_from, calls;
  double seconds;
};

// One row per intercepted MPI call that was made; sizes: a histogram of
// those with a single payload (count and datatype), summed over ranks.
struct CallRow {
  const char* name;
  uint64_t calls;
  double seconds;
  RankRange seconds_per_rank;
  std::vector<SizeRow> sizes;
};

// One rank's figures (saved: NaN without a link figure).
struct RankRow {
  double wall = 0, mpi = 0, calls = 0, bytes = 0, wire = 0, saved = 0;
};
constexpr int kRankFields = 6;

// One MPI_Pcontrol level's operations.
struct Region {
  int level;
  std::vector<OpRow> ops;
};

// The settled codec and path of one operation and size class.
struct Settled {
  OpKind op;
  size_t class_bytes;
  std::string codec, path;
};

// The link the saved-time estimates use: calibrated, else measured at
// MPI_Init, else none (bandwidth 0).
struct LinkFigures {
  double bandwidth_Bps = 0, latency_s = 0;
  const char* source = "none";  // "calibrated", "measured" or "none"
  // Measured: the probe's figure at MPI_Init, and whether the check during
  // the run raised it (runtime/link_check.h).
  double probed_Bps = 0;
  bool raised = false;
};
LinkFigures report_link();
// Wire time saved by sending `wire` bytes for `raw`, less `codec_ns` of
// coding: NaN without a link figure.
double saved_seconds(const LinkFigures& link, uint64_t raw, uint64_t wire, uint64_t codec_ns);
// The same for one operation's counters.
double saved_seconds(const LinkFigures& link, const OpRow& op);

struct ReportData {
  int ranks = 0;
  int nodes = 1;                   // that MPI_COMM_WORLD spans (the library's split)
  std::vector<std::string> hosts;  // per rank
  RankRange wall_seconds, mpi_seconds;
  std::vector<OpRow> ops;       // summed over the regions
  std::vector<Region> regions;  // those with calls
  std::vector<CallRow> calls;
  std::vector<RankRow> rank_rows;
  std::vector<SiteRow> sites;
  std::vector<Settled> settled;
  uint64_t passes[kPassReasons] = {};
  LinkFigures link;
};

// The report's first answer: did AdaComp help, and what next.
struct Verdict {
  double saved_s = 0;            // per rank, mean; NaN when unknown
  double mpi_s = 0, wall_s = 0;  // per rank, mean
  // coded, one_host, below_threshold, model_no_gain, nonblocking_off, switched_off
  const char* reason = "coded";
  std::string text, next_step;
};
Verdict judge(const ReportData& d);

// The text at MPI_Finalize (ADACOMP_VERBOSE; per-rank rows at 2).
void print_report(const ReportData& d, int verbose);

// Writes the report; false with the reason when the file cannot be written.
bool write_report(const std::string& path, const ReportData& data, std::string* error);

}  // namespace adacomp
