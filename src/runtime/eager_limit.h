// The largest message the MPI library sends eagerly between nodes. An eager
// Isend goes straight into the kernel's socket, which then transmits while
// the library codes the next chunk; a larger message waits for a rendezvous
// that Open MPI's and MPICH's TCP transports advance only inside MPI calls.
// The pipelined collectives size their frames below it (policy/tier.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace adacomp {

// Assumed where the MPI does not tell: Open MPI 4.1's btl_tcp_eager_limit.
constexpr size_t kDefaultEagerLimit = 64 * 1024;

// This process's limit as the running MPI has set it, after MPI_Init (Open
// MPI: btl_tcp_eager_limit), or 0 where it does not tell. No communication.
uint64_t local_eager_limit();

// Every rank must cut the same chunks, so the ranks agree on the smallest
// answer, within the one MPI_MAX agreement of MPI_Init (runtime.cpp): each
// votes eager_limit_vote(local_eager_limit()), and the largest vote elects
// the limit (kDefaultEagerLimit where no rank's MPI answered).
uint64_t eager_limit_vote(uint64_t mine);
size_t eager_limit_elected(uint64_t largest_vote);

}  // namespace adacomp
