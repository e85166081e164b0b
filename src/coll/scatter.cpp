// Scatter(v) on the exchange engine (coll/exchange.h): Gather(v) reversed;
// with their nonblocking and persistent forms.
#include "coll/coll.h"
#include "coll/exchange.h"

namespace adacomp {

CallResult scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return rooted_exchange(OpKind::scatter, false, recvbuf, recvcount, recvtype, sendbuf,
                         same_blocks(sendcount), sendtype, root, comm);
}

CallResult scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                    MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm) {
  return rooted_exchange(OpKind::scatterv, false, recvbuf, recvcount, recvtype, sendbuf,
                         given_blocks(sendcounts, displs), sendtype, root, comm);
}

#if MPI_VERSION >= 4
CallResult scatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                     MPI_Comm comm) {
  return rooted_exchange(OpKind::scatter, false, recvbuf, recvcount, recvtype, sendbuf,
                         same_blocks(sendcount), sendtype, root, comm);
}

CallResult scatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                      MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return rooted_exchange(OpKind::scatterv, false, recvbuf, recvcount, recvtype, sendbuf,
                         given_blocks(sendcounts, displs), sendtype, root, comm);
}
#endif  // MPI_VERSION >= 4

CallResult iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                    MPI_Request* request) {
  return rooted_exchange(OpKind::scatter, false, recvbuf, recvcount, recvtype, sendbuf,
                         same_blocks(sendcount), sendtype, root, comm, {request});
}

CallResult iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                     MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm, MPI_Request* request) {
  return rooted_exchange(OpKind::scatterv, false, recvbuf, recvcount, recvtype, sendbuf,
                         given_blocks(sendcounts, displs), sendtype, root, comm, {request});
}

#if MPI_VERSION >= 4
CallResult iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Request* request) {
  return rooted_exchange(OpKind::scatter, false, recvbuf, recvcount, recvtype, sendbuf,
                         same_blocks(sendcount), sendtype, root, comm, {request});
}

CallResult iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                       MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return rooted_exchange(OpKind::scatterv, false, recvbuf, recvcount, recvtype, sendbuf,
                         given_blocks(sendcounts, displs), sendtype, root, comm, {request});
}

CallResult scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                        MPI_Request* request) {
  return rooted_exchange(OpKind::scatter, false, recvbuf, recvcount, recvtype, sendbuf,
                         same_blocks(sendcount), sendtype, root, comm, {request, true});
}

CallResult scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                         MPI_Datatype sendtype, void* recvbuf, int recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                         MPI_Request* request) {
  return rooted_exchange(OpKind::scatterv, false, recvbuf, recvcount, recvtype, sendbuf,
                         given_blocks(sendcounts, displs), sendtype, root, comm, {request, true});
}
#endif  // MPI_VERSION >= 4

}  // namespace adacomp
