// The intercepted collectives, with MPI's own parameters. Each takes a
// compressed path or declines (kDeclined, decision/call_result.h), and its
// entry point then calls PMPI with the same arguments.
#pragma once

#include <mpi.h>

#include "decision/call_result.h"

namespace adacomp {

CallResult allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm);
CallResult reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  int root, MPI_Comm comm);
CallResult bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);

// Their nonblocking forms, beside them: the same schedules, run by the
// engine (coll/schedule.h). Reduce_scatter_block's is in reduce_scatter.cpp.
CallResult iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm, MPI_Request* request);
CallResult ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                  MPI_Request* request);
CallResult ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   int root, MPI_Comm comm, MPI_Request* request);
CallResult ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* request);

// Reduce_scatter(_block) and the data-movement collectives take both count
// widths, one template each: Count is int (MPI_<Name>) or MPI_Count
// (MPI_<Name>_c), Displ int or MPI_Aint; their files instantiate both
// (src/boundary/mpi_calls.txt flag `large`).

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

// Their nonblocking forms, beside them (ADACOMP_NONBLOCKING=on), over both
// count widths alike.
template <class Count>
CallResult iallgather(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                      Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
template <class Count, class Displ>
CallResult iallgatherv(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                       const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Request* request);
template <class Count>
CallResult igather(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request* request);
template <class Count, class Displ>
CallResult igatherv(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype, int root,
                    MPI_Comm comm, MPI_Request* request);
template <class Count>
CallResult iscatter(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request* request);
template <class Count, class Displ>
CallResult iscatterv(const void* sendbuf, const Count sendcounts[], const Displ displs[],
                     MPI_Datatype sendtype, void* recvbuf, Count recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm, MPI_Request* request);
template <class Count>
CallResult ialltoall(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
template <class Count, class Displ>
CallResult ialltoallv(const void* sendbuf, const Count sendcounts[], const Displ sdispls[],
                      MPI_Datatype sendtype, void* recvbuf, const Count recvcounts[],
                      const Displ rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request* request);

#if MPI_VERSION >= 4
// MPI-4 persistent forms, started by MPI_Start, beside their blocking calls.
CallResult allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request);
CallResult bcast_init(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request* request);
CallResult reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request* request);
CallResult allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request* request);
CallResult allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                           MPI_Comm comm, MPI_Info info, MPI_Request* request);
CallResult gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request* request);
CallResult gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request* request);
CallResult scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                        MPI_Info info, MPI_Request* request);
CallResult scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                         MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                         int root, MPI_Comm comm, MPI_Info info, MPI_Request* request);
CallResult alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request* request);
CallResult alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                          MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                          const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request* request);
#endif

}  // namespace adacomp
