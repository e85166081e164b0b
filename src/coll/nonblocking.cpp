// Compressed nonblocking collectives: the blocking calls' algorithms and
// frames (coll/ring.h, coll/bcast.cpp), cut into steps the progress engine
// (coll/schedule.h) runs as their messages arrive. Each step posts the same
// messages in the same order as the blocking call, on the private
// communicator under the call's own tag, so results are the blocking call's.
//
// What compresses is decided by plan_nonblocking (coll/plan.h); everything
// else is declined, and the entry point calls PMPI_I* (runtime/call_result.h).
#include <climits>
#include <cstring>
#include <memory>
#include <vector>

#include "coll/bound.h"
#include "coll/call.h"
#include "coll/coll.h"
#include "coll/plan.h"
#include "coll/ring.h"
#include "coll/ring_codes.h"
#include "coll/schedule.h"
#include "coll/tree.h"
#include "wire/frame.h"

namespace adacomp {
namespace {

// A lossy reduction's per-hop bound (coll/bound.h), or its grid when it
// reduces on codes (coll/ring_codes.h), without blocking: the value range
// (and for a codes candidate the codes view) is MAX-reduced by one
// PMPI_Iallreduce on the private communicator, started with the call (so in
// the same order on every rank as the blocking calls' agreements), and the
// choice made before the first coding: the blocking call's, on the same
// agreed numbers. Every element passes `compressions` codings and
// `additions` ops.
class BoundAgreement {
 public:
  // `codes`: the call is a codes candidate, a flat ring over every rank.
  void start(const Plan& plan, const void* data, size_t count, int compressions, int additions,
             bool codes = false) {
    if (plan.tier.tier != Tier::lossy) return;
    compressions_ = compressions;
    additions_ = additions;
    codes_ = codes;
    local_range(plan, data, count, mine_);
    if (codes) codes_local_view(plan, data, count, mine_ + 2);
    PMPI_Iallreduce(mine_, widest_, codes ? 2 + kCodesView : 2, MPI_DOUBLE, MPI_MAX,
                    plan.state->coll.comm, &req_);
    pending_ = true;
  }
  // True once the bound or the grid is set (at once when not lossy).
  bool ready(CompressedCall& call) {
    if (!pending_) return true;
    int done = 0;
    if (PMPI_Test(&req_, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done) return false;
    const int ranks = call.plan.state->coll.size;
    if (codes_) grid_ = grid_from_view(call.plan, widest_ + 2, ranks, 1);
    if (!grid_.on)
      call.set_hop_bound(bound_from_range(call.plan, widest_, ranks, compressions_, additions_));
    pending_ = false;
    return true;
  }
  const CodesGrid& grid() const { return grid_; }

 private:
  double mine_[2 + kCodesView] = {}, widest_[2 + kCodesView] = {};
  MPI_Request req_ = MPI_REQUEST_NULL;
  int compressions_ = 0, additions_ = 0;
  bool pending_ = false, codes_ = false;
  CodesGrid grid_;
};

// The flat ring (coll/ring.cpp): P-1 reduce-scatter steps, then for the
// Allreduce P-1 allgather steps forwarding the owners' frames. Alone
// (Reduce_scatter_block) the owned block is copied out at the end. A lossy
// SUM Allreduce reduces on codes exactly when the blocking call does (the
// same agreed grid), with the blocking call's CodesRing. The buffers of the
// path taken are allocated once the agreement has chosen it.
class Ring : public Schedule {
 public:
  // `out`: where the owned block goes (Reduce_scatter_block); null for the
  // Allreduce, whose result is acc itself.
  // `storage`: the accumulator when the schedule owns it (acc points into it).
  Ring(MPI_Comm app, const Plan& plan, OpKind operation, CallForm form, uint8_t* acc,
       std::vector<RingBlock> blocks, MPI_Datatype type, MPI_Op op, void* out,
       std::vector<uint8_t> storage = {})
      : plan_(plan),
        call_(app, plan_, operation, form),
        storage_(std::move(storage)),
        args_{acc, plan.type.size, type, op, std::move(blocks)},
        geo_{args_, plan.chunks},
        p_(call_.group.size),
        r_(call_.group.rank),
        k_(plan.chunks),
        tag_(next_collective_tag(*plan.state)),
        cap_(geo_.chunk_capacity()),
        out_(static_cast<uint8_t*>(out)) {
    const size_t total = plan.bytes / plan.type.size;
    // The blocking Reduce_scatter(_block) never reduces on codes.
    bound_.start(plan_, acc, total,
                 out ? reduce_scatter_compressions(p_) : allreduce_compressions(p_), p_ - 1,
                 !out && codes_candidate(plan_, op, total, p_));
  }

  bool advance() override {
    if (phase_ == Phase::agree && !choose()) return false;
    if (codes_) return codes_->advance(false);
    while (phase_ != Phase::done)
      if (!(phase_ == Phase::reduce_scatter ? reduce_scatter_step() : allgather_step()))
        return false;
    if (out_ && !copied_) {
      const RingBlock& mine = args_.blocks[owned_block(r_, p_)];
      std::memcpy(out_, args_.acc + mine.offset * args_.elem_size, mine.count * args_.elem_size);
      copied_ = true;
    }
    return true;
  }
  int finish() override { return call_.finish(); }

 private:
  enum class Phase { agree, reduce_scatter, allgather, done };
  int left() const { return (r_ - 1 + p_) % p_; }
  int right() const { return (r_ + 1) % p_; }
  uint8_t* slot(int b, int c) { return frames_.data() + cap_ * (static_cast<size_t>(b) * k_ + c); }
  size_t& size_of(int b, int c) { return sizes_[static_cast<size_t>(b) * k_ + c]; }

  // Once the agreement is in (at once when not lossy): the path and its
  // buffers, the codes ring's memory or the decode-add-encode hops'.
  bool choose() {
    if (!bound_.ready(call_)) return false;
    phase_ = p_ == 1 ? Phase::done : Phase::reduce_scatter;
    if (bound_.grid().on) {
      const size_t total = plan_.bytes / plan_.type.size;
      codes_memory_.reset(new uint8_t[CodesRing::memory_bytes(call_, total)]);
      codes_ = std::make_unique<CodesRing>(call_, args_.acc, args_.acc, total, bound_.grid(),
                                           tag_, codes_memory_.get());
    } else if (p_ > 1) {
      send_.resize(cap_ * k_);
      recv_.resize(cap_ * k_);
      incoming_.resize(cap_);
      reqs_.resize(2 * k_);
      if (!out_) {  // the allgather's
        frames_.resize(cap_ * k_ * p_);
        sizes_.resize(static_cast<size_t>(p_) * k_);
        got_.resize(2 * k_);
      }
    }
    return true;
  }

  // One reduce-scatter step; true when it is complete.
  bool reduce_scatter_step() {
    const int sb = (r_ - step_ + p_) % p_, rb = (r_ - step_ - 1 + 2 * p_) % p_;
    if (!posted_) {
      for (int c = 0; c < k_; ++c)
        call_.irecv(recv_.data() + cap_ * c, cap_, left(), tag_, &reqs_[c]);
      for (int c = 0; c < k_; ++c) {
        const size_t bytes = geo_.chunk_bytes(sb, c);
        size_t n = call_.encode(args_.acc + geo_.chunk_offset(sb, c), bytes, send_.data() + cap_ * c);
        call_.isend(send_.data() + cap_ * c, n, bytes, right(), tag_, &reqs_[k_ + c]);
      }
      posted_ = true;
      next_ = 0;
    }
    size_t got = 0;
    while (next_ < k_ && call_.test(&reqs_[next_], &got)) {
      const size_t bytes = geo_.chunk_bytes(rb, next_);
      if (call_.decode(recv_.data() + cap_ * next_, got, incoming_.data(), bytes))
        PMPI_Reduce_local(incoming_.data(), args_.acc + geo_.chunk_offset(rb, next_),
                          static_cast<int>(bytes / args_.elem_size), args_.type, args_.op);
      ++next_;
    }
    if (next_ < k_ || !call_.test_all(k_, &reqs_[k_])) return false;
    posted_ = false;
    if (++step_ == p_ - 1) phase_ = out_ ? Phase::done : Phase::allgather, step_ = 0;
    return true;
  }

  void decode_block(int b) {
    for (int c = 0; c < k_; ++c)
      call_.decode(slot(b, c), size_of(b, c), args_.acc + geo_.chunk_offset(b, c),
                   geo_.chunk_bytes(b, c));
  }

  // One allgather step; the block received in the previous step is decoded
  // while this one travels.
  bool allgather_step() {
    const int mine = owned_block(r_, p_);
    const int sb = (mine - step_ + p_) % p_, rb = (mine - step_ - 1 + p_) % p_;
    if (!posted_) {
      for (int c = 0; c < k_; ++c) call_.irecv(slot(rb, c), cap_, left(), tag_, &reqs_[c]);
      for (int c = 0; c < k_; ++c) {
        if (step_ == 0)
          size_of(mine, c) = call_.encode(args_.acc + geo_.chunk_offset(mine, c),
                                          geo_.chunk_bytes(mine, c), slot(mine, c));
        call_.isend(slot(sb, c), size_of(sb, c), geo_.chunk_bytes(sb, c), right(), tag_,
                    &reqs_[k_ + c]);
      }
      if (step_ == 0 && call_.lossy()) decode_block(mine);
      if (pending_ >= 0) decode_block(pending_);
      posted_ = true;
    }
    if (!call_.test_all(2 * k_, reqs_.data(), got_.data())) return false;
    for (int c = 0; c < k_; ++c) size_of(rb, c) = got_[c];
    pending_ = rb;
    posted_ = false;
    if (++step_ == p_ - 1) {
      decode_block(pending_);
      phase_ = Phase::done;
    }
    return true;
  }

  const Plan plan_;
  CompressedCall call_;
  std::vector<uint8_t> storage_;
  const ReduceArgs args_;
  const RingGeometry geo_;
  const int p_, r_, k_, tag_;
  const size_t cap_;
  std::vector<uint8_t> send_, recv_, incoming_, frames_;
  std::vector<size_t> sizes_;
  std::vector<MPI_Request> reqs_;  // receives first, then sends
  std::vector<size_t> got_;
  uint8_t* const out_;
  BoundAgreement bound_;
  std::unique_ptr<uint8_t[]> codes_memory_;  // not zeroed: CodesRing writes before it reads
  std::unique_ptr<CodesRing> codes_;
  Phase phase_ = Phase::agree;
  int step_ = 0, next_ = 0, pending_ = -1;
  bool posted_ = false, copied_ = false;
};

// The flat binomial-tree Reduce (coll/reduce.cpp): chunk by chunk, the
// children's frames folded in child order (the blocking call's order of
// operations), then the chunk coded on to the parent.
class TreeReduce : public Schedule {
 public:
  TreeReduce(MPI_Comm app, const Plan& plan, CallForm form, const void* input, void* recvbuf,
             int count, MPI_Datatype type, MPI_Op op, int root)
      : plan_(plan),
        call_(app, plan_, OpKind::reduce, form),
        count_(count),
        type_(type),
        op_(op),
        tag_(next_collective_tag(*plan.state)),
        k_(plan.chunks),
        cap_(frame_capacity(max_block_count(count, k_) * plan.type.size)) {
    CommState& st = *plan_.state;
    RootedTree tree;
    rooted_tree(plan_, root, &tree);  // flat; the caller checked the root
    members_ = tree.members;
    tree_ = binomial_tree(tree.me, static_cast<int>(members_.size()));
    const bool is_root = st.coll.rank == root;
    if (!is_root) own_.resize(plan_.bytes);
    acc_ = is_root ? static_cast<uint8_t*>(recvbuf) : own_.data();
    if (input != acc_) std::memcpy(acc_, input, plan_.bytes);
    // Every member but the root sends each element once.
    bound_.start(plan_, acc_, count, static_cast<int>(members_.size()) - 1, st.coll.size - 1);
    const int nc = static_cast<int>(tree_.children.size());
    in_.resize(cap_ * k_ * nc);
    out_.resize(tree_.parent >= 0 ? cap_ * k_ : 0);
    incoming_.resize(cap_);
    recvs_.resize(static_cast<size_t>(nc) * k_);
    for (int i = 0; i < nc; ++i)
      for (int c = 0; c < k_; ++c)
        call_.irecv(in_.data() + cap_ * (i * k_ + c), cap_, members_[tree_.children[i]], tag_,
                    &recvs_[i * k_ + c]);
    sends_.resize(tree_.parent >= 0 ? k_ : 0);
  }

  bool advance() override {
    if (!bound_.ready(call_)) return false;
    const size_t elem = plan_.type.size;
    const int nc = static_cast<int>(tree_.children.size());
    for (; c_ < k_; ++c_, i_ = 0) {
      uint8_t* chunk = acc_ + block_begin(count_, k_, c_) * elem;
      const size_t bytes = block_count(count_, k_, c_) * elem;
      for (size_t got = 0; i_ < nc; ++i_) {
        if (!call_.test(&recvs_[i_ * k_ + c_], &got)) return false;
        if (call_.decode(in_.data() + cap_ * (i_ * k_ + c_), got, incoming_.data(), bytes))
          PMPI_Reduce_local(incoming_.data(), chunk, static_cast<int>(bytes / elem), type_, op_);
      }
      if (tree_.parent >= 0) {
        size_t n = call_.encode(chunk, bytes, out_.data() + cap_ * c_);
        call_.isend(out_.data() + cap_ * c_, n, bytes, members_[tree_.parent], tag_,
                    &sends_[c_]);
      }
    }
    return call_.test_all(static_cast<int>(sends_.size()), sends_.data());
  }
  int finish() override { return call_.finish(); }

 private:
  const Plan plan_;
  CompressedCall call_;
  const int count_;
  const MPI_Datatype type_;
  const MPI_Op op_;
  const int tag_, k_;
  const size_t cap_;
  std::vector<int> members_;
  Tree tree_;
  std::vector<uint8_t> own_, in_, out_, incoming_;
  uint8_t* acc_ = nullptr;
  std::vector<MPI_Request> recvs_, sends_;
  BoundAgreement bound_;
  int c_ = 0, i_ = 0;
};

// The flat binomial-tree Bcast (coll/bcast.cpp): the root codes each chunk
// once, every other rank forwards the frame unchanged, then decodes it.
class TreeBcast : public Schedule {
 public:
  TreeBcast(MPI_Comm app, const Plan& plan, CallForm form, void* buffer, int count,
            MPI_Datatype type, int root)
      : plan_(plan),
        call_(app, plan_, OpKind::bcast, form),
        buffer_(buffer),
        type_(type),
        root_(root),
        tag_(next_collective_tag(*plan.state)),
        k_(plan.chunks),
        elems_(plan.bytes / plan.type.size),
        cap_(frame_capacity(max_block_count(elems_, k_) * plan.type.size)),
        frames_(cap_ * k_),
        sizes_(k_) {
    CommState& st = *plan_.state;
    RootedTree tree;
    rooted_tree(plan_, root, &tree);  // flat; the caller checked the root
    members_ = tree.members;
    tree_ = binomial_tree(tree.me, static_cast<int>(members_.size()));
    is_root_ = tree_.parent < 0;
    alone_ = members_.size() <= 1;
    // Non-contiguous data is packed into the schedule's own staging area.
    if (!plan_.type.contiguous) staging_.resize(plan_.bytes);
    data_ = stage_in(staging_.data(), buffer, count, type, plan_.type, plan_.bytes, is_root_,
                     st.coll.comm);
    // One compression between the root's data and any receiver.
    if (is_root_ && !alone_ && plan_.tier.tier == Tier::lossy)
      call_.set_hop_bound(hop_bound(plan_, data_, elems_, MPI_COMM_NULL, 1, 0));
    recvs_.resize(is_root_ ? 0 : k_);
    for (int c = 0; c < static_cast<int>(recvs_.size()); ++c)
      call_.irecv(frames_.data() + cap_ * c, cap_, members_[tree_.parent], tag_, &recvs_[c]);
    sends_.reserve(tree_.children.size() * k_);
  }

  bool advance() override {
    const size_t elem = plan_.type.size;
    for (; next_ < k_ && !alone_; ++next_) {
      const int c = next_;
      uint8_t* frame = frames_.data() + cap_ * c;
      uint8_t* chunk = data_ + block_begin(elems_, k_, c) * elem;
      const size_t bytes = block_count(elems_, k_, c) * elem;
      if (is_root_) sizes_[c] = call_.encode(chunk, bytes, frame);
      else if (!call_.test(&recvs_[c], &sizes_[c])) return false;
      // Farthest child first: its subtree is the deepest.
      for (auto child = tree_.children.rbegin(); child != tree_.children.rend(); ++child) {
        sends_.emplace_back();
        call_.isend(frame, sizes_[c], bytes, members_[*child], tag_, &sends_.back());
      }
      if (!is_root_) call_.decode(frame, sizes_[c], chunk, bytes);
    }
    if (!call_.test_all(static_cast<int>(sends_.size()), sends_.data())) return false;
    if (!is_root_ && !unpacked_) {
      unstage(data_, plan_.bytes, buffer_, type_, plan_.type, plan_.state->coll.comm);
      unpacked_ = true;
    }
    return true;
  }
  int finish() override { return call_.finish(); }

 private:
  const Plan plan_;
  CompressedCall call_;
  void* buffer_;
  const MPI_Datatype type_;
  const int root_, tag_, k_;
  const size_t elems_, cap_;
  std::vector<uint8_t> frames_, staging_;
  std::vector<size_t> sizes_;
  std::vector<int> members_;
  Tree tree_;
  bool is_root_ = false, alone_ = false, unpacked_ = false;
  uint8_t* data_ = nullptr;
  std::vector<MPI_Request> recvs_, sends_;
  int next_ = 0;
};

// The nonblocking and persistent (`how`) forms of each reduction and the
// Bcast, gated once; the schedule reads the buffers when it is made.
CallResult allreduce_impl(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, Launch how) {
  stats_for(OpKind::allreduce).calls.fetch_add(1, std::memory_order_relaxed);
  Plan plan;
  if (!plan_nonblocking(OpKind::allreduce, comm, count, type, op, &plan))
    return decline(plan);
  return launch_schedule(
      [=]() -> std::unique_ptr<Schedule> {
        if (sendbuf != MPI_IN_PLACE) std::memcpy(recvbuf, sendbuf, plan.bytes);
        return std::make_unique<Ring>(comm, plan, OpKind::allreduce, how.form(),
                                      static_cast<uint8_t*>(recvbuf),
                                      even_blocks(count, plan.state->coll.size), type, op,
                                      nullptr);
      },
      comm, *plan.state, how);
}

CallResult reduce_impl(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                       MPI_Op op, int root, MPI_Comm comm, Launch how) {
  stats_for(OpKind::reduce).calls.fetch_add(1, std::memory_order_relaxed);
  Plan plan;
  if (!plan_nonblocking(OpKind::reduce, comm, count, type, op, &plan) || root < 0 ||
      root >= plan.state->coll.size)
    return decline(plan);
  const bool is_root = plan.state->coll.rank == root;
  const void* input = is_root && sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  return launch_schedule(
      [=]() -> std::unique_ptr<Schedule> {
        return std::make_unique<TreeReduce>(comm, plan, how.form(), input, recvbuf, count, type,
                                            op, root);
      },
      comm, *plan.state, how);
}

CallResult bcast_impl(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                      Launch how) {
  stats_for(OpKind::bcast).calls.fetch_add(1, std::memory_order_relaxed);
  Plan plan;
  if (!plan_nonblocking(OpKind::bcast, comm, count, type, MPI_OP_NULL, &plan) || root < 0 ||
      root >= plan.state->coll.size)  // PMPI reports a bad root
    return decline(plan);
  return launch_schedule(
      [=]() -> std::unique_ptr<Schedule> {
        return std::make_unique<TreeBcast>(comm, plan, how.form(), buffer, count, type, root);
      },
      comm, *plan.state, how);
}

}  // namespace

CallResult iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                      MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return allreduce_impl(sendbuf, recvbuf, count, type, op, comm, {request});
}

CallResult ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   int root, MPI_Comm comm, MPI_Request* request) {
  return reduce_impl(sendbuf, recvbuf, count, type, op, root, comm, {request});
}

CallResult ibcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                  MPI_Request* request) {
  return bcast_impl(buffer, count, type, root, comm, {request});
}

// The blocking call's layout (coll/reduce_scatter.cpp): rank i's slice is
// ring block owned_block(i), so nothing travels after the reduce-scatter.
CallResult ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                 MPI_Request* request) {
  stats_for(OpKind::reduce_scatter_block).calls.fetch_add(1, std::memory_order_relaxed);
  Plan plan;
  int p = 0;
  if (comm == MPI_COMM_NULL || recvcount < 0 || PMPI_Comm_size(comm, &p) != MPI_SUCCESS ||
      static_cast<long long>(recvcount) * p > INT_MAX ||
      !plan_nonblocking(OpKind::reduce_scatter_block, comm, recvcount * p, type, op, &plan))
    return decline(plan);
  const Launch how{request};
  return launch_schedule(
      [=]() -> std::unique_ptr<Schedule> {
        std::vector<RingBlock> blocks(p);
        for (int i = 0; i < p; ++i)
          blocks[owned_block(i, p)] = {static_cast<size_t>(i) * recvcount,
                                       static_cast<size_t>(recvcount)};
        std::vector<uint8_t> acc(plan.bytes);
        std::memcpy(acc.data(), sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, plan.bytes);
        uint8_t* at = acc.data();
        return std::make_unique<Ring>(comm, plan, OpKind::reduce_scatter_block, how.form(), at,
                                      std::move(blocks), type, op, recvbuf, std::move(acc));
      },
      comm, *plan.state, how);
}

#if MPI_VERSION >= 4
CallResult allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return allreduce_impl(sendbuf, recvbuf, count, type, op, comm, {request, true});
}

CallResult reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                       MPI_Op op, int root, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return reduce_impl(sendbuf, recvbuf, count, type, op, root, comm, {request, true});
}

CallResult bcast_init(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm,
                      MPI_Info, MPI_Request* request) {
  return bcast_impl(buffer, count, type, root, comm, {request, true});
}
#endif  // MPI_VERSION >= 4

}  // namespace adacomp
