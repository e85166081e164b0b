#include <cstring>
#include <vector>

#include "coll/call.h"
#include "coll/coll.h"
#include "coll/plan.h"
#include "runtime/scratch.h"
#include "wire/frame.h"

namespace adacomp {

// Binomial tree towards the root with every hop compressed. The tree shape,
// and so the order of operations, depends only on rank count and root.
int reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
           MPI_Op op, int root, MPI_Comm comm) {
  stats_for(Op::reduce).calls.fetch_add(1, std::memory_order_relaxed);
  Plan plan;
  if (!plan_reduction(comm, count, type, op, &plan))
    return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);

  const CommState& st = *plan.state;
  const int p = st.size, r = st.rank;
  if (root < 0 || root >= p) return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  const size_t bytes = static_cast<size_t>(count) * plan.type.size;
  const bool is_root = r == root;
  uint8_t* acc = is_root ? static_cast<uint8_t*>(recvbuf)
                         : scratch(ScratchSlot::accumulator, bytes);
  if (!(is_root && sendbuf == MPI_IN_PLACE)) std::memcpy(acc, sendbuf, bytes);

  CompressedCall call(comm, st, Op::reduce, *plan.codec, plan.params);
  const int vr = (r - root + p) % p;
  const size_t cap = frame_capacity(bytes);

  // Children are vr + mask for every mask below vr's lowest set bit; their
  // receives are all posted at once so the transfers overlap.
  std::vector<int> children;
  int mask = 1;
  for (; mask < p && !(vr & mask); mask <<= 1)
    if (vr + mask < p) children.push_back(vr + mask);
  const int n_children = static_cast<int>(children.size());
  uint8_t* frames = scratch(ScratchSlot::frames, cap * (n_children ? n_children : 1));
  std::vector<MPI_Request> reqs(n_children);
  for (int i = 0; i < n_children; ++i)
    call.irecv(frames + cap * i, cap, (children[i] + root) % p, kTagTree, &reqs[i]);

  uint8_t* incoming = scratch(ScratchSlot::work, bytes);
  for (int i = 0; i < n_children; ++i) {
    size_t got = 0;
    call.wait_all(1, &reqs[i], &got);
    if (call.decode(frames + cap * i, got, incoming, bytes))
      PMPI_Reduce_local(incoming, acc, count, type, op);
  }
  if (vr != 0) {
    const int parent = (vr - mask + root) % p;
    uint8_t* frame = scratch(ScratchSlot::send_frame, cap);
    size_t n = call.encode(acc, bytes, frame);
    MPI_Request req;
    call.isend(frame, n, bytes, parent, kTagTree, &req);
    call.wait_all(1, &req);
  }
  return call.finish();
}

}  // namespace adacomp
