// Per-communicator library state, cached as an attribute of the
// application's communicator and freed with it.
#pragma once

#include <mpi.h>

#include "policy/model.h"

namespace adacomp {

struct CommState {
  MPI_Comm coll;  // private duplicate: the library's collective traffic only
  int rank;
  int size;
  RuntimeModel model;  // touched only inside collectives, which MPI serialises per communicator
};

// Creates the attribute key; call once after MPI is initialised.
void comm_state_init();
// Frees the states of the predefined communicators and the key.
void comm_state_finalize();

// State of an intracommunicator, created on first use. Creation duplicates
// the communicator, so it is collective: callers only reach it on a path
// that every rank of `comm` takes. Returns nullptr if creation failed.
CommState* comm_state(MPI_Comm comm);

}  // namespace adacomp
