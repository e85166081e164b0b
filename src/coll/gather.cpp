// Allgather(v) and Gather(v) on the exchange engine (coll/exchange.h).
#include "coll/coll.h"
#include "coll/exchange.h"

namespace adacomp {
namespace {

template <class Count, class Displ>
CallResult allgather_impl(OpKind op, const void* sendbuf, Count sendcount, MPI_Datatype sendtype,
                          void* recvbuf, Blocks<Count, Displ> recv, MPI_Datatype recvtype,
                          MPI_Comm comm) {
  Plan plan;
  const CommState* st = blocks_gate(op, comm, recv, recvtype, &plan);
  if (!st) return decline(plan);
  if (bad_args(sendbuf, sendcount, sendtype) || bad_args(nullptr, recv.checked(), recvtype))
    return kDeclined;
  const int me = st->coll.rank;
  char* own = at(recvbuf, recv.displ(me), recvtype);
  if (sendbuf == MPI_IN_PLACE) {
    sendbuf = own;
    sendcount = recv.count(me);
    sendtype = recvtype;
  } else {
    copy_local(sendbuf, sendcount, sendtype, own, recv.count(me), recvtype);
  }
  Exchange x(comm, plan, op);
  for (int j = 0; j < st->coll.size; ++j) {
    if (j == me) continue;
    x.recv(j, at(recvbuf, recv.displ(j), recvtype), recv.count(j), recvtype);
    x.send(j, sendbuf, sendcount, sendtype);
  }
  return x.run();
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

}  // namespace adacomp
