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
      : plan_(plan),
        call_(app, plan_, operation, ring_group(plan), form),
        recvbuf_(recvbuf),
        type_(type),
        op_(op),
        tag_(tag) {
    CommState& s = *plan_.state;
    const int p = s.coll.size;
    const size_t elem = plan_.type.size, total = plan_.bytes / elem;
    input_ = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    mycount_ = counts[s.coll.rank];
    if (plan_.layout == Layout::flat) {
      blocks_.resize(p);
      size_t at = 0;
      for (int i = 0; i < p; ++i) {
        blocks_[owned_block(i, p)] = {at, counts[i]};
        at += counts[i];
      }
      // In place the input is the whole of recvbuf, which keeps everything
      // but its first block as it was.
      acc_ = call_.memory(ScratchSlot::accumulator, plan_.bytes);
      std::memcpy(acc_, input_, plan_.bytes);
      agree_.start(call_, acc_, total, reduce_scatter_compressions(p), p - 1,
                   codes_candidate(plan_, op, total, p) ? p : 0);
      return;
    }
    // Node-aware: the ring's members (a rail's or the leaders, one per
    // node) each bring the sum of up to max_local ranks' inputs.
    const Locality& loc = s.loc;
    agree_.start(call_, input_, total, reduce_scatter_compressions(loc.nodes), p - 1,
                 codes_candidate(plan_, op, total, loc.nodes) ? loc.nodes : 0, loc.max_local);
    if (plan_.layout == Layout::rails) {
      lay_out_rails(counts);
      return;
    }
    // Slices in node order: node n's ranks' slices side by side.
    std::vector<size_t> offset(p + 1, 0);
    for (int i = 0; i < p; ++i) offset[i + 1] = offset[i] + counts[i];
    blocks_.resize(loc.nodes);
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
      blocks_[owned_block(n, loc.nodes)] = {start, at - start};
    }
    for (int n = 0; n < loc.nodes; ++n)
      for (int i = 0; i < p; ++i)
        if (loc.node_of[i] == n) sources_.push_back({offset[i], counts[i]});
    if (s.node.rank == 0) {
      sum_ = call_.memory(ScratchSlot::accumulator, plan_.bytes);
      acc_ = call_.memory(ScratchSlot::frames, plan_.bytes);  // the permuted vector
    }
    gather_.emplace(s);
    spread_.emplace(s);
  }

  bool advance(bool wait) override {
    const Group& node = plan_.state->node;
    if (gather_ && !gather(wait)) return false;
    if (!agree_.ready(call_, wait) || !ring(wait)) return false;
    const size_t elem = plan_.type.size;
    if (!spread_) {  // flat and rails: the ring left this rank's slice in acc_
      const RingBlock& mine = blocks_[owned_block(call_.group.rank, call_.group.size)];
      if (mine.count > 0 && !(gather_ && gather_->failed()))  // recvbuf may be null at 0
        std::memcpy(recvbuf_, acc_ + mine.offset * elem, mine.count * elem);
      return true;
    }
    const RingBlock& mine = blocks_[owned_block(plan_.state->loc.node, plan_.state->loc.nodes)];
    uint8_t* from = acc_ ? acc_ + mine.offset * elem : nullptr;
    void* to = mycount_ > 0 ? recvbuf_ : nullptr;
    const int n = static_cast<int>(mycount_);
    return spread_->run(
        wait, gather_->failed(),
        [&] {
          return PMPI_Scatterv(from, scounts_.data(), sdispls_.data(), type_, to, n, type_, 0,
                               node.comm);
        },
        [&](MPI_Request* r) {
          return PMPI_Iscatterv(from, scounts_.data(), sdispls_.data(), type_, to, n, type_, 0,
                                node.comm, r);
        });
  }

  int finish() override {
    if (gather_) call_.check_mpi(gather_->rc());
    if (spread_) call_.check_mpi(spread_->rc());
    return call_.finish();
  }

 private:
  // Rails: the input laid out rail by rail (rail i's part: the slices of
  // its members in rail rank order, the order of their ranks), the node
  // stage's counts (each local rank's rail part) and this rail's blocks.
  void lay_out_rails(const std::vector<size_t>& counts) {
    CommState& s = *plan_.state;
    const Locality& loc = s.loc;
    const int p = s.coll.size, rails = s.node.size;
    const size_t elem = plan_.type.size;
    std::vector<size_t> offset(p + 1, 0);
    for (int r = 0; r < p; ++r) offset[r + 1] = offset[r] + counts[r];
    std::vector<std::vector<int>> members(rails);  // per rail, its ranks in rank order
    std::vector<int> seen(loc.nodes, 0);
    for (int r = 0; r < p; ++r) members[seen[loc.node_of[r]]++].push_back(r);
    perm_ = call_.memory(ScratchSlot::accumulator, plan_.bytes);
    size_t at = 0;
    for (int i = 0; i < rails; ++i) {
      const size_t start = at;
      for (int r : members[i]) {
        std::memcpy(perm_ + at * elem, static_cast<const uint8_t*>(input_) + offset[r] * elem,
                    counts[r] * elem);
        at += counts[r];
      }
      rail_counts_.push_back(static_cast<int>(at - start));
    }
    const std::vector<int>& mine = members[loc.local_rank];
    blocks_.assign(mine.size(), RingBlock{});
    size_t within = 0;
    for (size_t j = 0; j < mine.size(); ++j) {
      blocks_[owned_block(static_cast<int>(j), static_cast<int>(mine.size()))] = {
          within, counts[mine[j]]};
      within += counts[mine[j]];
    }
    if (within > 0) acc_ = call_.memory(ScratchSlot::frames, within * elem);
    gather_.emplace(s);
  }

  // The node's inputs combined before the ring: rails, each local rank
  // its rail's part; leaders, the node's sum at the leader.
  bool gather(bool wait) {
    const Group& node = plan_.state->node;
    if (plan_.layout == Layout::rails)
      return gather_->run(
          wait, false,
          [&] {
            return PMPI_Reduce_scatter(perm_, acc_, rail_counts_.data(), type_, op_, node.comm);
          },
          [&](MPI_Request* r) {
            return PMPI_Ireduce_scatter(perm_, acc_, rail_counts_.data(), type_, op_, node.comm, r);
          });
    const int total = static_cast<int>(plan_.bytes / plan_.type.size);
    return gather_->run(
        wait, false, [&] { return PMPI_Reduce(input_, sum_, total, type_, op_, 0, node.comm); },
        [&](MPI_Request* r) {
          return PMPI_Ireduce(input_, sum_, total, type_, op_, 0, node.comm, r);
        });
  }

  // The ring among every rank, the rails (on their node sums of their
  // parts) or the leaders (on their node sums, permuted to node order):
  // on codes when the agreement set a grid, else decode-add-encode.
  bool ring(bool wait) {
    if (!hops_ && !codes_) {
      // Not a leader, an empty rail part (alike on the whole rail), or failed.
      if (!acc_ || (gather_ && gather_->failed())) return true;
      if (sum_) permute();
      if (agree_.grid().on)
        codes_ =
            std::make_unique<CodesRing>(call_, acc_, acc_, blocks_, false, agree_.grid(), tag_);
      else
        hops_ = std::make_unique<HopRing>(
            call_, ReduceArgs{acc_, plan_.type.size, type_, op_, blocks_}, false, tag_);
    }
    return codes_ ? codes_->advance(wait) : hops_->advance(wait);
  }

  void permute() {
    const size_t elem = plan_.type.size;
    size_t to = 0;
    for (const RingBlock& src : sources_) {
      std::memcpy(acc_ + to, sum_ + src.offset * elem, src.count * elem);
      to += src.count * elem;
    }
  }

  const Plan plan_;
  CompressedCall call_;
  void* const recvbuf_;
  const MPI_Datatype type_;
  const MPI_Op op_;
  const int tag_;
  const void* input_ = nullptr;
  size_t mycount_ = 0;
  std::vector<RingBlock> blocks_;
  uint8_t* acc_ = nullptr;              // the ring's vector (null: no part in it)
  uint8_t* sum_ = nullptr;              // leaders, at the leader: the node's sum, in rank order
  uint8_t* perm_ = nullptr;             // rails: the input laid out rail by rail
  std::vector<int> rail_counts_;        // rails: each local rank's rail part
  std::vector<RingBlock> sources_;      // node-aware: rank slices of sum_, in node order
  std::vector<int> scounts_, sdispls_;  // node-aware: this node's ranks' slices
  LossyAgreement agree_;
  std::optional<NodeStage> gather_, spread_;
  std::unique_ptr<HopRing> hops_;
  std::unique_ptr<CodesRing> codes_;
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
