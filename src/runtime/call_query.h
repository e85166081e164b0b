// What the library knows about one collective call, gathered from MPI and
// handed to the decision (decision/plan.h), which returns its Plan: the
// call's facts (runtime/call_facts.h), the rules and their agreement, the
// arguments and datatype, the library's state of the communicator and its
// layout, and the runtime model's slots. Every input is identical on all
// ranks of the communicator, so all of them plan alike.
#pragma once

#include <mpi.h>

#include "decision/plan.h"
#include "runtime/comm_state.h"
#include "runtime/datatype.h"

namespace adacomp {

// The MPI side of a collective's plan: the library's state of the
// communicator and the datatype's facts (set when the plan codes the call
// or times plain MPI for the model).
struct CallContext {
  CommState* state = nullptr;
  TypeInfo type;
};

// The plan of a reduction (`op` an MPI_Op) or a Bcast (MPI_OP_NULL) in any
// form. Only cheap checks run before the size is known, so a small message
// leaves at once; bad arguments pass through, and PMPI reports them with
// MPI's own error class. A blocking call makes the library's state of
// `comm` (collective over it) when the call is coded.
Plan plan_collective(OpKind operation, MPI_Comm comm, int count, MPI_Datatype type, MPI_Op op,
                     CallForm form, CallContext* context);

// The plan of a pairwise data-movement collective: `block_bytes` is a size
// every rank knows alike, the block of the regular calls; the v calls
// (`varied`) have none, are gated at the smallest coded size and share one
// model slot per operation.
Plan plan_exchange_call(OpKind operation, MPI_Comm comm, size_t block_bytes, bool varied,
                        bool nonblocking, CallContext* context);

// Whether the verdict alone passes such an exchange (coll/plan.h
// exchange_may_code).
bool exchange_passes_on_facts(MPI_Comm comm, size_t block_bytes, bool varied);

// The communicator as the decision sees it (decision/plan.h CommLayout).
CommLayout comm_layout(const CommState* s);

}  // namespace adacomp
