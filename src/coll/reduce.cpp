// Reduce, in every form (blocking, MPI_Ireduce, MPI_Reduce_init): one
// schedule (coll/schedule.h). A binomial tree towards the root with every
// hop compressed (a lossy SUM on float/double: on quantisation codes,
// below); the tree shape, and so the order of operations, depends only on
// rank count and root. With several chunks the tree pipelines: a
// member forwards chunk c to its parent as soon as its children's chunk c
// is folded in.
//
// Node-aware on leaders (any layout), a node-local PMPI_Reduce first
// gathers each node's sum at its member (the root on its own node, the
// lowest rank elsewhere), and the compressed tree spans those members only.
// Pipelined, that node stage runs in segments (below), overlapping the
// tree. On rails (every node holds as many ranks), every rank codes a slice
// of its node's sum instead: coll/reduce_rails.cpp.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "coll/lossy_agreement.h"
#include "coll/compressed_call.h"
#include "coll/coll.h"
#include "coll/node_stage.h"
#include "coll/plan.h"
#include "coll/reduce_rails.h"
#include "coll/ring_codes.h"
#include "coll/schedule.h"
#include "coll/tree.h"
#include "coll/tree_reduce.h"

namespace adacomp {
namespace {

// Pipelined node-aware calls cut the node stage in segments (the plan's
// segments, decision/plan.cpp; the member reduces the whole vector, so its share is all
// of it): segment s is a node-local reduction of an element range, started
// once s-1 is summed (so the first is summed as early as it can), and the
// tree codes a chunk as soon as the segments it spans are summed, so the
// node stage overlaps the tree. A blocking call reduces each segment with
// MPI's blocking PMPI_Reduce, the tree's transfers progressing inside it:
// MPI's blocking algorithm is its best (SMPI's nonblocking Ireduce is flat,
// its root receiving and combining every rank's segment), and a nonblocking
// one would progress only between the chunks the member codes anyway. The
// nonblocking forms use PMPI_Ireduce.
class ReduceSchedule : public Schedule {
 public:
  ReduceSchedule(MPI_Comm app, const CollPlan& plan, CallForm form, int tag, const void* sendbuf,
                 void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root)
      : plan_(plan),
        call_(app, plan_, OpKind::reduce, form),
        count_(count),
        type_(type),
        op_(op),
        tag_(tag) {
    CommState& st = *plan_.state;
    rooted_tree(plan_, root, &tree_);  // the caller checked the root
    const bool is_root = st.coll.rank == root;
    input_ = is_root && sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    // Every member but the root sends each element once: members-1
    // compressions; P-1 combining operations in all. On codes, each
    // member's input (a node's sum of up to max_local ranks' inputs) is
    // quantised once.
    const int members = static_cast<int>(tree_.members.size());
    const bool codes = codes_candidate(plan_, op, count, members);
    agree_.start(call_, input_, count, members - 1, st.coll.size - 1, codes ? members : 0,
                 tree_.per_node ? st.loc.max_local : 1);
    acc_ = is_root         ? static_cast<uint8_t*>(recvbuf)
           : tree_.me >= 0 ? call_.memory(ScratchSlot::accumulator, plan_.bytes)
                           : nullptr;
    if (!tree_.per_node) {
      if (input_ != acc_) std::memcpy(acc_, input_, plan_.bytes);
      return;
    }
    // No MPI_IN_PLACE here: some MPIs mishandle it at a non-zero root.
    // (Not a slot of the tree's: in segments, the two run at once.)
    if (is_root && sendbuf == MPI_IN_PLACE) {
      uint8_t* copy = call_.memory(ScratchSlot::recv_frame, plan_.bytes);
      std::memcpy(copy, recvbuf, plan_.bytes);
      input_ = copy;
    }
    const int parts = plan_.segments;
    segments_ = cut_node_stage(st, static_cast<size_t>(count), parts);
  }

  bool advance(bool wait) override {
    if (segments_.size() > 1) {
      // One segment's stage per pass, the tree between.
      return run_passes(wait, [&] { return advance_segments(); });
    }
    if (!segments_.empty() && !reduce_segment(segments_[0], wait)) return false;
    if (!agree_.ready(call_, wait)) return false;
    if (tree_.me < 0 || failed()) return true;
    return tree(wait, plan_.bytes);
  }

  int finish() override {
    for (const NodeSegment& s : segments_) call_.check_mpi(s.stage->rc());
    return call_.finish();
  }

 private:
  // One pass: the next segment's stage, then the tree over the segments
  // summed so far. True once all are done.
  bool advance_segments() {
    const size_t n = segments_.size();
    size_t k = 0;  // the first segment not summed yet
    while (k < n && segments_[k].stage->done()) ++k;
    if (k < n && reduce_segment(segments_[k], call_.blocking())) ++k;
    if (!agree_.ready(call_, false)) return false;
    const bool done = k == n;
    // A failed stage fails alike on every rank of the node (one set of
    // arguments): the member then stops before its tree, as the whole
    // call's does.
    if (tree_.me < 0 || failed()) return done;
    const size_t ready = done ? count_ : segments_[k].begin;
    return tree(false, ready * plan_.type.size) && done;
  }

  bool reduce_segment(NodeSegment& s, bool wait) {
    const Group& node = plan_.state->node;
    const size_t at = s.begin * plan_.type.size;
    const void* in = static_cast<const uint8_t*>(input_) + at;
    void* out = acc_ ? acc_ + at : nullptr;  // significant at the member only
    const int n = static_cast<int>(s.size);
    const int local_root = tree_.local_root;
    return s.stage->run(
               wait, false,
               [&] { return PMPI_Reduce(in, out, n, type_, op_, local_root, node.comm); },
               [&](MPI_Request* r) {
                 return PMPI_Ireduce(in, out, n, type_, op_, local_root, node.comm, r);
               });
  }

  bool failed() const {
    for (const NodeSegment& s : segments_)
      if (s.stage->failed()) return true;
    return false;
  }

  // The compressed tree, built once the agreement has set the bound.
  bool tree(bool wait, size_t ready) {
    if (!reduce_)
      reduce_ = std::make_unique<TreeReduce>(call_, tree_.members, tree_.me, acc_, count_, type_,
                                             op_, agree_.grid(), tag_);
    return reduce_->advance(wait, ready);
  }

  const CollPlan plan_;
  CompressedCall call_;
  const int count_;
  const MPI_Datatype type_;
  const MPI_Op op_;
  const int tag_;
  RootedTree tree_;
  const void* input_ = nullptr;
  uint8_t* acc_ = nullptr;
  LossyAgreement agree_;
  std::vector<NodeSegment> segments_;  // node-aware: the node's sum at its member
  std::unique_ptr<TreeReduce> reduce_;
};

CallResult reduce_impl(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                       int root, MPI_Comm comm, Launch how) {
  stats_for(OpKind::reduce).calls.fetch_add(1, std::memory_order_relaxed);
  CollPlan plan;
  if (!plan_call(OpKind::reduce, comm, count, type, op, how.form(), &plan)) return decline(plan);
  RootedTree tree;
  if (!rooted_tree(plan, root, &tree)) return kDeclined;  // PMPI reports a bad root
  // ADACOMP_LOSSY_CHECK: the input kept (the root's in place is its result).
  const bool root_in_place = plan.state->coll.rank == root && sendbuf == MPI_IN_PLACE;
  const std::vector<uint8_t> input =
      checked_input(plan, how.form(), root_in_place ? recvbuf : sendbuf);
  const auto schedule = [=](int tag) -> std::unique_ptr<Schedule> {
    if (plan.layout == Layout::rails)
      return rails_reduce_schedule(comm, plan, how.form(), tag, sendbuf, recvbuf, count, type, op,
                                   root);
    return std::make_unique<ReduceSchedule>(comm, plan, how.form(), tag, sendbuf, recvbuf, count,
                                            type, op, root);
  };
  const CallResult result = launch(*plan.state, comm, how, kTagTree, schedule);
  if (!input.empty())
    check_against_exact(plan, input.data(), plan.state->coll.rank == root ? recvbuf : nullptr,
                        plan.bytes / plan.type.size, [&](const void* in, void* exact) {
                          return PMPI_Reduce(in, exact, count, type, op, root,
                                             plan.state->coll.comm);
                        });
  return result;
}

}  // namespace

CallResult reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  int root, MPI_Comm comm) {
  return reduce_impl(sendbuf, recvbuf, count, type, op, root, comm, {});
}

CallResult ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                   int root, MPI_Comm comm, MPI_Request* request) {
  return reduce_impl(sendbuf, recvbuf, count, type, op, root, comm, {request});
}

#if MPI_VERSION >= 4
CallResult reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                       int root, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return reduce_impl(sendbuf, recvbuf, count, type, op, root, comm, {request, true});
}
#endif

}  // namespace adacomp
