// Argument errors of the intercepted calls, found before any framing.
//
// A call whose arguments MPI rejects is passed to PMPI unchanged, with the
// application's own arguments and communicator: MPI itself then raises the
// error on that communicator, with the class plain MPI gives and MPI's own
// message naming the call and its arguments, and nothing of the library
// (frame, channel, reference memory) is created for it.
#pragma once

#include <mpi.h>

namespace adacomp {

// What `peer` is: a destination (0..size-1, MPI_PROC_NULL), a source (also
// MPI_ANY_SOURCE, with MPI_ANY_TAG allowed for `tag`), or nothing to check.
enum class Peer { dest, source, none };

// MPI_SUCCESS, or the class MPI gives to (count, type) as a buffer, to `peer`
// and `tag` on `comm` (an intracommunicator, not MPI_COMM_NULL): MPI_ERR_COUNT
// for a negative count, MPI_ERR_TYPE for MPI_DATATYPE_NULL or a derived
// datatype MPI refuses (not committed), MPI_ERR_RANK, MPI_ERR_TAG.
int arg_error(MPI_Comm comm, MPI_Count count, MPI_Datatype type, int peer, Peer role, int tag);

// A private duplicate of MPI_COMM_SELF (errors return), made at MPI_Init:
// the argument checks send to MPI_PROC_NULL on it, and the partial element
// of a staged receive travels on it (runtime/transfer.cpp).
MPI_Comm private_self();

// At MPI_Init / MPI_Finalize.
void args_init();
void args_finalize();

}  // namespace adacomp
