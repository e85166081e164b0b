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
// rank's share being 1/L of it): each segment's reduce-scatter adds this
// rank's slice of it to one accumulator, one after another, and the tree
// codes a chunk of that accumulator as soon as the slices it spans are
// summed, so the node stage overlaps the tree. The tree's shape and the
// node stages depend on the layout only: the result is the same from run to
// run.
#include "coll/reduce_rails.h"

#include <optional>
#include <vector>

#include "coll/lossy_agreement.h"
#include "coll/compressed_call.h"
#include "coll/node_stage.h"
#include "coll/ring_codes.h"
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
      slices += static_cast<size_t>(g.slices.counts[static_cast<size_t>(node.rank)]);
    }
    slices_ = slices;
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
    agree_.start(call_, input_, static_cast<size_t>(count), rails - 1, s.coll.size - 1,
                 codes_candidate(plan_, op, static_cast<size_t>(count), rails) ? rails : 0,
                 node.size);
    // Tickets in this order on every rank of the node: the reduce-scatters,
    // then (the root's node) the gathers.
    for (Segment& g : segments_) g.scatter.emplace(s);
    if (root_node)
      for (Segment& g : segments_) g.gather.emplace(s);
  }

  bool advance(bool wait) override {
    // A blocking call polls while slices are still being summed.
    return run_passes(wait, [&] { return advance_stages(wait); });
  }

  int finish() override {
    for (const Segment& g : segments_) {
      call_.check_mpi(g.scatter->rc());
      if (g.gather) call_.check_mpi(g.gather->rc());
    }
    return call_.finish();
  }

 private:
  struct Segment {
    size_t offset = 0;               // of the vector, elements
    size_t acc_offset = 0;           // of this rank's slice in acc, elements
    NodeSlices slices;                // the node's slices of it
    std::optional<NodeStage> scatter, gather;
  };

  // One pass: the next segment's reduce-scatter (a blocking call's blocking:
  // MPI's blocking algorithm is its best, coll/reduce.cpp), the tree over
  // the slices summed so far, then the gathers. True once all are done;
  // with `wait`, blocks in the tree and the gathers once every slice is
  // summed.
  bool advance_stages(bool wait) {
    size_t k = 0;  // the first segment not summed yet
    while (k < segments_.size() && segments_[k].scatter->done()) ++k;
    if (k < segments_.size() && scatter(segments_[k], wait)) ++k;
    const bool summed = k == segments_.size();
    if (!agree_.ready(call_, wait && summed)) return false;
    // A failed stage fails alike on every rank (one set of arguments): the
    // tree and the gathers are then skipped everywhere.
    const bool failed = this->failed();
    const size_t ready = summed ? slices_ : segments_[k].acc_offset;
    if (!failed && !tree(ready * plan_.type.size, wait && summed)) return false;
    if (!summed) return false;
    for (Segment& g : segments_)
      if (g.gather && !gather(g, wait, failed)) return false;
    return true;
  }

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

  // Segment g's slices, final on the root's node, joined at the root.
  bool gather(Segment& g, bool wait, bool skip) {
    const Group& node = plan_.state->node;
    const uint8_t* mine = acc_ + g.acc_offset * plan_.type.size;
    const int n = g.slices.counts[static_cast<size_t>(node.rank)];
    uint8_t* out = recvbuf_ ? recvbuf_ + g.offset * plan_.type.size : nullptr;
    const int *counts = g.slices.counts.data(), *displs = g.slices.displs.data();
    return g.gather->run(
        wait, skip,
        [&] {
          return PMPI_Gatherv(mine, n, type_, out, counts, displs, type_, local_root_, node.comm);
        },
        [&](MPI_Request* r) {
          return PMPI_Igatherv(mine, n, type_, out, counts, displs, type_, local_root_, node.comm,
                               r);
        });
  }

  bool failed() const {
    for (const Segment& g : segments_)
      if (g.scatter->failed()) return true;
    return false;
  }

  // The rail's tree over this rank's slices, built once the agreement has
  // set the bound. A rail whose slices are empty (fewer elements than
  // ranks on a node) has nothing to reduce: its members share a local
  // rank, so they all skip it.
  bool tree(size_t ready, bool wait) {
    if (slices_ == 0 || tree_done_) return true;
    if (!reduce_)
      reduce_ = std::make_unique<TreeReduce>(call_, members_, me_, acc_, static_cast<int>(slices_),
                                             type_, op_, agree_.grid(), tag_);
    if (!reduce_->advance(wait, ready)) return false;
    reduce_.reset();
    return tree_done_ = true;
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
  size_t slices_ = 0;  // elements in acc
  std::vector<int> members_;
  int me_ = 0;
  LossyAgreement agree_;
  std::vector<Segment> segments_;
  std::unique_ptr<TreeReduce> reduce_;
  bool tree_done_ = false;
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
