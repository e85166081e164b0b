// What a call is, as the decision and the report name it: the operation and
// the form the application called it in. No MPI.
#pragma once

#include <cstdint>

namespace adacomp {

// An intercepted operation (not an MPI_Op): the report's row and the
// runtime model's slot.
enum class OpKind : int {
  allreduce,
  bcast,
  reduce,
  // point-to-point and the other collectives
  send,
  recv,
  allgather,
  allgatherv,
  gather,
  gatherv,
  scatter,
  scatterv,
  alltoall,
  alltoallv,
  reduce_scatter,
  reduce_scatter_block,
  kCount
};

// How the application called an operation: MPI_Allreduce, MPI_Iallreduce or
// MPI_Allreduce_init.
enum class CallForm : uint8_t { blocking, nonblocking, persistent };

// The reductions whose algorithm is a ring over the blocks of the vector.
inline bool ring_call(OpKind op) {
  return op == OpKind::allreduce || op == OpKind::reduce_scatter ||
         op == OpKind::reduce_scatter_block;
}
// The reductions and Bcast, whose algorithms chunk and have node stages;
// the others are exchanges (coll/exchange.h) or point-to-point.
inline bool staged_call(OpKind op) {
  return ring_call(op) || op == OpKind::reduce || op == OpKind::bcast;
}

}  // namespace adacomp
