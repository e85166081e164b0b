// The one planning entry of coll and p2p: a call's facts, gathered once
// (policy/gate.h CallFacts), and the verdict on them, its pass counted for
// the report. The collectives' gates (coll/plan.cpp) and a point-to-point
// sender (p2p/send.cpp) both start here; what follows, the collective
// model's slot and a sender's estimate, is theirs.
#pragma once

#include <cstddef>

#include <mpi.h>

#include "policy/gate.h"

namespace adacomp {

// The facts of a call of `count` elements of `type` on `comm`. The common
// small message costs the checks and one size query: an inactive call
// (no count, no datatype, the library not running, no communicator) none.
CallFacts call_facts(MPI_Comm comm, MPI_Count count, MPI_Datatype type, GateScope scope,
                     Decider who);
// The same for a size every rank knows only in bytes (an exchange's block).
CallFacts call_facts(MPI_Comm comm, size_t bytes, ElemKind kind, GateScope scope, Decider who);

// The verdict on `f` (policy/gate.h verdict) under the configuration; a
// counted pass is noted for the report (runtime/stats.h note_pass).
CallVerdict admit(const CallFacts& f);

// Whether the model's arm for an admitted call (coll/plan.cpp decide,
// p2p/send.cpp coding_arm) passes it through: arm 0, counted as the model's
// choice.
bool model_passes(int arm);

}  // namespace adacomp
