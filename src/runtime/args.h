// Argument errors of the intercepted calls, found before any framing.
//
// A call whose arguments MPI rejects is passed to PMPI unchanged, with the
// application's own arguments and communicator: MPI itself then raises the
// error on that communicator, with the class plain MPI gives and MPI's own
// message naming the call and its arguments, and nothing of the library
// (frame, channel, reference memory) is created for it.
#pragma once

#include <mpi.h>

#include "runtime/datatype.h"

namespace adacomp {

// What `peer` is: a destination (0..size-1, MPI_PROC_NULL), a source (also
// MPI_ANY_SOURCE, with MPI_ANY_TAG allowed for `tag`), or nothing to check.
enum class Peer { dest, source, none };

// MPI_SUCCESS, or the class MPI gives to (count, type) as a buffer, to `peer`
// and `tag` on `comm` (an intracommunicator, not MPI_COMM_NULL): MPI_ERR_COUNT
// for a negative count, MPI_ERR_TYPE for MPI_DATATYPE_NULL or a derived
// datatype MPI refuses (not committed), MPI_ERR_RANK, MPI_ERR_TAG.
int arg_error(MPI_Comm comm, MPI_Count count, MPI_Datatype type, int peer, Peer role, int tag);

// The checks a compressed collective takes once its verdict lets it
// through, in order: MPI's argument errors (an uncommitted derived
// datatype), then for a reduction a predefined contiguous type and a
// commutative op MPI defines on it. False declines the call (PMPI reports
// what MPI rejects); *info is `type`'s (datatype.h type_info) once the first
// check passed.
bool collective_args_ok(MPI_Comm comm, MPI_Count count, MPI_Datatype type, MPI_Op op,
                        bool reduction, TypeInfo* info);

// A private duplicate of MPI_COMM_SELF (errors return), made at MPI_Init:
// the argument checks send to MPI_PROC_NULL on it, and the partial element
// of a staged receive travels on it (transfer/transfer.cpp).
MPI_Comm private_self();

// One buffer given as both the send and the receive buffer of a collective
// (MPI_IN_PLACE and MPI_BOTTOM, with absolute addresses, are not aliases).
inline bool aliased(const void* sendbuf, const void* recvbuf) {
  return sendbuf == recvbuf && sendbuf != MPI_IN_PLACE && sendbuf != MPI_BOTTOM;
}

// Whether `part` may lie at or after the start of `whole` (a block of it),
// neither being MPI_IN_PLACE or MPI_BOTTOM: the cheap first test for an
// alias of this rank's block (tools/gen_entries.py, OWN_BLOCK).
inline bool may_hold(const void* whole, const void* part) {
  return whole != MPI_IN_PLACE && part != MPI_IN_PLACE && whole != MPI_BOTTOM &&
         part != MPI_BOTTOM && static_cast<const char*>(part) >= static_cast<const char*>(whole);
}

// The root of a collective that has none.
constexpr int kNoRoot = -1000;

// Whether this rank's MPI refuses an aliased collective: `probe(self, rank)`
// runs the call's blocking form on private_self() over this rank's own block
// (tools/gen_entries.py writes it), once `is_own_block(rank)` says the other
// buffer is that block. Asked only of an intracommunicator's root, or of
// every rank when root is kNoRoot; one probe at a time, since private_self()
// is one communicator.
bool alias_probe_applies(MPI_Comm comm, int root, int* rank);
int run_alias_probe(int (*probe)(void*, MPI_Comm, int), void* context, int rank);
template <class IsOwnBlock, class Probe>
bool pmpi_refuses_alias(MPI_Comm comm, int root, IsOwnBlock&& is_own_block, Probe&& probe) {
  int rank = 0;
  if (!alias_probe_applies(comm, root, &rank) || !is_own_block(rank)) return false;
  auto call = [](void* p, MPI_Comm self, int r) { return (*static_cast<Probe*>(p))(self, r); };
  return run_alias_probe(call, &probe, rank) != MPI_SUCCESS;
}

// At MPI_Init / MPI_Finalize.
void args_init();
void args_finalize();

}  // namespace adacomp
