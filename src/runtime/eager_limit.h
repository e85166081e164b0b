// The largest message the MPI library sends eagerly between nodes. An eager
// Isend goes straight into the kernel's socket, which then transmits while
// the library codes the next chunk; a larger message waits for a rendezvous
// that Open MPI's and MPICH's TCP transports advance only inside MPI calls.
// The pipelined collectives size their frames below it (policy/tier.h).
#pragma once

#include <cstddef>

#include <mpi.h>

namespace adacomp {

// Assumed where the MPI does not tell: Open MPI 4.1's btl_tcp_eager_limit.
constexpr size_t kDefaultEagerLimit = 64 * 1024;

// Asks the running MPI through the MPI tool interface (Open MPI:
// btl_tcp_eager_limit), after MPI_Init; then the
// smallest answer of any rank of `world`, so that every rank cuts the same
// chunks. kDefaultEagerLimit where no rank's MPI answers. Collective.
size_t agree_eager_limit(MPI_Comm world);

}  // namespace adacomp
