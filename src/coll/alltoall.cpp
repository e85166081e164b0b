// Alltoall(v) on the exchange engine (coll/exchange.h), with their
// nonblocking and persistent forms.
#include <memory>
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
                         MPI_Datatype recvtype, MPI_Comm comm, Launch how = {}) {
  if (nonblocking_off(op, how)) return kDeclined;
  Plan plan;
  const CommState* st = blocks_gate(op, comm, recv, recvtype, how, &plan);
  if (!st) return decline(plan);
  if (bad_args(sendbuf, send.checked(), sendtype) || bad_args(nullptr, recv.checked(), recvtype))
    return kDeclined;
  const int me = st->coll.rank, size = st->coll.size;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  // Negative lower bounds are not handled in place; every rank has the same
  // recvtype, so all decline alike.
  const MPI_Aint span_bytes = in_place ? span(size, recv, recvtype) : 0;
  if (span_bytes < 0) return kDeclined;
  return launch(plan, comm, how, [=](int tag) {
    auto x = std::make_unique<Exchange>(comm, plan, op, how.form(), tag);
    const void* input = sendbuf;
    Blocks<Count, Displ> in = send;
    MPI_Datatype in_type = sendtype;
    if (in_place) {  // the input is copied, as the output overwrites it
      std::vector<char> copy(static_cast<char*>(recvbuf), static_cast<char*>(recvbuf) + span_bytes);
      input = copy.data();  // the vector's storage moves with it
      x->keep(std::move(copy));
      in = recv;
      in_type = recvtype;
    }
    copy_local(block_at(input, in.displ(me), in_type), in.count(me), in_type,
               block_at(recvbuf, recv.displ(me), recvtype), recv.count(me), recvtype);
    for (int j = 0; j < size; ++j) {
      if (j == me) continue;
      x->recv(j, block_at(recvbuf, recv.displ(j), recvtype), recv.count(j), recvtype);
      x->send(j, block_at(input, in.displ(j), in_type), in.count(j), in_type);
    }
    return x;
  });
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

template <class Count>
CallResult ialltoall(const void* sendbuf, Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoall_impl(OpKind::alltoall, sendbuf, same_blocks(sendcount), sendtype, recvbuf,
                       same_blocks(recvcount), recvtype, comm, {request});
}

template <class Count, class Displ>
CallResult ialltoallv(const void* sendbuf, const Count sendcounts[], const Displ sdispls[],
                      MPI_Datatype sendtype, void* recvbuf, const Count recvcounts[],
                      const Displ rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request* request) {
  return alltoall_impl(OpKind::alltoallv, sendbuf, given_blocks(sendcounts, sdispls), sendtype,
                       recvbuf, given_blocks(recvcounts, rdispls), recvtype, comm, {request});
}

template decltype(ialltoall<int>) ialltoall<int>;
template decltype(ialltoallv<int, int>) ialltoallv<int, int>;

#if MPI_VERSION >= 4
template decltype(ialltoall<MPI_Count>) ialltoall<MPI_Count>;
template decltype(ialltoallv<MPI_Count, MPI_Aint>) ialltoallv<MPI_Count, MPI_Aint>;

CallResult alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                         int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                         MPI_Request* request) {
  return alltoall_impl(OpKind::alltoall, sendbuf, same_blocks(sendcount), sendtype, recvbuf,
                       same_blocks(recvcount), recvtype, comm, {request, true});
}

CallResult alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                          MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                          const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                          MPI_Request* request) {
  return alltoall_impl(OpKind::alltoallv, sendbuf, given_blocks(sendcounts, sdispls), sendtype,
                       recvbuf, given_blocks(recvcounts, rdispls), recvtype, comm, {request, true});
}
#endif  // MPI_VERSION >= 4

}  // namespace adacomp
