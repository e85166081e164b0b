// Reduce_scatter(_block), in every form (blocking; MPI_Ireduce_scatter_block):
// one schedule (coll/schedule.h), the Allreduce's ring reduce-scatter alone
// (coll/ring.h), on quantisation codes for a lossy SUM on float/double
// (coll/ring_codes.h) as the Allreduce. The ring leaves block owned_block(r) complete at rank r, so
// rank i's slice of the vector is laid out as ring block owned_block(i):
// every rank ends with its own reduced block and nothing travels after the
// reduce-scatter.
//
// Node-aware, only the inter-node stage is coded:
//   rails   (every node holds the same number of ranks L): each rank lays
//           its input out rail by rail, rail i's part the slices of the
//           ranks with local rank i in rail order; a node-local
//           PMPI_Reduce_scatter leaves local rank i with its node's sum of
//           rail i's part; every rail runs the ring on its part, one block
//           per member, so each rank ends with its own slice and nothing
//           travels after the ring. Every core codes, each 1/L of the vector.
//           Pipelined, the call runs in segments (coll/plan.h segmented),
//           each a part of every slice: segment k+1's node stage runs while
//           segment k's ring codes and sends.
//   leaders (any layout): a node-local PMPI_Reduce gives each node's leader
//           its node's sum; the leaders run the ring with one block per node
//           (the slices of the node's ranks, copied next to each other); a
//           node-local PMPI_Scatterv hands every rank its slice.
#include <climits>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "coll/bound.h"
#include "coll/call.h"
#include "coll/coll.h"
#include "coll/node_stage.h"
#include "coll/plan.h"
#include "coll/ring.h"
#include "coll/ring_codes.h"
#include "coll/schedule.h"

namespace adacomp {
namespace {

class ReduceScatterSchedule : public Schedule {
 public:
  // counts[i]: rank i's slice, the slices following each other in rank order.
  ReduceScatterSchedule(MPI_Comm app, const Plan& plan, OpKind operation, CallForm form, int tag,
                        const void* sendbuf, void* recvbuf, std::vector<size_t> counts,
                        MPI_Datatype type, MPI_Op op)
      : plan_(plan.layout == Layout::rails ? segmented(plan) : plan),
        call_(app, plan_, operation, ring_group(plan_), form),
        recvbuf_(static_cast<uint8_t*>(recvbuf)),
        type_(type),
        op_(op),
        tag_(tag) {
    CommState& s = *plan_.state;
    const int p = s.coll.size;
    const size_t total = plan_.bytes / plan_.type.size;
    input_ = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    mycount_ = counts[s.coll.rank];
    if (plan_.layout == Layout::flat) {
      Segment& g = segments_.emplace_back();
      g.blocks.resize(p);
      size_t at = 0;
      for (int i = 0; i < p; ++i) {
        g.blocks[owned_block(i, p)] = {at, counts[i]};
        at += counts[i];
      }
      // In place the input is the whole of recvbuf, which keeps everything
      // but its first block as it was.
      g.acc = call_.memory(ScratchSlot::accumulator, plan_.bytes);
      std::memcpy(g.acc, input_, plan_.bytes);
      agree_.start(call_, g.acc, total, reduce_scatter_compressions(p), p - 1,
                   codes_candidate(plan_, op, total, p) ? p : 0);
      return;
    }
    // Node-aware: the ring's members (a rail's or the leaders, one per
    // node) each bring the sum of up to max_local ranks' inputs.
    const Locality& loc = s.loc;
    agree_.start(call_, input_, total, reduce_scatter_compressions(loc.nodes), p - 1,
                 codes_candidate(plan_, op, total, loc.nodes) ? loc.nodes : 0, loc.max_local);
    if (plan_.layout == Layout::rails)
      lay_out_rails(counts);
    else
      lay_out_leaders(counts);
    // Tickets in this order on every rank of the node (node_stage.h).
    for (Segment& g : segments_) g.gather.emplace(s);
    if (plan_.layout == Layout::leaders) spread_.emplace(s);
  }

  bool advance(bool wait) override {
    if (segments_.size() == 1) {
      Segment& g = segments_[0];
      return gather(g, wait) && agree_.ready(call_, wait) && ring(g, wait) && deliver(g, wait);
    }
    // As the Allreduce's segments (coll/allreduce.cpp): node stages
    // nonblocking even in a blocking call, so that they overlap the rings.
    while (!advance_segments()) {
      if (!wait) return false;
      progress_collectives();
    }
    return true;
  }

  int finish() override {
    for (const Segment& g : segments_)
      if (g.gather) call_.check_mpi(g.gather->rc());
    if (spread_) call_.check_mpi(spread_->rc());
    return call_.finish();
  }

 private:
  // A part of the call that flows through the stages on its own: the node
  // stage combining it (node-aware), its ring, and its delivery.
  struct Segment {
    const uint8_t* in = nullptr;  // rails: the node stage's input, this segment of perm_
    std::vector<int> rail_counts;  // rails: each local rank's part of the segment
    uint8_t* acc = nullptr;        // the ring's vector (null: no part in it)
    std::vector<RingBlock> blocks;
    size_t out = 0;  // rails: where its piece of this rank's slice goes in recvbuf
    std::optional<NodeStage> gather;
    std::unique_ptr<HopRing> hops;
    std::unique_ptr<CodesRing> codes;
    bool ring_done = false, delivered = false;
  };

  // One pass over the segments; true once all are done. Segment k's gather
  // starts once k-1's is done, its ring once k-1's ring is (one ring's
  // memory and tag at a time).
  bool advance_segments() {
    bool done = true, gathered = true, ringed = true;
    for (Segment& g : segments_) {
      if (!gathered || !gather(g, false)) gathered = false;
      if (!gathered || !ringed || !agree_.ready(call_, false) || !ring(g, false)) ringed = false;
      if (!ringed || !deliver(g, false)) done = false;
    }
    return done;
  }

  bool failed(const Segment& g) const { return g.gather && g.gather->failed(); }

  // Rails: the input laid out segment by segment, each rail by rail (rail
  // i's part: its members' pieces of the segment, in rail rank order, the
  // order of their ranks), so that each segment's node stage reads one
  // contiguous range; rank r's piece of segment k is part k of its slice.
  void lay_out_rails(const std::vector<size_t>& counts) {
    const Locality& loc = plan_.state->loc;
    const int p = plan_.state->coll.size, rails = plan_.state->node.size;
    const int parts = plan_.segments;
    const size_t elem = plan_.type.size;
    std::vector<size_t> offset(p + 1, 0);
    for (int r = 0; r < p; ++r) offset[r + 1] = offset[r] + counts[r];
    std::vector<std::vector<int>> members(rails);  // per rail, its ranks in rank order
    std::vector<int> seen(loc.nodes, 0);
    for (int r = 0; r < p; ++r) members[seen[loc.node_of[r]]++].push_back(r);
    const std::vector<int>& mine = members[loc.local_rank];
    perm_ = call_.memory(ScratchSlot::accumulator, plan_.bytes);
    segments_.resize(parts);
    size_t at = 0, acc_count = 0;
    for (int k = 0; k < parts; ++k) {
      Segment& g = segments_[k];
      g.in = perm_ + at * elem;
      for (int i = 0; i < rails; ++i) {
        const size_t start = at;
        for (int r : members[i]) {
          const size_t n = block_count(counts[r], parts, k);
          std::memcpy(perm_ + at * elem,
                      static_cast<const uint8_t*>(input_) +
                          (offset[r] + block_begin(counts[r], parts, k)) * elem,
                      n * elem);
          at += n;
        }
        g.rail_counts.push_back(static_cast<int>(at - start));
      }
      g.blocks.assign(mine.size(), RingBlock{});
      size_t within = 0;
      for (size_t j = 0; j < mine.size(); ++j) {
        const size_t n = block_count(counts[mine[j]], parts, k);
        g.blocks[owned_block(static_cast<int>(j), static_cast<int>(mine.size()))] = {within, n};
        within += n;
      }
      g.out = block_begin(mycount_, parts, k);
      acc_count += within;
    }
    // Each segment's rail part, one after another (null where empty).
    uint8_t* acc = acc_count > 0 ? call_.memory(ScratchSlot::frames, acc_count * elem) : nullptr;
    for (Segment& g : segments_) {
      const size_t within = g.rail_counts[loc.local_rank];
      g.acc = within > 0 ? acc : nullptr;
      acc += within * elem;
    }
  }

  // Leaders: one segment; the ring's blocks are the nodes' (the slices of
  // a node's ranks side by side), its vector the node sum permuted to node
  // order; a node-local Scatterv hands each rank its slice.
  void lay_out_leaders(const std::vector<size_t>& counts) {
    const CommState& s = *plan_.state;
    const Locality& loc = s.loc;
    const int p = s.coll.size;
    std::vector<size_t> offset(p + 1, 0);
    for (int i = 0; i < p; ++i) offset[i + 1] = offset[i] + counts[i];
    Segment& g = segments_.emplace_back();
    g.blocks.resize(loc.nodes);
    size_t at = 0;
    for (int n = 0; n < loc.nodes; ++n) {
      const size_t start = at;
      for (int i = 0; i < p; ++i) {
        if (loc.node_of[i] != n) continue;
        if (n == loc.node) {
          scounts_.push_back(static_cast<int>(counts[i]));
          sdispls_.push_back(static_cast<int>(at - start));
        }
        at += counts[i];
      }
      g.blocks[owned_block(n, loc.nodes)] = {start, at - start};
    }
    for (int n = 0; n < loc.nodes; ++n)
      for (int i = 0; i < p; ++i)
        if (loc.node_of[i] == n) sources_.push_back({offset[i], counts[i]});
    if (s.node.rank == 0) {
      sum_ = call_.memory(ScratchSlot::accumulator, plan_.bytes);
      g.acc = call_.memory(ScratchSlot::frames, plan_.bytes);  // the permuted vector
    }
  }

  // The node's inputs combined before the ring: rails, each local rank
  // its rail's part of the segment; leaders, the node's sum at the leader.
  bool gather(Segment& g, bool wait) {
    if (!g.gather) return true;
    const Group& node = plan_.state->node;
    if (plan_.layout == Layout::rails)
      return g.gather->run(
          wait, false,
          [&] {
            return PMPI_Reduce_scatter(g.in, g.acc, g.rail_counts.data(), type_, op_, node.comm);
          },
          [&](MPI_Request* r) {
            return PMPI_Ireduce_scatter(g.in, g.acc, g.rail_counts.data(), type_, op_, node.comm,
                                        r);
          });
    const int total = static_cast<int>(plan_.bytes / plan_.type.size);
    return g.gather->run(
        wait, false, [&] { return PMPI_Reduce(input_, sum_, total, type_, op_, 0, node.comm); },
        [&](MPI_Request* r) {
          return PMPI_Ireduce(input_, sum_, total, type_, op_, 0, node.comm, r);
        });
  }

  // The segment's ring among every rank, a rail (on its node sums of the
  // rail's part) or the leaders (on their node sums, permuted to node
  // order): on codes when the agreement set a grid, else decode-add-encode.
  // Its buffers are taken when it starts and released when it is done, for
  // the next segment's ring.
  bool ring(Segment& g, bool wait) {
    if (g.ring_done) return true;
    if (!g.hops && !g.codes) {
      // Not a leader, an empty rail part (alike on the whole rail), or failed.
      if (!g.acc || failed(g)) return g.ring_done = true;
      if (sum_) permute(g.acc);
      if (agree_.grid().on)
        g.codes = std::make_unique<CodesRing>(call_, g.acc, g.acc, g.blocks, false,
                                              agree_.grid(), tag_);
      else
        g.hops = std::make_unique<HopRing>(
            call_, ReduceArgs{g.acc, plan_.type.size, type_, op_, g.blocks}, false, tag_);
    }
    if (!(g.codes ? g.codes->advance(wait) : g.hops->advance(wait))) return false;
    g.codes.reset(), g.hops.reset();
    return g.ring_done = true;
  }

  // This rank's piece of the result from the segment's owned block: flat
  // and rails, the ring left it here; leaders, the node's leader scatters it.
  bool deliver(Segment& g, bool wait) {
    if (g.delivered) return true;
    const size_t elem = plan_.type.size;
    if (!spread_) {
      const RingBlock& mine = g.blocks[owned_block(call_.group.rank, call_.group.size)];
      if (g.acc && mine.count > 0 && !failed(g))  // recvbuf may be null at 0
        std::memcpy(recvbuf_ + g.out * elem, g.acc + mine.offset * elem, mine.count * elem);
      return g.delivered = true;
    }
    const Group& node = plan_.state->node;
    const RingBlock& mine = g.blocks[owned_block(plan_.state->loc.node, plan_.state->loc.nodes)];
    uint8_t* from = g.acc ? g.acc + mine.offset * elem : nullptr;
    void* to = mycount_ > 0 ? recvbuf_ : nullptr;
    const int n = static_cast<int>(mycount_);
    return g.delivered = spread_->run(
               wait, failed(g),
               [&] {
                 return PMPI_Scatterv(from, scounts_.data(), sdispls_.data(), type_, to, n, type_,
                                      0, node.comm);
               },
               [&](MPI_Request* r) {
                 return PMPI_Iscatterv(from, scounts_.data(), sdispls_.data(), type_, to, n, type_,
                                       0, node.comm, r);
               });
  }

  // Leaders: the node's sum, in rank order, into `to` in node order.
  void permute(uint8_t* to) {
    const size_t elem = plan_.type.size;
    for (const RingBlock& src : sources_) {
      std::memcpy(to, sum_ + src.offset * elem, src.count * elem);
      to += src.count * elem;
    }
  }

  const Plan plan_;  // rails: segmented, its chunks each segment's ring's
  CompressedCall call_;
  uint8_t* const recvbuf_;
  const MPI_Datatype type_;
  const MPI_Op op_;
  const int tag_;
  const void* input_ = nullptr;
  size_t mycount_ = 0;
  std::vector<Segment> segments_;       // flat and leaders: one
  uint8_t* sum_ = nullptr;              // leaders, at the leader: the node's sum, in rank order
  uint8_t* perm_ = nullptr;             // rails: the input laid out segment by segment
  std::vector<RingBlock> sources_;      // leaders: rank slices of sum_, in node order
  std::vector<int> scounts_, sdispls_;  // leaders: this node's ranks' slices
  LossyAgreement agree_;
  std::optional<NodeStage> spread_;  // leaders
};

// Rank i's slice: counts[i] elements, or `block` for every rank when counts
// is null (Reduce_scatter_block). Count is int for the classic calls and
// MPI_Count for the MPI-4 _c forms. Eligibility is the Allreduce's, for the
// whole vector (identical on every rank: MPI requires identical counts, so
// the _c forms decide alike).
template <class Count>
CallResult reduce_scatter_impl(OpKind operation, const void* sendbuf, void* recvbuf,
                               const Count* counts, Count block, MPI_Datatype type, MPI_Op op,
                               MPI_Comm comm, Launch how = {}) {
  stats_for(operation).calls.fetch_add(1, std::memory_order_relaxed);
  Plan plan;
  int size = 0;
  if (comm == MPI_COMM_NULL || PMPI_Comm_size(comm, &size) != MPI_SUCCESS) return kDeclined;
  std::vector<size_t> slices(size);
  long long total = 0;
  for (int i = 0; i < size; ++i) {
    const Count n = counts ? counts[i] : block;
    if (n < 0) return kDeclined;  // PMPI reports the error
    slices[i] = static_cast<size_t>(n);
    total += n;
    if (total > INT_MAX) return kDeclined;  // PMPI takes it whole
  }
  const int count = static_cast<int>(total);
  if (!plan_call(operation, comm, count, type, op, how.form(), &plan)) return decline(plan);
  if (plan.layout != Layout::flat) ensure_node_groups(plan.state);
  return launch(*plan.state, comm, how, kTagRing, [=](int tag) {
    return std::make_unique<ReduceScatterSchedule>(comm, plan, operation, how.form(), tag, sendbuf,
                                                   recvbuf, slices, type, op);
  });
}

}  // namespace

template <class Count>
CallResult reduce_scatter_block(const void* sendbuf, void* recvbuf, Count recvcount,
                                MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return reduce_scatter_impl<Count>(OpKind::reduce_scatter_block, sendbuf, recvbuf, nullptr,
                                    recvcount, type, op, comm);
}

template <class Count>
CallResult reduce_scatter(const void* sendbuf, void* recvbuf, const Count recvcounts[],
                          MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  return reduce_scatter_impl<Count>(OpKind::reduce_scatter, sendbuf, recvbuf, recvcounts, 0, type,
                                    op, comm);
}

CallResult ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                 MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                                 MPI_Request* request) {
  return reduce_scatter_impl<int>(OpKind::reduce_scatter_block, sendbuf, recvbuf, nullptr,
                                  recvcount, type, op, comm, {request});
}

// Both count widths (coll/coll.h).
template decltype(reduce_scatter_block<int>) reduce_scatter_block<int>;
template decltype(reduce_scatter<int>) reduce_scatter<int>;
#if MPI_VERSION >= 4
template decltype(reduce_scatter_block<MPI_Count>) reduce_scatter_block<MPI_Count>;
template decltype(reduce_scatter<MPI_Count>) reduce_scatter<MPI_Count>;
#endif

}  // namespace adacomp
