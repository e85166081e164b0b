// Scatter(v) on the exchange engine (coll/exchange.h): Gather(v) reversed.
#include "coll/coll.h"
#include "coll/exchange.h"

namespace adacomp {

template <class Count>
CallResult scatter(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return rooted_exchange(OpKind::scatter, false, recvbuf, recvcount, recvtype, sendbuf,
                         same_blocks(sendcount), sendtype, root, comm);
}

template <class Count, class Displ>
CallResult scatterv(const void* sendbuf, const Count sendcounts[], const Displ displs[],
                    MPI_Datatype sendtype, void* recvbuf, Count recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm) {
  return rooted_exchange(OpKind::scatterv, false, recvbuf, recvcount, recvtype, sendbuf,
                         given_blocks(sendcounts, displs), sendtype, root, comm);
}

// Both count widths (coll/coll.h).
template decltype(scatter<int>) scatter<int>;
template decltype(scatterv<int, int>) scatterv<int, int>;
#if MPI_VERSION >= 4
template decltype(scatter<MPI_Count>) scatter<MPI_Count>;
template decltype(scatterv<MPI_Count, MPI_Aint>) scatterv<MPI_Count, MPI_Aint>;
#endif

}  // namespace adacomp
