// The MPI calls the call families make, as one table of function pointers
// filled twice: with MPI_* (through the library) and with PMPI_* (plain
// MPI, the oracle). A family written once runs against both.
#pragma once

#include <mpi.h>

#define FUZZ_CALLS_MPI3(X)                                                                        \
  X(Send) X(Ssend) X(Bsend) X(Rsend) X(Recv) X(Isend) X(Issend) X(Ibsend) X(Irsend) X(Irecv)      \
  X(Sendrecv) X(Sendrecv_replace) X(Send_init) X(Ssend_init) X(Bsend_init) X(Rsend_init)          \
  X(Recv_init) X(Start) X(Wait) X(Request_free) X(Probe) X(Iprobe) X(Mprobe) X(Mrecv) \
  X(Improbe)          \
  X(Imrecv) X(Bcast) X(Ibcast) X(Gather) X(Igather) X(Gatherv) X(Igatherv) X(Scatter)             \
  X(Iscatter) X(Scatterv) X(Iscatterv) X(Allgather) X(Iallgather) X(Allgatherv) X(Iallgatherv)    \
  X(Alltoall) X(Ialltoall) X(Alltoallv) X(Ialltoallv) X(Alltoallw) X(Ialltoallw) X(Reduce)        \
  X(Ireduce) X(Allreduce) X(Iallreduce) X(Reduce_scatter) X(Ireduce_scatter)                      \
  X(Reduce_scatter_block) X(Ireduce_scatter_block) X(Scan) X(Iscan) X(Exscan) X(Iexscan)

// MPI-4: persistent collectives, Isendrecv and the large-count (_c) forms.
#define FUZZ_CALLS_MPI4(X)                                                                      \
  X(Isendrecv) X(Isendrecv_replace) X(Bcast_init) X(Gather_init) X(Gatherv_init)                \
  X(Scatter_init) X(Scatterv_init) X(Allgather_init) X(Allgatherv_init) X(Alltoall_init)        \
  X(Alltoallv_init) X(Alltoallw_init) X(Reduce_init) X(Allreduce_init)                          \
  X(Reduce_scatter_block_init) X(Scan_init) X(Send_c) X(Recv_c) X(Isend_c) X(Irecv_c)           \
  X(Sendrecv_c) X(Bcast_c) X(Gather_c) X(Gatherv_c) X(Scatterv_c) X(Allgather_c)                \
  X(Allgatherv_c) X(Alltoall_c) X(Alltoallv_c) X(Alltoallw_c) X(Allreduce_c) X(Reduce_c)        \
  X(Reduce_scatter_c)

#if MPI_VERSION >= 4
#define FUZZ_HAS_MPI4 1
#define FUZZ_CALLS(X) FUZZ_CALLS_MPI3(X) FUZZ_CALLS_MPI4(X)
#else
#define FUZZ_HAS_MPI4 0
#define FUZZ_CALLS(X) FUZZ_CALLS_MPI3(X)
#endif

namespace fuzz {

struct Api {
  bool library;  // MPI_* (true) or PMPI_*
#define FUZZ_FIELD(name) decltype(&PMPI_##name) name;
  FUZZ_CALLS(FUZZ_FIELD)
#undef FUZZ_FIELD
};

const Api& library_api();
const Api& plain_api();

}  // namespace fuzz
