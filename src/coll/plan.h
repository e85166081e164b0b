// The collectives' side of the decision: what they know of a call, gathered
// from MPI (arguments, datatype, the communicator's state and layout, the
// rules' agreement) and handed to decision/plan.h, whose Plan they follow.
// Every input is identical on all ranks of the communicator.
#pragma once

#include <mpi.h>

#include "codec/codec.h"
#include "report/stats.h"
#include "decision/plan.h"
#include "decision/call_result.h"
#include "runtime/comm_state.h"
#include "runtime/datatype.h"

namespace adacomp {

// A collective's plan (decision/plan.h) and the context its algorithm
// needs beside it: the library's state of the communicator, the datatype's
// facts, and the codec's parameters.
struct CollPlan : Plan {
  CommState* state = nullptr;
  TypeInfo type;
  EncodeParams params;  // abs_bound is filled in by the algorithm (per hop)
};

// The group a ring call's compressed ring runs on: every rank (flat), this
// rank's rail, or the node leaders.
inline const Group& ring_group(const CollPlan& plan) {
  const CommState& s = *plan.state;
  return plan.layout == Layout::rails     ? s.rail
         : plan.layout == Layout::leaders ? s.leaders
                                          : s.coll;
}

// The gates of the collectives (the message's verdict is decision/gate.h's):
// each returns true when the call takes a compressed path and fills `plan`;
// false declines the call (decline(plan)). Only cheap checks run before the
// size is known, so a small message leaves at once; bad arguments are
// declined too, and PMPI reports them with MPI's own error class.

// The gate of the reductions (commutative op, contiguous predefined type,
// intracommunicator) and of Bcast (`op` MPI_OP_NULL: any datatype, since
// bytes are bytes; non-contiguous ones are packed first, only the sender's
// datatype decides the codec, which travels in the frames, and the path
// depends on sizes only), in every form. The blocking form first completes
// the nonblocking collectives outstanding on `comm` (settle_collectives,
// coll/schedule.h). The nonblocking and persistent forms decide the same,
// restricted to what can be decided without blocking, which every rank
// still decides alike. They decline when
//  - ADACOMP_NONBLOCKING is off (the default; docs/nonblocking.md);
//  - the adaptive policy decides (its agreement is a blocking collective):
//    nonblocking calls are compressed only in the forced modes;
//  - the communicator has no library state yet (creating it duplicates the
//    communicator, a blocking collective): its first compressed collective
//    is a blocking one;
//  - the call would be node-aware and the node groups are not made yet
//    (making them is a blocking collective): the first node-aware reduction
//    or Bcast on a communicator is a blocking one;
//  - the call is persistent and would be node-aware.
bool plan_call(OpKind operation, MPI_Comm comm, int count, MPI_Datatype type, MPI_Op op,
               CallForm form, CollPlan* plan);

// The pairwise data-movement collectives: `block_bytes` is a size every rank
// knows alike, the block of the regular calls; the v calls (`varied`) have
// none and share one model slot per operation. `nonblocking`: their
// nonblocking and persistent forms, restricted as plan_call's are
// (ADACOMP_NONBLOCKING itself is checked first, coll/exchange.h).
bool plan_exchange(OpKind operation, MPI_Comm comm, size_t block_bytes, bool varied,
                   bool nonblocking, CollPlan* plan);

// Whether one transfer of `bytes` of an exchange is coded (both ends know
// `bytes`, so they agree).
bool codes_transfer(size_t bytes);

// False when plan_exchange would pass a call on `comm` of `block_bytes` per
// block (`varied`: the v calls, gated at the smallest coded size) through on
// its verdict alone, before any query of the communicator: the generated
// entries then skip their aliasing check, since MPI gets the call as it was
// made.
bool exchange_may_code(MPI_Comm comm, size_t block_bytes, bool varied);

// Whether a hop between this rank and `peer` (ranks of the private
// communicator) is coded: not inside a node when the call is node-aware.
bool codes_hop(const CollPlan& plan, int peer);

// Records a call's time in `state`'s model slot `slot` (none: -1) and, when
// the slot asks, agrees with the other ranks (collective over the private
// communicator).
void record_time(CommState* state, int slot, double seconds);

// Declines the call: its entry point calls PMPI with the same arguments
// (decision/call_result.h). When the adaptive policy explores the raw path in
// plan's model slot, the result asks for that PMPI call to be timed for the
// slot (run_declined).
inline CallResult decline(const CollPlan& plan) {
  return plan.model < 0 ? kDeclined : CallResult::declined(plan.state, plan.model);
}

// Runs the PMPI form `pmpi` of a call declined with `result`, timed when
// decline() asked.
template <class F>
int run_declined(const CallResult& result, F pmpi) {
  if (!result.timed()) return pmpi();
  const double start = PMPI_Wtime();
  const int rc = pmpi();
  record_time(result.timed(), result.slot(), PMPI_Wtime() - start);
  return rc;
}

}  // namespace adacomp
