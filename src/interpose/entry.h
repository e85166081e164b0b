// What the generated entry points (tools/gen_entries.py, from
// src/interpose/mpi_calls.txt) share: the implementations they call, the
// engine of the nonblocking collectives they advance, the pass-through when
// one declines, the narrowing large-count twins, and a
// call's payload size for the report.
#pragma once

#include <mpi.h>

#include <climits>

#include "coll/coll.h"
#include "coll/plan.h"
#include "coll/schedule.h"
#include "interpose/completion.h"
#include "interpose/lifecycle.h"
#include "p2p/p2p.h"
#include "runtime/call_result.h"
#include "runtime/device.h"
#include "runtime/stats.h"

#define ADACOMP_EXPORT __attribute__((visibility("default")))

namespace adacomp::entry {

// An implementation returns an MPI return code, as int (Init, Finalize:
// never declined) or as a CallResult
// whose kDeclined sends the call to `pmpi`: PMPI with the same arguments,
// timed for the adaptive model when the implementation asked (coll/plan.h).
template <class Pmpi>
int or_pmpi(int rc, Pmpi&&) { return rc; }
template <class Pmpi>
int or_pmpi(const CallResult& result, Pmpi&& pmpi) { return result ? *result : run_declined(result, pmpi); }

// A narrowing _c twin gives a count that fits an int to the classic
// implementation and a larger one to PMPI_<Name>_c. Every rank must decide
// alike: the reductions' counts are identical on every rank, and a Bcast
// count over INT_MAX means a payload over kMaxFramePayload on every rank (the
// byte count is common to all, and zero-byte calls pass through), which the
// classic Bcast passes through too.
inline bool fits_int(long long n) { return n >= 0 && n <= INT_MAX; }

inline long long bytes_of(long long n, MPI_Datatype type) {
  int size = 0;
  if (n < 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS) return -1;
  return n * size;
}

// The payload of a call in bytes, -1 for none or several (count arrays):
// count of datatype, else one side of a transfer. Only arguments significant
// on this rank count: with recv_side (Scatter) the send side is the root's
// alone, Gather's receive side too, and MPI_IN_PLACE voids a side.
inline long long payload(bool recv_side, long long n, MPI_Datatype type, long long send_n,
                         MPI_Datatype send_type, const void* send_buf, long long recv_n,
                         MPI_Datatype recv_type, const void* recv_buf) {
  if (n >= 0 && type != MPI_DATATYPE_NULL) return bytes_of(n, type);
  if (recv_side) return recv_buf == MPI_IN_PLACE ? -1 : bytes_of(recv_n, recv_type);
  if (send_n >= 0 && send_type != MPI_DATATYPE_NULL)
    return send_buf == MPI_IN_PLACE ? -1 : bytes_of(send_n, send_type);
  return bytes_of(recv_n, type);  // Reduce_scatter_block: recvcount of datatype
}

}  // namespace adacomp::entry
