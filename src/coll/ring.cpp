#include "coll/ring.h"

#include <vector>

#include "runtime/scratch.h"
#include "wire/frame.h"

namespace adacomp {
namespace {

struct Blocks {
  const ReduceArgs& a;
  int parts;
  size_t begin(int b) const { return block_begin(a.count, parts, b) * a.elem_size; }
  size_t bytes(int b) const { return block_count(a.count, parts, b) * a.elem_size; }
  size_t max_bytes() const { return ((a.count + parts - 1) / parts) * a.elem_size; }
};

}  // namespace

void ring_reduce_scatter(CompressedCall& call, const ReduceArgs& a) {
  const int p = call.state.size, r = call.state.rank;
  if (p == 1) return;
  const int left = (r - 1 + p) % p, right = (r + 1) % p;
  Blocks blocks{a, p};
  const size_t cap = frame_capacity(blocks.max_bytes());
  uint8_t* send_frame = scratch(ScratchSlot::send_frame, cap);
  uint8_t* recv_frame = scratch(ScratchSlot::recv_frame, cap);
  uint8_t* incoming = scratch(ScratchSlot::work, blocks.max_bytes());

  for (int step = 0; step < p - 1; ++step) {
    const int sb = (r - step + p) % p;
    const int rb = (r - step - 1 + 2 * p) % p;
    MPI_Request reqs[2];
    call.irecv(recv_frame, cap, left, kTagRing, &reqs[0]);
    size_t n = call.encode(a.acc + blocks.begin(sb), blocks.bytes(sb), send_frame);
    call.isend(send_frame, n, blocks.bytes(sb), right, kTagRing, &reqs[1]);
    size_t got[2] = {0, 0};
    call.wait_all(2, reqs, got);
    if (call.decode(recv_frame, got[0], incoming, blocks.bytes(rb)))
      PMPI_Reduce_local(incoming, a.acc + blocks.begin(rb),
                        static_cast<int>(block_count(a.count, p, rb)), a.type, a.op);
  }
}

void ring_allgather_frames(CompressedCall& call, const ReduceArgs& a) {
  const int p = call.state.size, r = call.state.rank;
  if (p == 1) return;
  const int left = (r - 1 + p) % p, right = (r + 1) % p;
  Blocks blocks{a, p};
  const size_t cap = frame_capacity(blocks.max_bytes());
  uint8_t* frames = scratch(ScratchSlot::frames, cap * p);
  auto slot = [&](int b) { return frames + cap * static_cast<size_t>(b); };
  std::vector<size_t> sizes(p);

  const int mine = owned_block(r, p);
  sizes[mine] = call.encode(a.acc + blocks.begin(mine), blocks.bytes(mine), slot(mine));
  // The owner adopts the decoded form of its own block too, so that a lossy
  // codec leaves every rank with identical values.
  if (call.lossy())
    call.decode(slot(mine), sizes[mine], a.acc + blocks.begin(mine), blocks.bytes(mine));

  // Decode the block received in the previous step while the next one travels.
  int pending = -1;
  for (int step = 0; step < p - 1; ++step) {
    const int sb = (mine - step + p) % p;
    const int rb = (mine - step - 1 + p) % p;
    MPI_Request reqs[2];
    call.irecv(slot(rb), cap, left, kTagRing, &reqs[0]);
    call.isend(slot(sb), sizes[sb], blocks.bytes(sb), right, kTagRing, &reqs[1]);
    if (pending >= 0)
      call.decode(slot(pending), sizes[pending], a.acc + blocks.begin(pending),
                  blocks.bytes(pending));
    size_t got[2] = {0, 0};
    call.wait_all(2, reqs, got);
    sizes[rb] = got[0];
    pending = rb;
  }
  if (pending >= 0)
    call.decode(slot(pending), sizes[pending], a.acc + blocks.begin(pending),
                blocks.bytes(pending));
}

}  // namespace adacomp
