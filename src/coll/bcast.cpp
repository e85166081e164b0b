#include <vector>

#include "coll/bound.h"
#include "coll/call.h"
#include "coll/coll.h"
#include "coll/plan.h"
#include "runtime/scratch.h"
#include "wire/frame.h"

namespace adacomp {

// The root encodes once; the frames travel down a binomial tree unchanged
// and every rank decodes the same bytes. Sizes travel in-band: receivers
// post the largest possible frame and read the actual size from the status.
// With several chunks, a rank forwards chunk c before decoding it, so the
// tree levels overlap.
int bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  stats_for(Op::bcast).calls.fetch_add(1, std::memory_order_relaxed);
  Plan plan;
  if (!plan_movement(Op::bcast, comm, count, type, &plan))
    return PMPI_Bcast(buffer, count, type, root, comm);

  const CommState& st = *plan.state;
  const int p = st.size, r = st.rank, k = plan.chunks;
  if (root < 0 || root >= p) return PMPI_Bcast(buffer, count, type, root, comm);
  const size_t bytes = plan.bytes;
  const bool is_root = r == root;
  CompressedCall call(comm, plan, Op::bcast);
  if (p == 1) return call.finish();

  // Non-contiguous data is packed into a contiguous staging buffer first.
  uint8_t* data = static_cast<uint8_t*>(buffer) + plan.type.true_lb;
  if (!plan.type.contiguous) {
    data = scratch(ScratchSlot::work, bytes);
    if (is_root) {
      int pos = 0;
      PMPI_Pack(buffer, count, type, data, static_cast<int>(bytes), &pos, st.coll);
    }
  }
  // One compression between the root's data and any receiver.
  if (is_root && plan.tier.tier == Tier::lossy)
    call.set_hop_bound(hop_bound(plan, data, bytes / plan.type.size, MPI_COMM_NULL, 1, 0));

  // Chunks are cut on byte boundaries that keep whole elements.
  const size_t elems = bytes / plan.type.size;
  auto chunk_offset = [&](int c) { return block_begin(elems, k, c) * plan.type.size; };
  auto chunk_bytes = [&](int c) { return block_count(elems, k, c) * plan.type.size; };
  const size_t cap = frame_capacity(max_block_count(elems, k) * plan.type.size);
  uint8_t* frames = scratch(ScratchSlot::frames, cap * k);
  std::vector<size_t> sizes(k);

  const int vr = (r - root + p) % p;
  int mask = 1;
  while (mask < p && !(vr & mask)) mask <<= 1;
  std::vector<MPI_Request> recvs(is_root ? 0 : k);
  for (int c = 0; c < static_cast<int>(recvs.size()); ++c)
    call.irecv(frames + cap * c, cap, (vr - mask + root) % p, kTagTree, &recvs[c]);
  std::vector<int> children;
  for (int m = mask >> 1; m > 0; m >>= 1)
    if (vr + m < p) children.push_back((vr + m + root) % p);

  std::vector<MPI_Request> sends;
  sends.reserve(children.size() * k);
  for (int c = 0; c < k; ++c) {
    uint8_t* frame = frames + cap * c;
    if (is_root) sizes[c] = call.encode(data + chunk_offset(c), chunk_bytes(c), frame);
    else call.wait_all(1, &recvs[c], &sizes[c]);
    for (int child : children) {
      sends.emplace_back();
      call.isend(frame, sizes[c], chunk_bytes(c), child, kTagTree, &sends.back());
    }
    // Decode while the chunk travels on to the children.
    if (!is_root) call.decode(frame, sizes[c], data + chunk_offset(c), chunk_bytes(c));
  }
  call.wait_all(static_cast<int>(sends.size()), sends.data());

  if (!plan.type.contiguous && !is_root) {
    int pos = 0;
    PMPI_Unpack(data, static_cast<int>(bytes), &pos, buffer, count, type, st.coll);
  }
  return call.finish();
}

}  // namespace adacomp
