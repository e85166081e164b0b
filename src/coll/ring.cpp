#include "coll/ring.h"

#include "runtime/scratch.h"

namespace adacomp {
namespace {

// One ring over the call's group: this rank, its neighbours, and the
// geometry of its blocks with at most `cap` frame bytes per chunk.
struct Ring : RingGeometry {
  Ring(const CompressedCall& call, const ReduceArgs& args)
      : RingGeometry{args, call.plan.chunks}, p(call.group.size), r(call.group.rank),
        left((r - 1 + p) % p), right((r + 1) % p), cap(chunk_capacity()) {}
  const int p, r, left, right;
  const size_t cap;
};

}  // namespace

std::vector<RingBlock> even_blocks(size_t count, int parts) {
  std::vector<RingBlock> blocks(parts);
  for (int b = 0; b < parts; ++b)
    blocks[b] = {block_begin(count, parts, b), block_count(count, parts, b)};
  return blocks;
}

void ring_reduce_scatter(CompressedCall& call, const ReduceArgs& a) {
  const Ring g(call, a);
  if (g.p == 1) return;
  const int p = g.p, r = g.r, k = g.chunks, left = g.left, right = g.right;
  const size_t cap = g.cap;
  uint8_t* send_frames = scratch(ScratchSlot::send_frame, cap * k);
  uint8_t* recv_frames = scratch(ScratchSlot::recv_frame, cap * k);
  uint8_t* incoming = scratch(ScratchSlot::work, cap);
  std::vector<MPI_Request> recvs(k), sends(k);

  for (int step = 0; step < p - 1; ++step) {
    const int sb = (r - step + p) % p;
    const int rb = (r - step - 1 + 2 * p) % p;
    for (int c = 0; c < k; ++c) call.irecv(recv_frames + cap * c, cap, left, kTagRing, &recvs[c]);
    int next = 0;  // next chunk of rb to fold in
    auto fold = [&](size_t got) {
      const size_t bytes = g.chunk_bytes(rb, next);
      if (call.decode(recv_frames + cap * next, got, incoming, bytes))
        PMPI_Reduce_local(incoming, a.acc + g.chunk_offset(rb, next),
                          static_cast<int>(bytes / a.elem_size), a.type, a.op);
      ++next;
    };
    size_t got = 0;
    for (int c = 0; c < k; ++c) {
      const size_t bytes = g.chunk_bytes(sb, c);
      size_t n = call.encode(a.acc + g.chunk_offset(sb, c), bytes, send_frames + cap * c);
      call.isend(send_frames + cap * c, n, bytes, right, kTagRing, &sends[c]);
      call.progress();
      while (next < k && call.test(&recvs[next], &got)) fold(got);
    }
    while (next < k) {
      call.wait_all(1, &recvs[next], &got);
      fold(got);
    }
    call.wait_all(k, sends.data());
  }
}

void ring_allgather_frames(CompressedCall& call, const ReduceArgs& a) {
  const Ring g(call, a);
  if (g.p == 1) return;
  const int p = g.p, r = g.r, k = g.chunks, left = g.left, right = g.right;
  const size_t cap = g.cap;
  uint8_t* frames = scratch(ScratchSlot::frames, cap * k * p);
  auto slot = [&](int b, int c) { return frames + cap * (static_cast<size_t>(b) * k + c); };
  std::vector<size_t> sizes(static_cast<size_t>(p) * k);
  auto size_of = [&](int b, int c) -> size_t& { return sizes[static_cast<size_t>(b) * k + c]; };
  auto decode_block = [&](int b) {
    for (int c = 0; c < k; ++c) {
      call.decode(slot(b, c), size_of(b, c), a.acc + g.chunk_offset(b, c), g.chunk_bytes(b, c));
      call.progress();
    }
  };

  const int mine = owned_block(r, p);
  std::vector<MPI_Request> reqs(2 * k);
  std::vector<size_t> got(2 * k);
  int pending = -1;  // block received in the previous step, decoded while the next travels
  for (int step = 0; step < p - 1; ++step) {
    const int sb = (mine - step + p) % p;
    const int rb = (mine - step - 1 + p) % p;
    for (int c = 0; c < k; ++c) call.irecv(slot(rb, c), cap, left, kTagRing, &reqs[c]);
    for (int c = 0; c < k; ++c) {
      // Step 0 sends this rank's own block: each chunk leaves as soon as it
      // is encoded.
      if (step == 0)
        size_of(mine, c) = call.encode(a.acc + g.chunk_offset(mine, c), g.chunk_bytes(mine, c),
                                       slot(mine, c));
      call.isend(slot(sb, c), size_of(sb, c), g.chunk_bytes(sb, c), right, kTagRing,
                 &reqs[k + c]);
      if (step == 0) call.progress();
    }
    // The owner adopts the decoded form of its own block too, so that a
    // lossy codec leaves every rank with identical values.
    if (step == 0 && call.lossy()) decode_block(mine);
    if (pending >= 0) decode_block(pending);
    call.wait_all(2 * k, reqs.data(), got.data());
    for (int c = 0; c < k; ++c) size_of(rb, c) = got[c];
    pending = rb;
  }
  decode_block(pending);
}

}  // namespace adacomp
