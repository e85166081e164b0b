// Reduce. A binomial tree towards the root with every hop compressed; the
// tree shape, and so the order of operations, depends only on rank count
// and root. With several chunks the tree pipelines: a member forwards chunk
// c to its parent as soon as its children's chunk c is folded in.
//
// Node-aware, a node-local PMPI_Reduce first gathers each node's sum at its
// member (the root on its own node, the lowest rank elsewhere), and the
// compressed tree spans those members only.
#include <cstring>
#include <vector>

#include "coll/bound.h"
#include "coll/call.h"
#include "coll/coll.h"
#include "coll/plan.h"
#include "coll/tree.h"
#include "runtime/scratch.h"
#include "wire/frame.h"

namespace adacomp {
namespace {

void tree_reduce(CompressedCall& call, const std::vector<int>& members, int me, uint8_t* acc,
                 int count, MPI_Datatype type, MPI_Op op) {
  const Plan& plan = call.plan;
  const int k = plan.chunks;
  const size_t elem = plan.type.size;
  auto chunk_offset = [&](int c) { return block_begin(count, k, c) * elem; };
  auto chunk_bytes = [&](int c) { return block_count(count, k, c) * elem; };
  const size_t cap = frame_capacity(max_block_count(count, k) * elem);

  const Tree t = binomial_tree(me, static_cast<int>(members.size()));
  const int nc = static_cast<int>(t.children.size());
  uint8_t* in_frames = scratch(ScratchSlot::frames, cap * k * (nc ? nc : 1));
  std::vector<MPI_Request> recvs(static_cast<size_t>(nc) * k);
  for (int i = 0; i < nc; ++i)
    for (int c = 0; c < k; ++c)
      call.irecv(in_frames + cap * (i * k + c), cap, members[t.children[i]], kTagTree,
                 &recvs[i * k + c]);

  const bool has_parent = t.parent >= 0;
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
      call.isend(out_frames + cap * c, n, chunk_bytes(c), members[t.parent], kTagTree,
                 &sends[c]);
      call.progress();
    }
  }
  call.wait_all(static_cast<int>(sends.size()), sends.data());
}

}  // namespace

CallResult reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                  MPI_Op op, int root, MPI_Comm comm) {
  stats_for(OpKind::reduce).calls.fetch_add(1, std::memory_order_relaxed);
  Plan plan;
  if (!plan_reduction(OpKind::reduce, comm, count, type, op, &plan)) return decline(plan);
  RootedTree tree;
  if (!rooted_tree(plan, root, &tree)) return kDeclined;
  const CommState& st = *plan.state;
  const std::vector<int>& members = tree.members;
  const int me = tree.me;
  const bool is_root = st.coll.rank == root;
  const void* input = is_root && sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;

  CompressedCall call(comm, plan, OpKind::reduce);
  // Every member but the root sends each element once: members-1
  // compressions; P-1 combining operations in all.
  if (plan.tier.tier == Tier::lossy)
    call.set_hop_bound(hop_bound(plan, input, count, st.coll.comm,
                                 static_cast<int>(members.size()) - 1, st.coll.size - 1));

  uint8_t* acc = is_root ? static_cast<uint8_t*>(recvbuf)
                         : me >= 0 ? scratch(ScratchSlot::accumulator, plan.bytes) : nullptr;
  int rc = MPI_SUCCESS;
  if (tree.per_node) {
    // No MPI_IN_PLACE here: some MPIs mishandle it at a non-zero root.
    if (is_root && sendbuf == MPI_IN_PLACE) {
      uint8_t* copy = scratch(ScratchSlot::work, plan.bytes);
      std::memcpy(copy, recvbuf, plan.bytes);
      input = copy;
    }
    rc = PMPI_Reduce(input, acc, count, type, op, tree.local_root, st.node.comm);
  } else if (input != acc) {
    std::memcpy(acc, input, plan.bytes);
  }
  if (rc == MPI_SUCCESS && me >= 0) tree_reduce(call, members, me, acc, count, type, op);
  return call.finish_with(rc);
}

}  // namespace adacomp
