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

}  // namespace adacomp
