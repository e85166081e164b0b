// Reduce_scatter(_block), in every form (blocking; MPI_Ireduce_scatter_block):
// one schedule (coll/schedule.h), the Allreduce's ring reduce-scatter alone
// (coll/ring.h), on quantisation codes for a lossy SUM on float/double
// (coll/ring_codes.h) as the Allreduce. The ring leaves block owned_block(r) complete at rank r, so
// rank i's slice of the vector is laid out as ring block owned_block(i):
// every rank ends with its own reduced block and nothing travels after the
// reduce-scatter.
//
// Node-aware, only the inter-node stage is coded:
//   rails   (every node holds the same number of ranks L): a node-local
//           PMPI_Reduce_scatter leaves local rank i with its node's sum of
//           rail i's part (the slices of the ranks with local rank i, in
//           rail order); every rail runs the ring on its part, one block
//           per member, so each rank ends with its own slice and nothing
//           travels after the ring. Every core codes, each 1/L of the vector.
//   leaders (any layout): a node-local PMPI_Reduce gives each node's leader
//           its node's sum; the leaders run the ring with one block per node
//           (the slices of the node's ranks side by side); a node-local
//           PMPI_Scatterv hands every rank its slice.
// Either way each rank lays its input out part by part (rails: rail by
// rail; leaders: node by node), so that the node stage reads one range.
// Pipelined, the call runs in segments (the plan's segments, decision/plan.cpp), each a part
// of every slice: segment k+1's node stage runs while segment k's ring
// codes and sends (and, on leaders, segment k-1 is scattered).
#include <climits>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "coll/lossy_agreement.h"
#include "coll/compressed_call.h"
#include "coll/coll.h"
#include "coll/node_stage.h"
#include "coll/plan.h"
#include "coll/schedule.h"
#include "coll/segment_ring.h"

namespace adacomp {
namespace {

class ReduceScatterSchedule : public Schedule {
 public:
  // counts[i]: rank i's slice, the slices following each other in rank order.
  ReduceScatterSchedule(MPI_Comm app, const CollPlan& plan, OpKind operation, CallForm form, int tag,
                        const void* sendbuf, void* recvbuf, std::vector<size_t> counts,
                        MPI_Datatype type, MPI_Op op)
      : plan_(plan),
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
    const SecondRun second{sendbuf == MPI_IN_PLACE ? recvbuf : nullptr, plan_.bytes};
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
      // The input, not its copy, which the ring reduces into.
      agree_.start(call_, input_, total, reduce_scatter_compressions(p), p - 1,
                   codes_candidate(plan_, op, total, p) ? p : 0, 1, &second);
      return;
    }
    // Node-aware: the ring's members (a rail's or the leaders, one per
    // node) each bring the sum of up to max_local ranks' inputs.
    const Locality& loc = s.loc;
    agree_.start(call_, input_, total, reduce_scatter_compressions(loc.nodes), p - 1,
                 codes_candidate(plan_, op, total, loc.nodes) ? loc.nodes : 0, loc.max_local,
                 &second);
    lay_out(counts);
    // Tickets in this order on every rank of the node: the gathers, then the
    // spreads (node_stage.h).
    for (Segment& g : segments_) g.gather.emplace(s);
    if (plan_.layout == Layout::leaders)
      for (Segment& g : segments_) g.spread.emplace(s);
  }

  bool advance(bool wait) override {
    auto gather = [&](size_t k, bool w) { return this->gather(k, w); };
    auto ring = [&](size_t k, bool w) { return this->ring(k, w); };
    auto deliver = [&](size_t k, bool w) { return this->deliver(k, w); };
    return advance_segments(call_, segments_.size(), wait, gather, ring, deliver);
  }

  bool rerun() override { return !agree_.confirm(call_); }

  int finish() override {
    for (const Segment& g : segments_) {
      if (g.gather) call_.check_mpi(g.gather->rc());
      if (g.spread) call_.check_mpi(g.spread->rc());
    }
    return call_.finish();
  }

 private:
  // A part of the call that flows through the stages on its own: the node
  // stage combining it (node-aware), its ring, and its delivery.
  struct Segment {
    const uint8_t* in = nullptr;   // node-aware: the node stage's input, this segment of perm_
    size_t count = 0;              // node-aware: the elements of `in`
    std::vector<int> rail_counts;  // rails: each local rank's part of the segment
    uint8_t* acc = nullptr;        // the ring's vector (null: no part in it)
    std::vector<RingBlock> blocks;
    size_t out = 0, piece = 0;  // node-aware: this rank's piece of its slice, where it goes
    std::vector<int> scounts, sdispls;    // leaders: this node's ranks' pieces in its block
    std::optional<NodeStage> gather, spread;  // spread: leaders
    SegmentRing ring;
    bool delivered = false;
  };

  bool failed(const Segment& g) const { return g.gather && g.gather->failed(); }

  // The input laid out segment by segment, each part by part (rails: rail
  // i's part, its members' pieces of the segment in rail rank order;
  // leaders: node n's part, its ranks' pieces in rank order), so that each
  // segment's node stage reads one contiguous range; rank r's piece of
  // segment k is part k of its slice. The ring's blocks: rails, the rail
  // members' pieces within this rank's rail part; leaders, the nodes' parts.
  void lay_out(const std::vector<size_t>& counts) {
    const CommState& s = *plan_.state;
    const Locality& loc = s.loc;
    const bool rails = plan_.layout == Layout::rails;
    const int p = s.coll.size, parts = plan_.segments;
    const int groups = rails ? s.node.size : loc.nodes;
    const int mine = rails ? loc.local_rank : loc.node;
    const size_t elem = plan_.type.size;
    std::vector<size_t> offset(p + 1, 0);
    for (int r = 0; r < p; ++r) offset[r + 1] = offset[r] + counts[r];
    std::vector<std::vector<int>> members(groups);  // per part, its ranks in rank order
    std::vector<int> seen(loc.nodes, 0);
    for (int r = 0; r < p; ++r)
      members[rails ? seen[loc.node_of[r]]++ : loc.node_of[r]].push_back(r);
    perm_ = call_.memory(ScratchSlot::accumulator, plan_.bytes);
    segments_.resize(parts);
    size_t at = 0, acc_count = 0;
    for (int k = 0; k < parts; ++k) {
      Segment& g = segments_[k];
      g.in = perm_ + at * elem;
      const size_t begin = at;
      if (!rails) g.blocks.assign(groups, RingBlock{});
      for (int i = 0; i < groups; ++i) {
        const size_t start = at;
        for (int r : members[i]) {
          const size_t n = block_count(counts[r], parts, k);
          std::memcpy(perm_ + at * elem,
                      static_cast<const uint8_t*>(input_) +
                          (offset[r] + block_begin(counts[r], parts, k)) * elem,
                      n * elem);
          if (!rails && i == mine) {
            g.scounts.push_back(static_cast<int>(n));
            g.sdispls.push_back(static_cast<int>(at - start));
          }
          at += n;
        }
        // Leaders: node i's part is ring block owned_block(i), so that
        // leader i ends with it.
        if (rails)
          g.rail_counts.push_back(static_cast<int>(at - start));
        else
          g.blocks[owned_block(i, groups)] = {start - begin, at - start};
      }
      g.count = at - begin;
      g.out = block_begin(mycount_, parts, k);
      g.piece = block_count(mycount_, parts, k);
      if (rails) {
        const std::vector<int>& rail = members[mine];
        g.blocks.assign(rail.size(), RingBlock{});
        size_t within = 0;
        for (size_t j = 0; j < rail.size(); ++j) {
          const size_t n = block_count(counts[rail[j]], parts, k);
          g.blocks[owned_block(static_cast<int>(j), static_cast<int>(rail.size()))] = {within, n};
          within += n;
        }
        acc_count += within;
      } else if (s.node.rank == 0) {
        acc_count += g.count;
      }
    }
    // Each segment's ring vector, one after another (null where empty or
    // where this rank is not in a ring).
    uint8_t* acc = acc_count > 0 ? call_.memory(ScratchSlot::frames, acc_count * elem) : nullptr;
    for (Segment& g : segments_) {
      const size_t within = rails ? g.rail_counts[loc.local_rank] : g.count;
      g.acc = acc && within > 0 ? acc : nullptr;
      if (g.acc) acc += within * elem;
    }
  }

  // The node's inputs combined before the ring: rails, each local rank
  // its rail's part of the segment; leaders, the node's sum at the leader.
  bool gather(size_t k, bool wait) {
    Segment& g = segments_[k];
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
    const int n = static_cast<int>(g.count);
    return g.gather->run(
        wait, false, [&] { return PMPI_Reduce(g.in, g.acc, n, type_, op_, 0, node.comm); },
        [&](MPI_Request* r) {
          return PMPI_Ireduce(g.in, g.acc, n, type_, op_, 0, node.comm, r);
        });
  }

  // The segment's ring among every rank, a rail (on its node sums of the
  // rail's part) or the leaders (on their node sums), once the agreement is
  // in.
  bool ring(size_t k, bool wait) {
    Segment& g = segments_[k];
    return agree_.ready(call_, wait) && g.ring.advance(call_, agree_, tag_, wait, [&] {
      std::optional<RingWork> w;
      // Not a leader, an empty part (alike on the whole ring), or failed.
      if (!g.acc || failed(g)) return w;
      w = RingWork{g.acc, {g.acc, plan_.type.size, type_, op_, g.blocks}, false};
      return w;
    });
  }

  // This rank's piece of the result from the segment's owned block: flat
  // and rails, the ring left it here; leaders, the node's leader scatters it.
  bool deliver(size_t k, bool wait) {
    Segment& g = segments_[k];
    if (g.delivered) return true;
    const size_t elem = plan_.type.size;
    if (!g.spread) {
      const RingBlock& mine = g.blocks[owned_block(call_.group.rank, call_.group.size)];
      if (g.acc && mine.count > 0 && !failed(g))  // recvbuf may be null at 0
        std::memcpy(recvbuf_ + g.out * elem, g.acc + mine.offset * elem, mine.count * elem);
      return g.delivered = true;
    }
    const Group& node = plan_.state->node;
    const Locality& loc = plan_.state->loc;
    const RingBlock& part = g.blocks[owned_block(loc.node, loc.nodes)];
    uint8_t* from = g.acc ? g.acc + part.offset * elem : nullptr;
    const int n = static_cast<int>(g.piece);
    void* to = n > 0 ? recvbuf_ + g.out * elem : nullptr;
    const int *counts = g.scounts.data(), *displs = g.sdispls.data();
    return g.delivered = g.spread->run(
               wait, failed(g),
               [&] {
                 return PMPI_Scatterv(from, counts, displs, type_, to, n, type_, 0, node.comm);
               },
               [&](MPI_Request* r) {
                 return PMPI_Iscatterv(from, counts, displs, type_, to, n, type_, 0, node.comm, r);
               });
  }

  const CollPlan plan_;  // node-aware: segmented, its chunks each segment's ring's
  CompressedCall call_;
  uint8_t* const recvbuf_;
  const MPI_Datatype type_;
  const MPI_Op op_;
  const int tag_;
  const void* input_ = nullptr;
  size_t mycount_ = 0;
  std::vector<Segment> segments_;  // flat: one
  uint8_t* perm_ = nullptr;        // node-aware: the input laid out segment by segment
  LossyAgreement agree_;
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
  CollPlan plan;
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
  // ADACOMP_LOSSY_CHECK: the input kept (in place, the result overwrites it).
  const std::vector<uint8_t> input =
      checked_input(plan, how.form(), sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf);
  const CallResult result = launch(*plan.state, comm, how, kTagRing, [=](int tag) {
    return std::make_unique<ReduceScatterSchedule>(comm, plan, operation, how.form(), tag, sendbuf,
                                                   recvbuf, slices, type, op);
  });
  if (!input.empty()) {
    const int rank = plan.state->coll.rank;
    std::vector<int> counts(slices.begin(), slices.end());
    check_against_exact(plan, input.data(), recvbuf, slices[static_cast<size_t>(rank)],
                        [&](const void* in, void* exact) {
                          return PMPI_Reduce_scatter(in, exact, counts.data(), type, op,
                                                     plan.state->coll.comm);
                        });
  }
  return result;
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
