// What the generated entry points (tools/gen_entries.py, from
// src/boundary/mpi_calls.txt) share: the implementations they call, the
// engine of the nonblocking collectives they advance, the pass-through when
// one declines, the large-count strategy of scalar counts, and a
// call's bytes for the report.
#pragma once

#include <chrono>

#include <mpi.h>

#include "coll/coll.h"
#include "coll/plan.h"
#include "coll/schedule.h"
#include "boundary/completion_calls.h"
#include "boundary/lifecycle.h"
#include "report/sites.h"
#include "report/stats.h"
#include "report/samples.h"
#include "p2p/p2p.h"
#include "runtime/args.h"
#include "decision/call_result.h"
#include "runtime/datatype.h"
#include "runtime/device.h"
#include "runtime/call_facts.h"
#include "runtime/call_site.h"
#include "runtime/large_count.h"
#include "requests/registry.h"

#define ADACOMP_EXPORT __attribute__((visibility("default")))

namespace adacomp::entry {

// The generated entries' first step (flags idle_* in mpi_calls.txt): a call
// that nothing of the library's can be at stake in goes to PMPI at once,
// for a few loads, instead of through the device check, the call clock and
// the implementation, which would decline it (bench/instructions.sh). Each
// answers what the implementation decides, from what it reads first. None
// applies while calls are timed (the report counts every call) or
// nonblocking collectives are outstanding (each call advances them).
inline bool idle() { return !collectives_outstanding() && !calls_timed(); }
// Point-to-point is off: no communicator has a part (p2p/comm_setup.cpp p2p_of).
inline bool p2p_passes() { return idle() && !p2p_engaged(); }
// No request is the library's (requests/wait_test.cpp run).
inline bool completion_passes() { return idle() && !requests_registered(); }
// No tier codes a blocking collective of `count` elements of `type`,
// whatever its kind: the verdict on its facts passes it (decision/gate.cpp:
// no override, and ADACOMP_MODE=raw or the size under T1, which every tier
// starts from; coll/plan.cpp decides the same when the call goes on). Asks
// nothing but the size. Counted as its implementation counts every call.
inline bool collective_passes(OpKind op, MPI_Count count, MPI_Datatype type) {
  if (!idle() || tier_override() != Override::none) return false;
  const Config& c = config();
  if (c.mode != Mode::raw &&
      bytes_of(count, type) >= static_cast<MPI_Count>(c.threshold_lossless))
    return false;
  stats_for(op).calls.fetch_add(1, std::memory_order_relaxed);
  return true;
}

// The time a call spends in the library and what its coding added (bytes
// raw and on the wire, codec time, lossy certificates), for the report's
// call sites; every entry that does not pass at once starts one. The site
// is noted whether or not calls are timed: the rules select by it
// (runtime/call_site.h).
class CallClock {
 public:
  CallClock(CallId id, void* site)
      : id_(id), site_(site), on_(calls_timed()) {
    note_call_site(site);  // for the rules that select by it
    if (!on_) return;
    tally_ = t_tally;
    t_certificate = {};
    start_ = std::chrono::steady_clock::now();
  }
  // bytes() gives the call's payload size or -1; asked only when timing,
  // and only after the call succeeded, so its arguments are known valid.
  // `persistent`: the request an MPI_<Name>_init call made.
  template <typename Bytes>
  void stop(int rc, Bytes&& bytes, const MPI_Request* persistent = nullptr) {
    if (!on_) return;
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::steady_clock::now() - start_)
                  .count();
    const ThreadTally coded{t_tally.raw - tally_.raw, t_tally.wire - tally_.wire,
                            t_tally.codec_ns - tally_.codec_ns};
    record_call(id_, site_, static_cast<uint64_t>(ns), rc == MPI_SUCCESS ? bytes() : -1, coded,
                t_certificate, rc == MPI_SUCCESS ? persistent : nullptr);
  }
  bool on() const { return on_; }
  CallClock(const CallClock&) = delete;
  CallClock& operator=(const CallClock&) = delete;

 private:
  CallId id_;
  void* site_;
  bool on_;
  ThreadTally tally_;
  std::chrono::steady_clock::time_point start_;
};

// An implementation returns an MPI return code, as int (Init, Finalize:
// never declined) or as a CallResult
// whose kDeclined sends the call to `pmpi`: PMPI with the same arguments,
// timed for the adaptive model when the implementation asked (coll/plan.h).
template <class Pmpi>
int or_pmpi(int rc, Pmpi&&) {
  return rc;
}
template <class Pmpi>
int or_pmpi(const CallResult& result, Pmpi&& pmpi) {
  return result ? *result : run_declined(result, pmpi);
}

// The MPI-4 large-count strategy for a scalar count
// (runtime/large_count.h): the _c twin of a line without the flag `large`
// (src/boundary/mpi_calls.txt) runs the classic implementation through
// with_count, so the library still sees the call: a large receive must stay
// the library's, or a marker would land as data. Every rank of a collective
// decides alike, as its byte count is the same either way, and a collective
// over INT_MAX bytes passes through (kMaxFramePayload). A declined call is
// declined whole: the entry calls PMPI_<Name>_c with the caller's own
// arguments. Count arrays, and counts some ranks do not read, are the
// implementations' own (flag `large`).
#if MPI_VERSION >= 4
using adacomp::with_count;
#endif

// A call's bytes in the report (docs/report.md, "Bytes of a call"): what
// this rank's arguments give plain MPI to move, -1 for none. Asked after the
// call succeeded, so the arguments significant on this rank are valid.
// Summed over the ranks of a call they are the data the call moves; the
// codecs are given part of it (the blocks to other nodes), so a call site's
// bytes are never less than what its calls coded (bytes_in).
namespace bytes {

// The group the blocks of Alltoall(v) and Allgather(v) go to: the remote
// group of an intercommunicator.
inline int peers(MPI_Comm comm) {
  int inter = 0, n = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter)
    PMPI_Comm_remote_size(comm, &n);
  else
    PMPI_Comm_size(comm, &n);
  return n;
}
inline int rank(MPI_Comm comm) {
  int r = 0;
  PMPI_Comm_rank(comm, &r);
  return r;
}
template <class Counts>
long long sum(const Counts* counts, int n, MPI_Datatype type) {
  long long total = 0;
  for (int j = 0; j < n; ++j) total += static_cast<long long>(counts[j]);
  return bytes_of(total, type);
}
// An intercommunicator's root group (MPI_ROOT, MPI_PROC_NULL) sends
// nothing in Gather and receives nothing in Scatter.
inline bool root_group(int root) { return root == MPI_ROOT || root == MPI_PROC_NULL; }

// Alltoall, Allgather: this rank's block to each rank of the group (in place:
// the receive buffer's, which is the same size).
template <class N>
long long per_peer(const void* sendbuf, N sendcount, MPI_Datatype sendtype, N recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm) {
  const long long block =
      sendbuf == MPI_IN_PLACE ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
  return block < 0 ? -1 : block * peers(comm);
}
// Alltoallv: the sum of the send counts (in place: of the receive counts).
template <class Counts>
long long alltoallv(const void* sendbuf, const Counts* sendcounts, MPI_Datatype sendtype,
                    const Counts* recvcounts, MPI_Datatype recvtype, MPI_Comm comm) {
  return sendbuf == MPI_IN_PLACE ? sum(recvcounts, peers(comm), recvtype)
                                 : sum(sendcounts, peers(comm), sendtype);
}
// Allgatherv: this rank's block to each rank (in place: its receive count).
template <class N, class Counts>
long long allgatherv(const void* sendbuf, N sendcount, MPI_Datatype sendtype,
                     const Counts* recvcounts, MPI_Datatype recvtype, MPI_Comm comm) {
  const long long block = sendbuf == MPI_IN_PLACE ? bytes_of(recvcounts[rank(comm)], recvtype)
                                                  : bytes_of(sendcount, sendtype);
  return block < 0 ? -1 : block * peers(comm);
}
// Gather(v) and Scatter(v): the block each rank exchanges with the root,
// `mine` its own buffer (Gather's send, Scatter's receive) and `at_root` the
// root's buffer of every block (the root in place: its own block there).
template <class N>
long long root_block(const void* mine, N count, MPI_Datatype type, N root_count,
                     MPI_Datatype root_type, int root) {
  if (root_group(root)) return 0;
  return mine == MPI_IN_PLACE ? bytes_of(root_count, root_type) : bytes_of(count, type);
}
template <class N, class Counts>
long long root_block_v(const void* mine, N count, MPI_Datatype type, const Counts* root_counts,
                       MPI_Datatype root_type, int root) {
  if (root_group(root)) return 0;
  return mine == MPI_IN_PLACE ? bytes_of(root_counts[root], root_type) : bytes_of(count, type);
}
// Reduce_scatter(_block): the vector each rank reduces, as Allreduce's count.
template <class Counts>
long long reduce_scatter(const Counts* recvcounts, MPI_Datatype type, MPI_Comm comm) {
  int n = 0;
  PMPI_Comm_size(comm, &n);
  return sum(recvcounts, n, type);
}
template <class N>
long long reduce_scatter_block(N recvcount, MPI_Datatype type, MPI_Comm comm) {
  int n = 0;
  PMPI_Comm_size(comm, &n);
  const long long block = bytes_of(recvcount, type);
  return block < 0 ? -1 : block * n;
}

}  // namespace bytes

}  // namespace adacomp::entry
