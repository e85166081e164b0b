// Reduce on rails (every node holds the same number of ranks, L), in every
// form but persistent (coll/plan.h): where the leaders' form has one rank a
// node code the node's whole sum, here every rank codes 1/L of it, as the
// Allreduce's rails do (coll/allreduce.cpp).
//   1. a node-local reduce-scatter leaves local rank i with slice i of its
//      node's sum;
//   2. the ranks with local rank i on every node (a rail) reduce slice i on
//      the compressed tree (coll/tree_reduce.h), towards the rail's member on
//      the root's node;
//   3. on the root's node a node-local gather joins the slices at the root.
// Pipelined, the vector is cut in segments (the plan's segments, a
// rank's share being 1/L of it) that flow through these three stages as the
// Allreduce's and Reduce_scatter's flow through theirs (coll/segment_ring.h
// advance_segments): segment k's reduce-scatter, then its slice on the rail's
// tree, then its gather, each stage of k+1 overlapping k's next one. The
// tree's shape and the node stages depend on the layout only: the result is
// the same from run to run.
#include "coll/reduce_rails.h"

#include <optional>
#include <vector>

#include "coll/lossy_agreement.h"
#include "coll/compressed_call.h"
#include "coll/node_stage.h"
#include "coll/ring_codes.h"
#include "coll/segment_ring.h"
#include "coll/tree_reduce.h"

namespace adacomp {
namespace {

class RailsReduceSchedule : public Schedule {
 public:
  RailsReduceSchedule(MPI_Comm app, const CollPlan& plan, CallForm form, int tag, const void* sendbuf,
                      void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root)
      : plan_(plan),
        call_(app, plan_, OpKind::reduce, plan_.state->rail, form),
        recvbuf_(static_cast<uint8_t*>(recvbuf)),
        type_(type),
        op_(op),
        tag_(tag) {
    CommState& s = *plan_.state;
    const Group& node = s.node;
    const size_t elem = plan_.type.size;
    input_ = static_cast<const uint8_t*>(s.coll.rank == root && sendbuf == MPI_IN_PLACE ? recvbuf
                                                                                        : sendbuf);
    const bool root_node = s.loc.node == s.loc.node_of[root];
    local_root_ = root_node ? s.loc.local_rank_of(root) : 0;
    const int parts = plan_.segments;
    segments_.resize(static_cast<size_t>(parts));
    size_t slices = 0;  // this rank's slices of every segment, elements
    for (int k = 0; k < parts; ++k) {
      Segment& g = segments_[static_cast<size_t>(k)];
      g.offset = block_begin(static_cast<size_t>(count), parts, k);
      g.slices = node_slices(block_count(static_cast<size_t>(count), parts, k), node.size);
      g.acc_offset = slices;
      g.count = static_cast<size_t>(g.slices.counts[static_cast<size_t>(node.rank)]);
      slices += g.count;
    }
    acc_ = call_.memory(ScratchSlot::accumulator, slices * elem + 1);
    // The rail's members from its member on the root's node on; a rail
    // orders its members by rank (runtime/comm_state.h), so that member's
    // place is the number of this rail's ranks below it.
    int rail_root = 0;
    const int root_node_id = s.loc.node_of[root];
    std::vector<int> seen(static_cast<size_t>(s.loc.nodes), 0);  // ranks so far, per node
    for (int q = 0; q < s.coll.size; ++q) {
      const int local = seen[static_cast<size_t>(s.loc.node_of[q])]++;
      if (local != node.rank) continue;
      if (s.loc.node_of[q] == root_node_id) break;
      ++rail_root;
    }
    const int rails = s.rail.size;
    for (int i = 0; i < rails; ++i) members_.push_back((rail_root + i) % rails);
    me_ = (s.rail.rank - rail_root + rails) % rails;
    // Lossy: every element passes up to members-1 codings among the rail's
    // members, each bringing the sum of its node's L inputs.
    const SecondRun second{s.coll.rank == root && sendbuf == MPI_IN_PLACE ? recvbuf : nullptr,
                           plan_.bytes};
    agree_.start(call_, input_, static_cast<size_t>(count), rails - 1, s.coll.size - 1,
                 codes_candidate(plan_, op, static_cast<size_t>(count), rails) ? rails : 0,
                 node.size, &second);
    // Tickets in this order on every rank of the node: the reduce-scatters,
    // then (the root's node) the gathers.
    for (Segment& g : segments_) g.scatter.emplace(s);
    if (root_node)
      for (Segment& g : segments_) g.gather.emplace(s);
  }

  bool advance(bool wait) override {
    auto scatter = [&](size_t k, bool w) { return this->scatter(segments_[k], w); };
    auto tree = [&](size_t k, bool w) { return this->tree(segments_[k], w); };
    auto gather = [&](size_t k, bool w) { return this->gather(segments_[k], w); };
    return advance_segments(call_, segments_.size(), wait, scatter, tree, gather);
  }

  bool rerun() override { return !agree_.confirm(call_); }

  int finish() override {
    for (const Segment& g : segments_) {
      call_.check_mpi(g.scatter->rc());
      if (g.gather) call_.check_mpi(g.gather->rc());
    }
    return call_.finish();
  }

 private:
  struct Segment {
    size_t offset = 0;      // of the vector, elements
    size_t acc_offset = 0;  // of this rank's slice in acc, elements
    size_t count = 0;       // this rank's slice, elements
    NodeSlices slices;      // the node's slices of it
    std::optional<NodeStage> scatter, gather;
    bool reduced = false;  // its tree done (or skipped)
  };

  // A failed node stage fails alike on every rank (one set of arguments):
  // the segment's tree and gather are then skipped everywhere.
  static bool failed(const Segment& g) { return g.scatter->failed(); }

  // Segment g's node sum, this rank's slice of it into acc.
  bool scatter(Segment& g, bool wait) {
    const Group& node = plan_.state->node;
    const uint8_t* in = input_ + g.offset * plan_.type.size;
    uint8_t* out = acc_ + g.acc_offset * plan_.type.size;
    return g.scatter->run(
        wait, false,
        [&] { return PMPI_Reduce_scatter(in, out, g.slices.counts.data(), type_, op_, node.comm); },
        [&](MPI_Request* r) {
          return PMPI_Ireduce_scatter(in, out, g.slices.counts.data(), type_, op_, node.comm, r);
        });
  }

  // Segment g's slice on the rail's tree, built once the agreement has set
  // the bound, and released when done for the next segment's (one tree's
  // memory and tag at a time). A rail whose slice is empty (fewer elements
  // than ranks on a node) has nothing to reduce: its members share a local
  // rank, so they all skip it.
  bool tree(Segment& g, bool wait) {
    if (g.reduced) return true;
    if (!agree_.ready(call_, wait)) return false;
    if (g.count == 0 || failed(g)) return g.reduced = true;
    const size_t elem = plan_.type.size;
    if (!reduce_)
      reduce_ = std::make_unique<TreeReduce>(call_, members_, me_, acc_ + g.acc_offset * elem,
                                             static_cast<int>(g.count), type_, op_, agree_.grid(),
                                             tag_);
    if (!reduce_->advance(wait, g.count * elem)) return false;
    reduce_.reset();
    return g.reduced = true;
  }

  // Segment g's slices, final on the root's node, joined at the root.
  bool gather(Segment& g, bool wait) {
    if (!g.gather) return true;
    const Group& node = plan_.state->node;
    const uint8_t* mine = acc_ + g.acc_offset * plan_.type.size;
    const int n = static_cast<int>(g.count);
    uint8_t* out = recvbuf_ ? recvbuf_ + g.offset * plan_.type.size : nullptr;
    const int *counts = g.slices.counts.data(), *displs = g.slices.displs.data();
    return g.gather->run(
        wait, failed(g),
        [&] {
          return PMPI_Gatherv(mine, n, type_, out, counts, displs, type_, local_root_, node.comm);
        },
        [&](MPI_Request* r) {
          return PMPI_Igatherv(mine, n, type_, out, counts, displs, type_, local_root_, node.comm,
                               r);
        });
  }

  const CollPlan plan_;
  CompressedCall call_;
  uint8_t* const recvbuf_;
  const MPI_Datatype type_;
  const MPI_Op op_;
  const int tag_;
  const uint8_t* input_ = nullptr;
  int local_root_ = 0;  // the root's node-local rank, on its node
  uint8_t* acc_ = nullptr;
  std::vector<int> members_;
  int me_ = 0;
  LossyAgreement agree_;
  std::vector<Segment> segments_;
  std::unique_ptr<TreeReduce> reduce_;  // the tree of the segment on it
};

}  // namespace

std::unique_ptr<Schedule> rails_reduce_schedule(MPI_Comm app, const CollPlan& plan, CallForm form,
                                                int tag, const void* sendbuf, void* recvbuf,
                                                int count, MPI_Datatype type, MPI_Op op,
                                                int root) {
  return std::make_unique<RailsReduceSchedule>(app, plan, form, tag, sendbuf, recvbuf, count, type,
                                               op, root);
}

}  // namespace adacomp
