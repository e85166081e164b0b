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
  CollPlan plan;
  const CommState* st = blocks_gate(op, comm, recv, recvtype, how, &plan);
  if (!st) return decline(plan);
  if (bad_args(sendbuf, sendcount, sendtype) || bad_args(nullptr, recv.checked(), recvtype))
    return kDeclined;
  const int me = st->coll.rank, size = st->coll.size;
  return launch(plan, comm, how, [=](int tag) {
    char* own = block_at(recvbuf, recv.displ(me), recvtype);
    const bool in_place = sendbuf == MPI_IN_PLACE;
    if (!in_place) copy_local(sendbuf, sendcount, sendtype, own, recv.count(me), recvtype);
    auto x = std::make_unique<Exchange>(comm, plan, op, how.form(), tag);
    for (int j = 0; j < size; ++j) {
      if (j == me) continue;
      x->recv(j, block_at(recvbuf, recv.displ(j), recvtype), recv.count(j), recvtype);
      if (in_place)
        x->send(j, own, recv.count(me), recvtype);
      else
        x->send(j, sendbuf, sendcount, sendtype);
    }
    return x;
  });
}

}  // namespace

template <class Count>
CallResult allgather(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather_impl(OpKind::allgather, sendbuf, sendcount, sendtype, recvbuf,
                        same_blocks(recvcount), recvtype, comm);
}

template <class Count, class Displ>
CallResult allgatherv(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                      const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype,
                      MPI_Comm comm) {
  return allgather_impl(OpKind::allgatherv, sendbuf, sendcount, sendtype, recvbuf,
                        given_blocks(recvcounts, displs), recvtype, comm);
}

template <class Count>
CallResult gather(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return rooted_exchange(OpKind::gather, true, sendbuf, sendcount, sendtype, recvbuf,
                         same_blocks(recvcount), recvtype, root, comm);
}

template <class Count, class Displ>
CallResult gatherv(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm) {
  return rooted_exchange(OpKind::gatherv, true, sendbuf, sendcount, sendtype, recvbuf,
                         given_blocks(recvcounts, displs), recvtype, root, comm);
}

// Both count widths (coll/coll.h).
template decltype(allgather<int>) allgather<int>;
template decltype(allgatherv<int, int>) allgatherv<int, int>;
template decltype(gather<int>) gather<int>;
template decltype(gatherv<int, int>) gatherv<int, int>;
#if MPI_VERSION >= 4
template decltype(allgather<MPI_Count>) allgather<MPI_Count>;
template decltype(allgatherv<MPI_Count, MPI_Aint>) allgatherv<MPI_Count, MPI_Aint>;
template decltype(gather<MPI_Count>) gather<MPI_Count>;
template decltype(gatherv<MPI_Count, MPI_Aint>) gatherv<MPI_Count, MPI_Aint>;
#endif

// Nonblocking (ADACOMP_NONBLOCKING=on) and persistent forms: the same
// transfers as a schedule (coll/exchange.h).
template <class Count>
CallResult iallgather(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                      Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgather_impl(OpKind::allgather, sendbuf, sendcount, sendtype, recvbuf,
                        same_blocks(recvcount), recvtype, comm, {request});
}

template <class Count, class Displ>
CallResult iallgatherv(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                       const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Request* request) {
  return allgather_impl(OpKind::allgatherv, sendbuf, sendcount, sendtype, recvbuf,
                        given_blocks(recvcounts, displs), recvtype, comm, {request});
}

template <class Count>
CallResult igather(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request* request) {
  return rooted_exchange(OpKind::gather, true, sendbuf, sendcount, sendtype, recvbuf,
                         same_blocks(recvcount), recvtype, root, comm, {request});
}

template <class Count, class Displ>
CallResult igatherv(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const Count recvcounts[], const Displ displs[], MPI_Datatype recvtype, int root,
                    MPI_Comm comm, MPI_Request* request) {
  return rooted_exchange(OpKind::gatherv, true, sendbuf, sendcount, sendtype, recvbuf,
                         given_blocks(recvcounts, displs), recvtype, root, comm, {request});
}

template decltype(iallgather<int>) iallgather<int>;
template decltype(iallgatherv<int, int>) iallgatherv<int, int>;
template decltype(igather<int>) igather<int>;
template decltype(igatherv<int, int>) igatherv<int, int>;

#if MPI_VERSION >= 4
template decltype(iallgather<MPI_Count>) iallgather<MPI_Count>;
template decltype(iallgatherv<MPI_Count, MPI_Aint>) iallgatherv<MPI_Count, MPI_Aint>;
template decltype(igather<MPI_Count>) igather<MPI_Count>;
template decltype(igatherv<MPI_Count, MPI_Aint>) igatherv<MPI_Count, MPI_Aint>;

CallResult allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                          MPI_Request* request) {
  return allgather_impl(OpKind::allgather, sendbuf, sendcount, sendtype, recvbuf,
                        same_blocks(recvcount), recvtype, comm, {request, true});
}

CallResult allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                           MPI_Comm comm, MPI_Info, MPI_Request* request) {
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
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                        MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return rooted_exchange(OpKind::gatherv, true, sendbuf, sendcount, sendtype, recvbuf,
                         given_blocks(recvcounts, displs), recvtype, root, comm, {request, true});
}
#endif  // MPI_VERSION >= 4

}  // namespace adacomp
