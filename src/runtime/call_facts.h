// The one planning entry of coll and p2p: a call's facts, gathered once
// (decision/gate.h CallFacts), on which decision/gate.h verdict() decides and
// report/stats.h note_verdict() counts a pass for the report. The
// collectives' gates (coll/plan.cpp) and a point-to-point sender
// (p2p/send.cpp) both start here; what follows, the collective model's slot
// and a sender's estimate, is theirs. Inline: a call passed through pays
// these checks on every call (bench/passthrough.sh).
#pragma once

#include <cstddef>

#include <mpi.h>

#include "decision/gate.h"
#include "runtime/comm_hints.h"
#include "runtime/datatype.h"
#include "runtime/runtime.h"

namespace adacomp {

namespace detail {
// The facts of a call the library runs for.
inline CallFacts active_facts(MPI_Comm comm, size_t bytes, ElemKind kind, GateScope scope,
                              Decider who) {
  CallFacts f;
  f.active = true;
  f.bytes = bytes;
  f.kind = kind;
  f.scope = scope;
  f.who = who;
  f.override = tier_override();
  f.bound = comm_bound(comm);
  f.coding_on = who == Decider::sender ? coding_on() : true;
  f.job_spans_nodes = job_spans_nodes();
  return f;
}
}  // namespace detail

// The facts of a call of `count` elements of `type` on `comm`. The common
// small message costs the checks and one size query: an inactive call
// (no count, no datatype, the library not running, no communicator) none.
inline CallFacts call_facts(MPI_Comm comm, MPI_Count count, MPI_Datatype type, GateScope scope,
                            Decider who) {
  if (count <= 0 || type == MPI_DATATYPE_NULL || !runtime_active() || comm == MPI_COMM_NULL)
    return {};
  return detail::active_facts(comm, data_size(count, type), elem_kind(type), scope, who);
}
// The same for a size every rank knows only in bytes (an exchange's block).
inline CallFacts call_facts(MPI_Comm comm, size_t bytes, ElemKind kind, GateScope scope,
                            Decider who) {
  if (!runtime_active() || comm == MPI_COMM_NULL) return {};
  return detail::active_facts(comm, bytes, kind, scope, who);
}

}  // namespace adacomp
