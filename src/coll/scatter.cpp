// Scatter(v) on the exchange engine (coll/exchange.h): Gather(v) reversed;
// with their nonblocking and persistent forms.
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

template <class Count>
CallResult iscatter(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request* request) {
  return rooted_exchange(OpKind::scatter, false, recvbuf, recvcount, recvtype, sendbuf,
                         same_blocks(sendcount), sendtype, root, comm, {request});
}

template <class Count, class Displ>
CallResult iscatterv(const void* sendbuf, const Count sendcounts[], const Displ displs[],
                     MPI_Datatype sendtype, void* recvbuf, Count recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm, MPI_Request* request) {
  return rooted_exchange(OpKind::scatterv, false, recvbuf, recvcount, recvtype, sendbuf,
                         given_blocks(sendcounts, displs), sendtype, root, comm, {request});
}

template decltype(iscatter<int>) iscatter<int>;
template decltype(iscatterv<int, int>) iscatterv<int, int>;

#if MPI_VERSION >= 4
template decltype(iscatter<MPI_Count>) iscatter<MPI_Count>;
template decltype(iscatterv<MPI_Count, MPI_Aint>) iscatterv<MPI_Count, MPI_Aint>;

CallResult scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                        MPI_Request* request) {
  return rooted_exchange(OpKind::scatter, false, recvbuf, recvcount, recvtype, sendbuf,
                         same_blocks(sendcount), sendtype, root, comm, {request, true});
}

CallResult scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                         MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                         int root, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return rooted_exchange(OpKind::scatterv, false, recvbuf, recvcount, recvtype, sendbuf,
                         given_blocks(sendcounts, displs), sendtype, root, comm, {request, true});
}
#endif  // MPI_VERSION >= 4

}  // namespace adacomp
