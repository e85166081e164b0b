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

// src/coll/reduce_scatter.cpp
CallResult reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                MPI_Datatype type, MPI_Op op, MPI_Comm comm);
CallResult reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                          MPI_Datatype type, MPI_Op op, MPI_Comm comm);

// The data-movement collectives: src/coll/gather.cpp (Allgather(v),
// Gather(v)), scatter.cpp, alltoall.cpp, on the engine of exchange.h.
CallResult allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
CallResult allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                      MPI_Comm comm);
CallResult gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
CallResult gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm);
CallResult scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
CallResult scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                    MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm);
CallResult alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
CallResult alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                     MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                     const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);

// Their nonblocking forms, beside them (ADACOMP_NONBLOCKING=on).
CallResult iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
CallResult iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Request* request);
CallResult igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request* request);
CallResult igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                    MPI_Comm comm, MPI_Request* request);
CallResult iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request* request);
CallResult iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                     MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm, MPI_Request* request);
CallResult ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
CallResult ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                      MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                      const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request* request);

#if MPI_VERSION >= 4
// MPI-4 persistent forms, started by MPI_Start: src/coll/nonblocking.cpp
// (Allreduce, Bcast, Reduce) and beside the data-movement calls.
CallResult allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request);
CallResult bcast_init(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request* request);
CallResult reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                       MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request);
CallResult allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                          void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request* request);
CallResult allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, const int recvcounts[], const int displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                           MPI_Request* request);
CallResult gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                       MPI_Info info, MPI_Request* request);
CallResult gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        int root, MPI_Comm comm, MPI_Info info, MPI_Request* request);
CallResult scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                        MPI_Info info, MPI_Request* request);
CallResult scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                         MPI_Datatype sendtype, void* recvbuf, int recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                         MPI_Request* request);
CallResult alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request* request);
CallResult alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                          MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                          const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info info, MPI_Request* request);

// MPI-4 large-count forms, beside their classic forms. Allreduce_c,
// Reduce_c and Bcast_c narrow to the classic forms (src/interpose/mpi_calls.txt).
CallResult reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm);
CallResult reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                            MPI_Datatype type, MPI_Op op, MPI_Comm comm);
CallResult allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
CallResult allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, MPI_Comm comm);
CallResult gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
CallResult gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                     int root, MPI_Comm comm);
CallResult scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
CallResult scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                      MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm);
CallResult alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
CallResult alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                       MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                       const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
CallResult iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Request* request);
CallResult iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
CallResult igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Request* request);
CallResult igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request);
CallResult iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Request* request);
CallResult iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                       MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request);
CallResult ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request* request);
CallResult ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                        const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                        const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request);
#endif

}  // namespace adacomp
