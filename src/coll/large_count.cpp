// MPI-4 large-count (_c) forms of the reductions and Bcast. A count that fits
// an int takes the classic implementation; a larger one goes to PMPI.
//
// Every rank decides alike: the reductions' counts are identical on every
// rank, and a Bcast count over INT_MAX means a payload over kMaxFramePayload
// on every rank (the byte count is common to all, and zero-byte calls pass
// through), which the classic Bcast passes through too. The data-movement
// collectives' _c forms share their implementation in gather.cpp instead.
#include <climits>
#include <vector>

#include "coll/coll.h"

#if MPI_VERSION >= 4
namespace adacomp {

int allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                MPI_Op op, MPI_Comm comm) {
  if (count >= 0 && count <= INT_MAX)
    return allreduce(sendbuf, recvbuf, static_cast<int>(count), type, op, comm);
  return PMPI_Allreduce_c(sendbuf, recvbuf, count, type, op, comm);
}

int reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
             int root, MPI_Comm comm) {
  if (count >= 0 && count <= INT_MAX)
    return reduce(sendbuf, recvbuf, static_cast<int>(count), type, op, root, comm);
  return PMPI_Reduce_c(sendbuf, recvbuf, count, type, op, root, comm);
}

int bcast_c(void* buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (count >= 0 && count <= INT_MAX)
    return bcast(buffer, static_cast<int>(count), type, root, comm);
  return PMPI_Bcast_c(buffer, count, type, root, comm);
}

int reduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                           MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (recvcount >= 0 && recvcount <= INT_MAX)
    return reduce_scatter_block(sendbuf, recvbuf, static_cast<int>(recvcount), type, op, comm);
  return PMPI_Reduce_scatter_block_c(sendbuf, recvbuf, recvcount, type, op, comm);
}

int reduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                     MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  int size = 0;
  if (comm != MPI_COMM_NULL && PMPI_Comm_size(comm, &size) == MPI_SUCCESS) {
    std::vector<int> counts(size);
    bool fit = true;
    for (int i = 0; i < size && fit; ++i) {
      fit = recvcounts[i] >= 0 && recvcounts[i] <= INT_MAX;
      if (fit) counts[i] = static_cast<int>(recvcounts[i]);
    }
    if (fit) return reduce_scatter(sendbuf, recvbuf, counts.data(), type, op, comm);
  }
  return PMPI_Reduce_scatter_c(sendbuf, recvbuf, recvcounts, type, op, comm);
}

}  // namespace adacomp
#endif  // MPI_VERSION >= 4
