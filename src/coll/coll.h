// The intercepted collectives, with MPI's own parameters. Each takes a
// compressed path or declines (kDeclined, runtime/call_result.h), and its
// entry point then calls PMPI with the same arguments.
#pragma once

#include <mpi.h>

#include "runtime/call_result.h"

namespace adacomp {

CallResult allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm);
CallResult reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  int root, MPI_Comm comm);
CallResult bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);

// src/coll/nonblocking.cpp: the nonblocking forms (engine: coll/schedule.h).
CallResult iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm, MPI_Request* request);
CallResult ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                  MPI_Request* request);
CallResult ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   int root, MPI_Comm comm, MPI_Request* request);
CallResult ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                 MPI_Request* request);

// Reduce_scatter(_block) and the data-movement collectives take both count
// widths, one template each: Count is int (MPI_<Name>) or MPI_Count
// (MPI_<Name>_c), Displ int or MPI_Aint; their files instantiate both
// (src/interpose/mpi_calls.txt flag `large`).

// src/coll/reduce_scatter.cpp
template <class Count>
CallResult reduce_scatter_block(const void* sendbuf, void* recvbuf, Count recvcount,
                                MPI_Datatype type, MPI_Op op, MPI_Comm comm);
template <class Count>
CallResult reduce_scatter(const void* sendbuf, void* recvbuf, const Count recvcounts[],
                          MPI_Datatype type, MPI_Op op, MPI_Comm comm);

// The data-movement collectives: src/coll/gather.cpp (Allgather(v),
// Gather(v)), scatter.cpp, alltoall.cpp, on the engine of exchange.h.
template <class Count>
CallResult allgather(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
template <class Count, class Displ>
CallResult allgatherv(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype,
                      MPI_Comm comm);
template <class Count>
CallResult gather(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
template <class Count, class Displ>
CallResult gatherv(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm);
template <class Count>
CallResult scatter(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
template <class Count, class Displ>
CallResult scatterv(const void* sendbuf, const Count sendcounts[], const Displ displs[],
                    MPI_Datatype sendtype, void* recvbuf, Count recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm);
template <class Count>
CallResult alltoall(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
template <class Count, class Displ>
CallResult alltoallv(const void* sendbuf, const Count sendcounts[], const Displ sdispls[],
                     MPI_Datatype sendtype, void* recvbuf, const Count recvcounts[],
                     const Displ rdispls[], MPI_Datatype recvtype, MPI_Comm comm);

#if MPI_VERSION >= 4
// MPI-4 persistent forms (src/coll/nonblocking.cpp), started by MPI_Start.
CallResult allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request);
CallResult bcast_init(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request* request);
#endif

}  // namespace adacomp
