// Allgather(v) and Gather(v) on the exchange engine (coll/exchange.h), with
// their nonblocking and persistent forms.
#include <memory>

#include "coll/coll.h"
#include "coll/exchange.h"

namespace adacomp {
namespace {

template <class Count, class Displ>
CallResult allgather_impl(OpKind op, const void* sendbuf, Count sendcount, MPI_Datatype sendtype,
                          void* recvbuf, Blocks<Count, Displ> recv, MPI_Datatype recvtype,
                          MPI_Comm comm, Launch how = {}) {
  if (nonblocking_off(op, how)) return kDeclined;
  Plan plan;
  const CommState* st = blocks_gate(op, comm, recv, recvtype, how, &plan);
  if (!st) return decline(plan);
  if (bad_args(sendbuf, sendcount, sendtype) || bad_args(nullptr, recv.checked(), recvtype))
    return kDeclined;
  const int me = st->coll.rank, size = st->coll.size;
  return launch(plan, comm, how, [=](int tag) {
    char* own = at(recvbuf, recv.displ(me), recvtype);
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (!in_place) copy_local(sendbuf, sendcount, sendtype, own, recv.count(me), recvtype);
    auto x = std::make_unique<Exchange>(comm, plan, op, tag);
    for (int j = 0; j < size; ++j) {
      if (j == me) continue;
      x->recv(j, at(recvbuf, recv.displ(j), recvtype), recv.count(j), recvtype);
      if (in_place) x->send(j, own, recv.count(me), recvtype);
      else x->send(j, sendbuf, sendcount, sendtype);
    }
    return x;
  });
}

}  // namespace

CallResult allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather_impl(OpKind::allgather, sendbuf, sendcount, sendtype, recvbuf,
                        same_blocks(recvcount), recvtype, comm);
}

CallResult allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                      MPI_Comm comm) {
  return allgather_impl(OpKind::allgatherv, sendbuf, sendcount, sendtype, recvbuf,
                        given_blocks(recvcounts, displs), recvtype, comm);
}

CallResult gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return rooted_exchange(OpKind::gather, true, sendbuf, sendcount, sendtype, recvbuf,
                         same_blocks(recvcount), recvtype, root, comm);
}

CallResult gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm) {
  return rooted_exchange(OpKind::gatherv, true, sendbuf, sendcount, sendtype, recvbuf,
                         given_blocks(recvcounts, displs), recvtype, root, comm);
}

#if MPI_VERSION >= 4
CallResult allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather_impl(OpKind::allgather, sendbuf, sendcount, sendtype, recvbuf,
                        same_blocks(recvcount), recvtype, comm);
}

CallResult allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                        MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather_impl(OpKind::allgatherv, sendbuf, sendcount, sendtype, recvbuf,
                        given_blocks(recvcounts, displs), recvtype, comm);
}

CallResult gather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                    MPI_Comm comm) {
  return rooted_exchange(OpKind::gather, true, sendbuf, sendcount, sendtype, recvbuf,
                         same_blocks(recvcount), recvtype, root, comm);
}

CallResult gatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                     MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return rooted_exchange(OpKind::gatherv, true, sendbuf, sendcount, sendtype, recvbuf,
                         given_blocks(recvcounts, displs), recvtype, root, comm);
}
#endif  // MPI_VERSION >= 4

// Nonblocking (ADACOMP_NONBLOCKING=on) and persistent forms: the same
// transfers as a schedule (coll/exchange.h).
CallResult iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgather_impl(OpKind::allgather, sendbuf, sendcount, sendtype, recvbuf,
                        same_blocks(recvcount), recvtype, comm, {request});
}

CallResult iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Request* request) {
  return allgather_impl(OpKind::allgatherv, sendbuf, sendcount, sendtype, recvbuf,
                        given_blocks(recvcounts, displs), recvtype, comm, {request});
}

CallResult igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request* request) {
  return rooted_exchange(OpKind::gather, true, sendbuf, sendcount, sendtype, recvbuf,
                         same_blocks(recvcount), recvtype, root, comm, {request});
}

CallResult igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                    MPI_Comm comm, MPI_Request* request) {
  return rooted_exchange(OpKind::gatherv, true, sendbuf, sendcount, sendtype, recvbuf,
                         given_blocks(recvcounts, displs), recvtype, root, comm, {request});
}

#if MPI_VERSION >= 4
CallResult iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Request* request) {
  return allgather_impl(OpKind::allgather, sendbuf, sendcount, sendtype, recvbuf,
                        same_blocks(recvcount), recvtype, comm, {request});
}

CallResult iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgather_impl(OpKind::allgatherv, sendbuf, sendcount, sendtype, recvbuf,
                        given_blocks(recvcounts, displs), recvtype, comm, {request});
}

CallResult igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Request* request) {
  return rooted_exchange(OpKind::gather, true, sendbuf, sendcount, sendtype, recvbuf,
                         same_blocks(recvcount), recvtype, root, comm, {request});
}

CallResult igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return rooted_exchange(OpKind::gatherv, true, sendbuf, sendcount, sendtype, recvbuf,
                         given_blocks(recvcounts, displs), recvtype, root, comm, {request});
}

CallResult allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                          void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          MPI_Info, MPI_Request* request) {
  return allgather_impl(OpKind::allgather, sendbuf, sendcount, sendtype, recvbuf,
                        same_blocks(recvcount), recvtype, comm, {request, true});
}

CallResult allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, const int recvcounts[], const int displs[],
                           MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                           MPI_Request* request) {
  return allgather_impl(OpKind::allgatherv, sendbuf, sendcount, sendtype, recvbuf,
                        given_blocks(recvcounts, displs), recvtype, comm, {request, true});
}

CallResult gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                       MPI_Request* request) {
  return rooted_exchange(OpKind::gather, true, sendbuf, sendcount, sendtype, recvbuf,
                         same_blocks(recvcount), recvtype, root, comm, {request, true});
}

CallResult gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        int root, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return rooted_exchange(OpKind::gatherv, true, sendbuf, sendcount, sendtype, recvbuf,
                         given_blocks(recvcounts, displs), recvtype, root, comm, {request, true});
}
#endif  // MPI_VERSION >= 4

}  // namespace adacomp
