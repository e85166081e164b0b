// The intercepted collectives, with MPI's own signatures. Each either takes a
// compressed path or forwards to PMPI unchanged.
#pragma once

#include <mpi.h>

namespace adacomp {

int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
              MPI_Op op, MPI_Comm comm);
int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
           MPI_Op op, int root, MPI_Comm comm);
int bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);

// src/coll/nonblocking.cpp: the nonblocking forms (engine: coll/schedule.h).
int iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm, MPI_Request* request);
int ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
           MPI_Request* request);
int ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
            int root, MPI_Comm comm, MPI_Request* request);
int ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, MPI_Request* request);

// src/coll/reduce_scatter.cpp
int reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                         MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                   MPI_Datatype type, MPI_Op op, MPI_Comm comm);

// src/coll/gather.cpp
int allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype,
               MPI_Comm comm);
int gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
           int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
            MPI_Comm comm);
int scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
             MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
             int root, MPI_Comm comm);
int alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm);

#if MPI_VERSION >= 4
// MPI-4 persistent forms (src/coll/nonblocking.cpp), started by MPI_Start.
int allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request* request);
int bcast_init(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
               MPI_Info info, MPI_Request* request);

// MPI-4 large-count forms. src/coll/large_count.cpp: Allreduce, Reduce and
// Bcast; src/coll/reduce_scatter.cpp and src/coll/gather.cpp: the others.
int allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                MPI_Op op, MPI_Comm comm);
int reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
             int root, MPI_Comm comm);
int bcast_c(void* buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm);
int reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                           MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                     MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                 MPI_Comm comm);
int gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
             MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
              const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
              int root, MPI_Comm comm);
int scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
               MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
               int root, MPI_Comm comm);
int alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
               MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
#endif

}  // namespace adacomp
