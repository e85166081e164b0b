// Alltoall(v) on the exchange engine (coll/exchange.h), with their
// nonblocking and persistent forms.
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "coll/coll.h"
#include "coll/exchange.h"

namespace adacomp {
namespace {

// The bytes [first, end) from the buffer address that `blocks` of `type`
// cover, for copying an in-place input: from the first block's first byte
// (a type's true lower bound may put it past the address, and what lies
// before it is not the caller's to read) to the last one's end; empty
// when no block holds data. None when a lower bound is negative.
struct Span {
  MPI_Aint first = 0, end = 0;
};
template <class Count, class Displ>
std::optional<Span> span(int n, const Blocks<Count, Displ>& blocks, MPI_Datatype type) {
  MPI_Aint lb, ext, tlb, text;
  PMPI_Type_get_extent(type, &lb, &ext);
  PMPI_Type_get_true_extent(type, &tlb, &text);
  MPI_Count size = 0;
  PMPI_Type_size_x(type, &size);
  if (size == 0) return Span{};  // no data (and true bounds that are no offsets: Open MPI)
  if (tlb < 0 || lb < 0) return std::nullopt;
  std::optional<Span> s;
  for (int i = 0; i < n; ++i) {
    const MPI_Aint c = blocks.count(i);
    if (c <= 0) continue;
    const MPI_Aint first = blocks.displ(i) * ext + tlb;
    const MPI_Aint end = (blocks.displ(i) + c - 1) * ext + tlb + text;
    if (!s) s = Span{first, end};
    s->first = std::min(s->first, first);
    s->end = std::max(s->end, end);
  }
  return s ? s : Span{};
}

template <class Count, class Displ>
CallResult alltoall_impl(OpKind op, const void* sendbuf, Blocks<Count, Displ> send,
                         MPI_Datatype sendtype, void* recvbuf, Blocks<Count, Displ> recv,
                         MPI_Datatype recvtype, MPI_Comm comm, Launch how = {}) {
  if (nonblocking_off(op, how)) return kDeclined;
  CollPlan plan;
  const CommState* st = blocks_gate(op, comm, recv, recvtype, how, &plan);
  if (!st) return decline(plan);
  if (bad_args(sendbuf, send.checked(), sendtype) || bad_args(nullptr, recv.checked(), recvtype))
    return kDeclined;
  const int me = st->coll.rank, size = st->coll.size;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  // Negative lower bounds are not handled in place; every rank has the same
  // recvtype, so all decline alike.
  const std::optional<Span> copied = in_place ? span(size, recv, recvtype) : Span{};
  if (!copied) return kDeclined;
  return launch(plan, comm, how, [=](int tag) {
    auto x = std::make_unique<Exchange>(comm, plan, op, how.form(), tag);
    const void* input = sendbuf;
    Blocks<Count, Displ> in = send;
    MPI_Datatype in_type = sendtype;
    if (in_place) {  // the input is copied, as the output overwrites it
      const char* from = static_cast<char*>(recvbuf);
      std::vector<char> copy(from + copied->first, from + copied->end);
      input = copy.data() - copied->first;  // the vector's storage moves with it
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
