// A node-local stage of a node-aware collective: one PMPI collective on the
// node's private communicator (state.node), as a step of the call's
// schedule. Blocking, the stage is the PMPI blocking call (the node's fastest
// path); nonblocking, its PMPI_I* form, started and then tested.
//
// Why tickets: MPI requires every rank to start the collectives of one
// communicator in the same order, and the stages of several outstanding
// schedules would otherwise start in whatever order their data became ready
// on each rank. Each stage takes a ticket when its schedule is built (in call
// order, so alike on every rank of the node) and starts only when every
// earlier ticket's stage has started. A later call's stages so wait for an
// earlier call's; never the other way round, so no cycle. A blocking call
// finds none outstanding (its gate settled them) and runs at once.
#pragma once

#include <mpi.h>

#include <optional>
#include <vector>

#include "coll/compressed_call.h"
#include "coll/schedule.h"
#include "runtime/comm_state.h"

namespace adacomp {

class NodeStage {
 public:
  explicit NodeStage(CommState& s) : state_(s), ticket_(s.node_stages_taken++) {}

  // Runs the stage: `blocking()` is the PMPI call, returning its code;
  // `start(MPI_Request*)` its nonblocking form. With `skip` (an earlier
  // stage failed) nothing runs but the ticket still passes. True once
  // complete; rc() is then the stage's code.
  template <class Blocking, class Start>
  bool run(bool wait, bool skip, Blocking blocking, Start start) {
    if (done_) return true;
    if (!started_) {
      if (!wait && state_.node_stages_started.load(std::memory_order_acquire) != ticket_)
        return false;
      if (!skip) rc_ = wait ? blocking() : start(&req_);
      started_ = true;
      state_.node_stages_started.fetch_add(1, std::memory_order_release);
      if (wait || skip || rc_ != MPI_SUCCESS) return done_ = true;
    }
    int flag = 0;
    rc_ = PMPI_Test(&req_, &flag, MPI_STATUS_IGNORE);
    if (rc_ == MPI_SUCCESS && !flag) return false;
    note_engine_move();
    return done_ = true;
  }
  int rc() const { return rc_; }
  bool done() const { return done_; }
  bool failed() const { return done_ && rc_ != MPI_SUCCESS; }

 private:
  CommState& state_;
  const unsigned ticket_;
  MPI_Request req_ = MPI_REQUEST_NULL;
  int rc_ = MPI_SUCCESS;
  bool started_ = false, done_ = false;
};

// A node stage cut in segments (decision/plan.h node_segments): segment s is
// its own stage on a range of the message, in the unit its collective
// counts (bytes for Bcast, elements for Reduce), so that the tree can work
// on one while MPI moves the next.
struct NodeSegment {
  size_t begin = 0, size = 0;
  std::optional<NodeStage> stage;
};

// A segment of `count` elements cut in one nearly equal slice per local
// rank (rails): the counts and displacements, in elements, that its
// node-local reduce-scatter and gather take.
struct NodeSlices {
  std::vector<int> counts, displs;
};
inline NodeSlices node_slices(size_t count, int ranks) {
  NodeSlices s;
  for (int i = 0; i < ranks; ++i) {
    s.counts.push_back(static_cast<int>(block_count(count, ranks, i)));
    s.displs.push_back(static_cast<int>(block_begin(count, ranks, i)));
  }
  return s;
}

// `total` units cut in `parts` segments, their tickets taken in order.
inline std::vector<NodeSegment> cut_node_stage(CommState& s, size_t total, int parts) {
  std::vector<NodeSegment> segments(parts);
  for (int i = 0; i < parts; ++i) {
    segments[i].begin = block_begin(total, parts, i);
    segments[i].size = block_count(total, parts, i);
    segments[i].stage.emplace(s);
  }
  return segments;
}

}  // namespace adacomp
