// Per-communicator library state, cached as an attribute of the
// application's communicator and freed with it: the one state of both the
// collectives and point-to-point (one keyval, one delete callback, one
// finalize sweep, one set of private duplicates, locality learned once).
#pragma once

#include <mpi.h>

#include <atomic>
#include <memory>

#include "decision/model.h"
#include "runtime/locality.h"

namespace adacomp {

// A set of ranks the library talks to on one private communicator.
struct Group {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
};

// Point-to-point's part of the state, defined in src/p2p (a layer above).
// Why a forward-declared type in a shared_ptr: services must neither include
// p2p's headers nor link to its code, yet the state's one delete callback has
// to free p2p's part too; the shared_ptr carries the deleter p2p made along
// with the part. Shared: a receive still pending when the application frees
// the communicator (MPI keeps the communicator until it completes) keeps
// the part too.
struct P2PComm;
using P2PCommPtr = std::shared_ptr<P2PComm>;

// What the last blocking lossy reduction on codes of one kind agreed on
// this communicator: the ranks' widest view of their inputs (coll/ring_codes.h
// codes view, and whether any rank's input was in place), from which the
// next such call may start on the same grid and confirm it at its end
// (coll/lossy_agreement.h). Kept and updated alike on every rank:
// collectives on one communicator run in the same order everywhere, and
// only agreed numbers go in.
struct AgreedView {
  static constexpr int kValues = 4;
  int op = -1;             // OpKind; -1: unused
  int kind = 0;            // ElemKind of its elements
  size_t count = 0;        // elements of the call
  int members = 0, per_member = 0;  // its ring
  double view[kValues] = {};
  unsigned misses = 0;     // confirmations in a row that found another grid
  unsigned rest = 0;       // calls left before the next start on a kept view
};

struct CommState {
  Group coll;    // private: the library's collective traffic only (made on first need)
  Locality loc;  // learned when the state is created
  // Node-aware stages, split from `coll` when first needed (so private too):
  // this rank's node, the node leaders (local rank 0; null elsewhere), and
  // this rank's rail (the ranks of every node with its local rank).
  Group node, leaders, rail;
  // Point-to-point's part; null where p2p is off. Point-to-point needs no
  // communicator of its own (its bodies travel on one world communicator).
  P2PCommPtr p2p_part;
  bool spans_nodes() const { return loc.nodes > 1; }
  RuntimeModel model;  // touched only inside collectives, which MPI serialises per communicator
  // The proven bound of the last coded collective's result on this rank
  // (coll/compressed_call.h finish; 0: exact, HUGE_VAL: lossy, bound not known here),
  // for adacomp_last_bound.
  double last_bound = 0;
  // Nonblocking collectives started on this communicator: each one's tags
  // (coll/schedule.h). Ranks start them in the same order, so they agree.
  unsigned nonblocking_started = 0;
  // Persistent collectives made on it: each request's tags, fixed at init.
  unsigned persistent_made = 0;
  // Node-local stages (PMPI collectives on `node`) of the compressed
  // collectives: each takes a ticket in call order, and the nonblocking ones
  // start theirs in ticket order, as MPI requires of collectives on one
  // communicator (coll/node_stage.h). Started: advanced by whichever thread
  // runs the schedules.
  unsigned node_stages_taken = 0;
  std::atomic<unsigned> node_stages_started{0};
  // The lossy reductions' kept views, the oldest replaced first.
  AgreedView agreed_views[4];
  unsigned agreed_views_next = 0;
};

// Creates the attribute key; call once after MPI is initialised.
void comm_state_init();
// Frees the states of the predefined communicators and the key.
void comm_state_finalize();

// What a caller needs of a communicator's state.
enum class StatePart {
  layout,       // its layout (point-to-point makes its own group)
  collectives,  // and the collectives' private communicator
};
// State of an intracommunicator, created on first use, with `part` made if
// not yet there. Collective: callers only reach it on a path that every rank
// of `comm` takes. Why the collectives' communicator is made only when a
// collective first needs it: each one costs a context id, of which MPICH
// has 2048 per process, and a program may keep over a thousand
// communicators on which the library never runs a collective (MPICH's
// comm/cmfree). Returns nullptr if it could not be made.
CommState* comm_state(MPI_Comm comm, StatePart part = StatePart::collectives);
// State of `comm` if it has one (nullptr otherwise); never creates, so not
// collective: for calls that only some ranks make.
CommState* find_comm_state(MPI_Comm comm);

// Creates node, leaders and rail groups if not yet there (collective over
// the communicator, like every caller).
void ensure_node_groups(CommState* s);

}  // namespace adacomp
