// Allreduce, in every form (blocking, MPI_Iallreduce, MPI_Allreduce_init):
// one schedule (coll/schedule.h). Flat: the compressed ring over every rank.
// Node-aware, when the communicator spans nodes with several ranks on some
// of them, the node stages run through PMPI on the node's private
// communicator (coll/node_stage.h) and only the inter-node stage is coded:
//   rails   (every node holds the same number of ranks): a node-local
//           reduce-scatter leaves local rank i with slice i of its node's
//           sum; the ranks with local rank i on every node (a rail) run the
//           compressed ring on that slice; a node-local allgather joins the
//           slices. Every core codes, each 1/local_size of the vector.
//   leaders (any layout): a node-local reduce to the node's lowest rank, the
//           compressed ring among those leaders, a node-local broadcast.
// Pipelined, large node-aware calls flow through these stages in segments
// (below), so the stages overlap.
// Either way each element's value is computed once and copied to every
// rank, so results are identical everywhere and from run to run. The ring
// reduces on quantisation codes when the call's lossy agreement chose a
// grid (coll/ring_codes.h), else decodes, adds and encodes at every hop
// (coll/ring.h).
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

#include "coll/lossy_agreement.h"
#include "coll/compressed_call.h"
#include "coll/coll.h"
#include "coll/node_stage.h"
#include "coll/plan.h"
#include "coll/schedule.h"
#include "coll/segment_ring.h"
#include "runtime/runtime.h"

namespace adacomp {
namespace {

class AllreduceSchedule : public Schedule {
 public:
  AllreduceSchedule(MPI_Comm app, const CollPlan& plan, CallForm form, int tag, const void* sendbuf,
                    void* recvbuf, int count, MPI_Datatype type, MPI_Op op)
      : plan_(plan),
        call_(app, plan_, OpKind::allreduce, ring_group(plan_), form),
        recvbuf_(static_cast<uint8_t*>(recvbuf)),
        type_(type),
        op_(op),
        tag_(tag) {
    CommState& s = *plan_.state;
    const size_t elem = plan_.type.size;
    const void* input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    node_input_ = static_cast<const uint8_t*>(input);
    const int parts = plan_.segments;
    segments_.resize(parts);
    const Group& node = s.node;
    size_t acc_count = 0;
    for (int k = 0; k < parts; ++k) {
      Segment& g = segments_[k];
      g.offset = block_begin(count, parts, k);
      g.count = block_count(count, parts, k);
      g.ring_count = g.count;
      if (plan_.layout == Layout::rails) {
        g.slices = node_slices(g.count, node.size);
        // A rail's members share a local rank, so they agree on skipping.
        g.ring_count = g.slices.counts[node.rank];
        acc_count += g.ring_count;
      } else if (plan_.layout == Layout::leaders) {
        g.ring_count = node.rank == 0 ? g.count : 0;
      }
    }
    int members = s.coll.size, per_member = 1;
    if (plan_.layout == Layout::rails) {
      // This rank's slices of every segment, one after another.
      uint8_t* acc = call_.memory(ScratchSlot::accumulator, acc_count * elem + 1);
      for (Segment& g : segments_) g.ring_in = g.acc = acc, acc += g.ring_count * elem;
      members = s.rail.size;
      per_member = node.size;
    } else {
      if (plan_.layout == Layout::leaders && node.rank == 0 && input == recvbuf) {
        // The leader reduces into recvbuf: its own input copied aside.
        uint8_t* copy = call_.memory(ScratchSlot::accumulator, plan_.bytes);
        std::memcpy(copy, input, plan_.bytes);
        node_input_ = copy;
      }
      for (Segment& g : segments_) {
        g.acc = recvbuf_ + g.offset * elem;
        // Flat: the ring reads the input; leaders: what the node reduce left.
        g.ring_in = plan_.layout == Layout::flat ? node_input_ + g.offset * elem : g.acc;
      }
      if (plan_.layout == Layout::leaders) members = s.loc.nodes, per_member = s.loc.max_local;
    }
    // Lossy: the range of every rank's input; every element passes
    // `compressions` codings among `members`, each bringing the sum of up to
    // `per_member` ranks' inputs. One agreement, one grid, for every segment.
    const SecondRun second{sendbuf == MPI_IN_PLACE ? recvbuf : nullptr, plan_.bytes};
    agree_.start(call_, input, count, allreduce_compressions(members), s.coll.size - 1,
                 codes_candidate(plan_, op, count, members) ? members : 0, per_member, &second);
    // Tickets in this order on every rank of the node: the gathers, then the
    // spreads (node_stage.h).
    if (plan_.layout != Layout::flat) {
      for (Segment& g : segments_) g.gather.emplace(s);
      for (Segment& g : segments_) g.spread.emplace(s);
    }
  }

  bool advance(bool wait) override {
    auto gather = [&](size_t k, bool w) { return this->gather(k, w); };
    auto ring = [&](size_t k, bool w) { return this->ring(k, w); };
    auto spread = [&](size_t k, bool w) { return this->spread(k, w); };
    return advance_segments(call_, segments_.size(), wait, gather, ring, spread);
  }

  bool rerun() override { return !agree_.confirm(call_); }

  int finish() override {
    for (const Segment& g : segments_)
      if (g.gather) call_.check_mpi(g.gather->rc()), call_.check_mpi(g.spread->rc());
    return call_.finish();
  }

 private:
  struct Segment {
    size_t offset = 0, count = 0;        // of the vector, elements
    NodeSlices slices;                   // rails
    const uint8_t* ring_in = nullptr;    // the ring's input
    uint8_t* acc = nullptr;              // and result
    size_t ring_count = 0;
    std::optional<NodeStage> gather, spread;  // node-aware: before and after the ring
    SegmentRing ring;
  };

  // The node's inputs of segment k combined before its ring: blocking or started.
  bool gather(size_t k, bool wait) {
    Segment& g = segments_[k];
    if (!g.gather) return true;
    const Group& node = plan_.state->node;
    const uint8_t* in = node_input_ + g.offset * plan_.type.size;
    const int n = static_cast<int>(g.count);
    const int* counts = g.slices.counts.data();
    if (plan_.layout == Layout::rails)
      return g.gather->run(
          wait, false,
          [&] { return PMPI_Reduce_scatter(in, g.acc, counts, type_, op_, node.comm); },
          [&](MPI_Request* r) {
            return PMPI_Ireduce_scatter(in, g.acc, counts, type_, op_, node.comm, r);
          });
    void* out = node.rank == 0 ? g.acc : nullptr;
    return g.gather->run(
        wait, false, [&] { return PMPI_Reduce(in, out, n, type_, op_, 0, node.comm); },
        [&](MPI_Request* r) { return PMPI_Ireduce(in, out, n, type_, op_, 0, node.comm, r); });
  }

  // Segment k's result from its ring's members to every rank of the node.
  bool spread(size_t k, bool wait) {
    Segment& g = segments_[k];
    if (!g.spread) return true;
    const Group& node = plan_.state->node;
    const bool failed = g.gather->failed();
    uint8_t* out = recvbuf_ + g.offset * plan_.type.size;
    const int n = static_cast<int>(g.count), mine = static_cast<int>(g.ring_count);
    const int *counts = g.slices.counts.data(), *displs = g.slices.displs.data();
    if (plan_.layout == Layout::rails)
      return g.spread->run(
          wait, failed,
          [&] {
            return PMPI_Allgatherv(g.acc, mine, type_, out, counts, displs, type_, node.comm);
          },
          [&](MPI_Request* r) {
            return PMPI_Iallgatherv(g.acc, mine, type_, out, counts, displs, type_, node.comm, r);
          });
    return g.spread->run(
        wait, failed, [&] { return PMPI_Bcast(out, n, type_, 0, node.comm); },
        [&](MPI_Request* r) { return PMPI_Ibcast(out, n, type_, 0, node.comm, r); });
  }

  // The compressed ring on this rank's part of segment k, once the
  // agreement is in.
  bool ring(size_t k, bool wait) {
    Segment& g = segments_[k];
    return agree_.ready(call_, wait) && g.ring.advance(call_, agree_, tag_, wait, [&] {
      std::optional<RingWork> w;
      if (g.ring_count == 0 || (g.gather && g.gather->failed())) return w;
      w = RingWork{g.ring_in,
                   {g.acc, plan_.type.size, type_, op_, even_blocks(g.ring_count, call_.group.size)},
                   true};
      return w;
    });
  }

  const CollPlan plan_;  // its chunks are each segment's ring's
  CompressedCall call_;
  uint8_t* const recvbuf_;
  const MPI_Datatype type_;
  const MPI_Op op_;
  const int tag_;
  const uint8_t* node_input_ = nullptr;  // what the node's first stage (flat: the ring) reads
  LossyAgreement agree_;
  std::vector<Segment> segments_;
};

CallResult allreduce_impl(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, Launch how) {
  stats_for(OpKind::allreduce).calls.fetch_add(1, std::memory_order_relaxed);
  CollPlan plan;
  if (!plan_call(OpKind::allreduce, comm, count, type, op, how.form(), &plan))
    return decline(plan);
  if (plan.layout != Layout::flat) ensure_node_groups(plan.state);
  // ADACOMP_LOSSY_CHECK: the input kept (in place, the result overwrites it).
  const std::vector<uint8_t> input =
      checked_input(plan, how.form(), sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf);
  const CallResult result = launch(*plan.state, comm, how, kTagRing, [=](int tag) {
    return std::make_unique<AllreduceSchedule>(comm, plan, how.form(), tag, sendbuf, recvbuf, count,
                                               type, op);
  });
  if (!input.empty())
    check_against_exact(plan, input.data(), recvbuf, plan.bytes / plan.type.size,
                        [&](const void* in, void* exact) {
                          return PMPI_Allreduce(in, exact, count, type, op, plan.state->coll.comm);
                        });
  return result;
}

}  // namespace

CallResult allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                     MPI_Comm comm) {
  return allreduce_impl(sendbuf, recvbuf, count, type, op, comm, {});
}

CallResult iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm comm, MPI_Request* request) {
  return allreduce_impl(sendbuf, recvbuf, count, type, op, comm, {request});
}

#if MPI_VERSION >= 4
CallResult allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return allreduce_impl(sendbuf, recvbuf, count, type, op, comm, {request, true});
}
#endif

}  // namespace adacomp
