// MPI-4 large-count (_c) forms of Allreduce, Reduce and Bcast. A count that
// fits an int takes the classic implementation; a larger one is declined.
//
// Every rank decides alike: the reductions' counts are identical on every
// rank, and a Bcast count over INT_MAX means a payload over kMaxFramePayload
// on every rank (the byte count is common to all, and zero-byte calls pass
// through), which the classic Bcast passes through too. The other
// collectives' _c forms share their implementation with the classic ones
// (gather.cpp, scatter.cpp, alltoall.cpp,
// reduce_scatter.cpp).
#include <climits>

#include "coll/coll.h"

#if MPI_VERSION >= 4
namespace adacomp {

CallResult allreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                       MPI_Op op, MPI_Comm comm) {
  if (count >= 0 && count <= INT_MAX)
    return allreduce(sendbuf, recvbuf, static_cast<int>(count), type, op, comm);
  return kDeclined;
}

CallResult reduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                    MPI_Op op, int root, MPI_Comm comm) {
  if (count >= 0 && count <= INT_MAX)
    return reduce(sendbuf, recvbuf, static_cast<int>(count), type, op, root, comm);
  return kDeclined;
}

CallResult bcast_c(void* buffer, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm) {
  if (count >= 0 && count <= INT_MAX)
    return bcast(buffer, static_cast<int>(count), type, root, comm);
  return kDeclined;
}

}  // namespace adacomp
#endif  // MPI_VERSION >= 4
