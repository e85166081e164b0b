// Bcast. The root encodes once; the frames travel down a binomial tree
// unchanged and every receiver decodes the same bytes. Sizes travel
// in-band: receivers post the largest possible frame and read the actual
// size from the status. With several chunks a rank forwards chunk c before
// decoding it, so the tree levels overlap.
//
// Node-aware, the tree spans one member per node (the root for its own
// node, the lowest rank elsewhere) and a node-local PMPI_Bcast from that
// member finishes the call. Lossy, the root's node then holds the root's
// exact values and every other rank the same decoded ones.
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

// The compressed tree stage over `members` on packed (contiguous) data.
void tree_bcast(CompressedCall& call, const std::vector<int>& members, int me, uint8_t* data) {
  const Plan& plan = call.plan;
  const int k = plan.chunks;
  const size_t elem = plan.type.size, elems = plan.bytes / elem;
  auto chunk_offset = [&](int c) { return block_begin(elems, k, c) * elem; };
  auto chunk_bytes = [&](int c) { return block_count(elems, k, c) * elem; };
  const size_t cap = frame_capacity(max_block_count(elems, k) * elem);
  uint8_t* frames = scratch(ScratchSlot::frames, cap * k);
  std::vector<size_t> sizes(k);

  const Tree t = binomial_tree(me, static_cast<int>(members.size()));
  const bool is_root = t.parent < 0;
  std::vector<MPI_Request> recvs(is_root ? 0 : k);
  for (int c = 0; c < static_cast<int>(recvs.size()); ++c)
    call.irecv(frames + cap * c, cap, members[t.parent], kTagTree, &recvs[c]);
  std::vector<MPI_Request> sends;
  sends.reserve(t.children.size() * k);
  for (int c = 0; c < k; ++c) {
    uint8_t* frame = frames + cap * c;
    if (is_root) sizes[c] = call.encode(data + chunk_offset(c), chunk_bytes(c), frame);
    else call.wait_all(1, &recvs[c], &sizes[c]);
    // Farthest child first: its subtree is the deepest.
    for (auto child = t.children.rbegin(); child != t.children.rend(); ++child) {
      sends.emplace_back();
      call.isend(frame, sizes[c], chunk_bytes(c), members[*child], kTagTree, &sends.back());
    }
    // Decode while the chunk travels on to the children.
    if (!is_root) call.decode(frame, sizes[c], data + chunk_offset(c), chunk_bytes(c));
    call.progress();
  }
  call.wait_all(static_cast<int>(sends.size()), sends.data());
}

}  // namespace

CallResult bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  stats_for(OpKind::bcast).calls.fetch_add(1, std::memory_order_relaxed);
  Plan plan;
  if (!plan_movement(OpKind::bcast, comm, count, type, &plan)) return decline(plan);
  RootedTree tree;
  if (!rooted_tree(plan, root, &tree)) return kDeclined;
  const CommState& st = *plan.state;
  const int r = st.coll.rank;
  const std::vector<int>& members = tree.members;
  const int me = tree.me;
  CompressedCall call(comm, plan, OpKind::bcast);

  if (me >= 0 && members.size() > 1) {
    // Non-contiguous data is packed into a contiguous staging buffer first.
    const size_t bytes = plan.bytes;
    uint8_t* data = stage(buffer, count, type, plan.type, bytes, r == root, st.coll.comm);
    // One compression between the root's data and any receiver.
    if (r == root && plan.tier.tier == Tier::lossy)
      call.set_hop_bound(hop_bound(plan, data, bytes / plan.type.size, MPI_COMM_NULL, 1, 0));
    tree_bcast(call, members, me, data);
    if (r != root) unstage(data, bytes, buffer, type, plan.type, st.coll.comm);
  }
  int rc = MPI_SUCCESS;
  if (tree.per_node) rc = PMPI_Bcast(buffer, count, type, tree.local_root, st.node.comm);
  return call.finish_with(rc);
}

}  // namespace adacomp
