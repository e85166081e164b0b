#include <cstring>
#include <vector>

#include "coll/bound.h"
#include "coll/call.h"
#include "coll/coll.h"
#include "coll/plan.h"
#include "runtime/scratch.h"
#include "wire/frame.h"

namespace adacomp {

// Binomial tree towards the root with every hop compressed. The tree shape,
// and so the order of operations, depends only on rank count and root. With
// several chunks the tree pipelines: a node forwards chunk c to its parent
// as soon as its children's chunk c is folded in.
int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
           MPI_Op op, int root, MPI_Comm comm) {
  stats_for(Op::reduce).calls.fetch_add(1, std::memory_order_relaxed);
  Plan plan;
  if (!plan_reduction(Op::reduce, comm, count, type, op, &plan))
    return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);

  const CommState& st = *plan.state;
  const int p = st.size, r = st.rank, k = plan.chunks;
  if (root < 0 || root >= p) return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  const size_t elem = plan.type.size;
  const bool is_root = r == root;
  uint8_t* acc = is_root ? static_cast<uint8_t*>(recvbuf)
                         : scratch(ScratchSlot::accumulator, plan.bytes);
  if (!(is_root && sendbuf == MPI_IN_PLACE)) std::memcpy(acc, sendbuf, plan.bytes);

  CompressedCall call(comm, plan, Op::reduce);
  // Every non-root rank sends each element once: P-1 compressions and P-1
  // combining operations in all.
  if (plan.tier.tier == Tier::lossy)
    call.set_hop_bound(hop_bound(plan, acc, count, st.coll, p - 1, p - 1));

  const int vr = (r - root + p) % p;
  auto chunk_offset = [&](int c) { return block_begin(count, k, c) * elem; };
  auto chunk_bytes = [&](int c) { return block_count(count, k, c) * elem; };
  const size_t cap = frame_capacity(max_block_count(count, k) * elem);

  // Children are vr + mask for every mask below vr's lowest set bit.
  std::vector<int> children;
  int mask = 1;
  for (; mask < p && !(vr & mask); mask <<= 1)
    if (vr + mask < p) children.push_back((vr + mask + root) % p);
  const int nc = static_cast<int>(children.size());
  uint8_t* in_frames = scratch(ScratchSlot::frames, cap * k * (nc ? nc : 1));
  std::vector<MPI_Request> recvs(static_cast<size_t>(nc) * k);
  for (int i = 0; i < nc; ++i)
    for (int c = 0; c < k; ++c)
      call.irecv(in_frames + cap * (i * k + c), cap, children[i], kTagTree, &recvs[i * k + c]);

  const bool has_parent = vr != 0;
  const int parent = (vr - mask + root) % p;
  uint8_t* out_frames = scratch(ScratchSlot::send_frame, cap * k);
  uint8_t* incoming = scratch(ScratchSlot::work, cap);
  std::vector<MPI_Request> sends(has_parent ? k : 0);
  for (int c = 0; c < k; ++c) {
    for (int i = 0; i < nc; ++i) {
      size_t got = 0;
      call.wait_all(1, &recvs[i * k + c], &got);
      if (call.decode(in_frames + cap * (i * k + c), got, incoming, chunk_bytes(c)))
        PMPI_Reduce_local(incoming, acc + chunk_offset(c),
                          static_cast<int>(chunk_bytes(c) / elem), type, op);
    }
    if (has_parent) {
      size_t n = call.encode(acc + chunk_offset(c), chunk_bytes(c), out_frames + cap * c);
      call.isend(out_frames + cap * c, n, chunk_bytes(c), parent, kTagTree, &sends[c]);
    }
  }
  call.wait_all(static_cast<int>(sends.size()), sends.data());
  return call.finish();
}

}  // namespace adacomp
