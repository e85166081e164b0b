// The largest message the MPI library sends eagerly between nodes. An eager
// Isend goes straight into the kernel's socket, which then transmits while
// the library codes the next chunk; a larger message waits for a rendezvous
// that Open MPI's and MPICH's TCP transports advance only inside MPI calls.
// The pipelined collectives size their frames below it (decision/tier.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace adacomp {

// Assumed where the MPI does not tell: Open MPI 4.1's btl_tcp_eager_limit.
constexpr size_t kDefaultEagerLimit = 64 * 1024;

// This process's limit as the running MPI has set it, after MPI_Init (Open
// MPI: btl_tcp_eager_limit), or 0 where it does not tell. No communication:
// every rank must cut the same chunks, so MPI_Init's agreement takes the
// least answer of all ranks (boundary/start.cpp), kDefaultEagerLimit where none
// answered.
uint64_t local_eager_limit();

}  // namespace adacomp
