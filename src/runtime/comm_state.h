// Per-communicator library state, cached as an attribute of the
// application's communicator and freed with it.
#pragma once

#include <mpi.h>

#include "policy/model.h"
#include "runtime/locality.h"

namespace adacomp {

// A set of ranks the library talks to on one private communicator.
struct Group {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
};

struct CommState {
  Group coll;    // private duplicate: the library's collective traffic only
  Locality loc;  // learned when the state is created
  // Node-aware stages, split from `coll` when first needed (so private too):
  // this rank's node, the node leaders (local rank 0; null elsewhere), and
  // this rank's rail (the ranks of every node with its local rank).
  Group node, leaders, rail;
  bool spans_nodes() const { return loc.nodes > 1; }
  RuntimeModel model;  // touched only inside collectives, which MPI serialises per communicator
  // Nonblocking collectives started on this communicator: each one's tags
  // (coll/schedule.h). Ranks start them in the same order, so they agree.
  unsigned nonblocking_started = 0;
};

// Creates the attribute key; call once after MPI is initialised.
void comm_state_init();
// Frees the states of the predefined communicators and the key.
void comm_state_finalize();

// State of an intracommunicator, created on first use. Creation duplicates
// the communicator and learns its layout, so it is collective: callers only
// reach it on a path that every rank of `comm` takes. Returns nullptr if
// creation failed.
CommState* comm_state(MPI_Comm comm);
// The state if it exists, never creating it (nonblocking callers must not
// block in a creation).
CommState* existing_comm_state(MPI_Comm comm);

// Creates node, leaders and rail groups if not yet there (collective over
// the communicator, like every caller).
void ensure_node_groups(CommState* s);

}  // namespace adacomp
