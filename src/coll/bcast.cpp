#include "coll/call.h"
#include "coll/coll.h"
#include "coll/plan.h"
#include "runtime/scratch.h"
#include "wire/frame.h"

namespace adacomp {

// The root encodes once; the frame travels down a binomial tree unchanged and
// every rank decodes the same bytes. Its size travels in-band: receivers post
// the largest possible frame and read the actual size from the status.
int bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  stats_for(Op::bcast).calls.fetch_add(1, std::memory_order_relaxed);
  Plan plan;
  if (!plan_bcast(comm, count, type, &plan))
    return PMPI_Bcast(buffer, count, type, root, comm);

  const CommState& st = *plan.state;
  const int p = st.size, r = st.rank;
  if (root < 0 || root >= p) return PMPI_Bcast(buffer, count, type, root, comm);
  const size_t bytes = static_cast<size_t>(count) * plan.type.size;
  const bool is_root = r == root;
  CompressedCall call(comm, st, Op::bcast, *plan.codec, plan.params);
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

  const size_t cap = frame_capacity(bytes);
  uint8_t* frame = scratch(ScratchSlot::recv_frame, cap);
  size_t frame_bytes = 0;
  const int vr = (r - root + p) % p;
  int mask = 1;
  for (; mask < p; mask <<= 1) {
    if (vr & mask) {
      MPI_Request req;
      call.irecv(frame, cap, (vr - mask + root) % p, kTagTree, &req);
      call.wait_all(1, &req, &frame_bytes);
      break;
    }
  }
  if (is_root) frame_bytes = call.encode(data, bytes, frame);

  MPI_Request reqs[32];
  int n = 0;
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (vr + mask < p)
      call.isend(frame, frame_bytes, bytes, (vr + mask + root) % p, kTagTree, &reqs[n++]);
  // Decode while the frame travels on to the children.
  if (!is_root) call.decode(frame, frame_bytes, data, bytes);
  call.wait_all(n, reqs);

  if (!plan.type.contiguous && !is_root) {
    int pos = 0;
    PMPI_Unpack(data, static_cast<int>(bytes), &pos, buffer, count, type, st.coll);
  }
  return call.finish();
}

}  // namespace adacomp
