// Alltoall(v) on the exchange engine (coll/exchange.h).
#include <vector>

#include "coll/coll.h"
#include "coll/exchange.h"

namespace adacomp {
namespace {

// Bytes spanned by `blocks` of `type` from the buffer start, for copying an
// in-place input; -1 if a lower bound is negative.
template <class Count, class Displ>
MPI_Aint span(int n, const Blocks<Count, Displ>& blocks, MPI_Datatype type) {
  MPI_Aint lb, ext, tlb, text;
  PMPI_Type_get_extent(type, &lb, &ext);
  PMPI_Type_get_true_extent(type, &tlb, &text);
  if (tlb < 0 || lb < 0) return -1;
  MPI_Aint end = 0;
  for (int i = 0; i < n; ++i) {
    const MPI_Aint c = blocks.count(i);
    if (c <= 0) continue;
    const MPI_Aint e = (blocks.displ(i) + c - 1) * ext + tlb + text;
    if (e > end) end = e;
  }
  return end;
}

template <class Count, class Displ>
CallResult alltoall_impl(OpKind op, const void* sendbuf, Blocks<Count, Displ> send,
                         MPI_Datatype sendtype, void* recvbuf, Blocks<Count, Displ> recv,
                         MPI_Datatype recvtype, MPI_Comm comm) {
  Plan plan;
  const CommState* st = blocks_gate(op, comm, recv, recvtype, &plan);
  if (!st) return decline(plan);
  if (bad_args(sendbuf, send.checked(), sendtype) || bad_args(nullptr, recv.checked(), recvtype))
    return kDeclined;
  std::vector<char> copy;
  if (sendbuf == MPI_IN_PLACE) {
    // Negative lower bounds are not handled here; every rank has the same
    // recvtype, so all decline alike.
    const MPI_Aint n = span(st->coll.size, recv, recvtype);
    if (n < 0) return kDeclined;
    copy.assign(static_cast<char*>(recvbuf), static_cast<char*>(recvbuf) + n);
    sendbuf = copy.data();
    send = recv;
    sendtype = recvtype;
  }
  const int me = st->coll.rank;
  copy_local(at(sendbuf, send.displ(me), sendtype), send.count(me), sendtype,
             at(recvbuf, recv.displ(me), recvtype), recv.count(me), recvtype);
  Exchange x(comm, plan, op);
  for (int j = 0; j < st->coll.size; ++j) {
    if (j == me) continue;
    x.recv(j, at(recvbuf, recv.displ(j), recvtype), recv.count(j), recvtype);
    x.send(j, at(sendbuf, send.displ(j), sendtype), send.count(j), sendtype);
  }
  return x.run();
}

}  // namespace

template <class Count>
CallResult alltoall(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall_impl(OpKind::alltoall, sendbuf, same_blocks(sendcount), sendtype, recvbuf,
                       same_blocks(recvcount), recvtype, comm);
}

template <class Count, class Displ>
CallResult alltoallv(const void* sendbuf, const Count sendcounts[], const Displ sdispls[],
                     MPI_Datatype sendtype, void* recvbuf, const Count recvcounts[],
                     const Displ rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall_impl(OpKind::alltoallv, sendbuf, given_blocks(sendcounts, sdispls), sendtype,
                       recvbuf, given_blocks(recvcounts, rdispls), recvtype, comm);
}

// Both count widths (coll/coll.h).
template decltype(alltoall<int>) alltoall<int>;
template decltype(alltoallv<int, int>) alltoallv<int, int>;
#if MPI_VERSION >= 4
template decltype(alltoall<MPI_Count>) alltoall<MPI_Count>;
template decltype(alltoallv<MPI_Count, MPI_Aint>) alltoallv<MPI_Count, MPI_Aint>;
#endif

}  // namespace adacomp
