// The JSON report (ADACOMP_REPORT): its file name, checked at MPI_Init, and
// its contents, written by rank 0 at MPI_Finalize. Schema: docs/report.md.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/op_stats.h"

namespace adacomp {

constexpr int kReportSchema = 1;

// Expands %p (pid), %j (job id from the scheduler's variables, else
// "nojob"), %h (host name) and %% in `pattern`, then checks that the
// directory is writable: false with the reason (errno text) otherwise.
// Called on rank 0, the rank that writes.
bool expand_report_path(const std::string& pattern, std::string* path, std::string* error);

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

struct ReportData {
  int ranks = 0;
  std::vector<std::string> hosts;  // per rank
  RankRange wall_seconds, mpi_seconds;
  std::vector<OpRow> ops;
  std::vector<CallRow> calls;
};

// Writes the report; false with the reason when the file cannot be written.
bool write_report(const std::string& path, const ReportData& data, std::string* error);

}  // namespace adacomp
