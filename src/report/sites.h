// Call sites of the report, as mpiP has them: each intercepted C call is
// counted under the address it was called from (the generated entry point's
// return address), or the ADACOMP_REPORT_SITE_DEPTH innermost frames of the
// application's stack from there. Only while calls are timed (a report or
// the table asked for). At MPI_Finalize each rank resolves its own
// addresses (dladdr, then addr2line for function and file:line where debug
// information allows; else module+offset) and rank 0 gathers them.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "report/op_stats.h"

namespace adacomp {

// Adds one call of intercepted call `call` (report/stats.h CallId) from
// `return_address`. With `persistent` (an MPI_<Name>_init call that made
// that request) the bytes are not the call's but each start's: they are
// remembered, and count_starts adds them to this site at every start.
void record_site(int call, void* return_address, uint64_t ns, long long bytes,
                 const ThreadTally& coded, const MPI_Request* persistent = nullptr);
// MPI_Start(all) started `n` requests: each persistent one's bytes go to its
// _init call's site and call (report/stats.h CallTimes::bytes).
void count_starts(const MPI_Request* requests, int n);
// MPI_Request_free: the request's handle may be reused.
void forget_persistent(MPI_Request request);

// One site and call, summed over ranks.
struct SiteRow {
  std::string site;  // "func (file.c:123)", or "module+0x1a2b"; frames joined by " < "
  std::string call;  // "Allreduce"
  uint64_t calls = 0, ns = 0, bytes = 0, raw = 0, wire = 0, codec_ns = 0;
};

// Collective over `world`: the sites of every rank, merged, on rank 0 (by
// time, longest first); empty elsewhere.
std::vector<SiteRow> gather_sites(MPI_Comm world);

}  // namespace adacomp
