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
// Either way each element's value is computed once and copied to every
// rank, so results are identical everywhere and from run to run. The ring
// reduces on quantisation codes when the call's lossy agreement chose a
// grid (coll/ring_codes.h), else decodes, adds and encodes at every hop
// (coll/ring.h).
#include <cstring>
#include <memory>
#include <optional>
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

const Group& ring_group(const Plan& plan) {
  const CommState& s = *plan.state;
  return plan.layout == Layout::rails     ? s.rail
         : plan.layout == Layout::leaders ? s.leaders
                                          : s.coll;
}

class AllreduceSchedule : public Schedule {
 public:
  AllreduceSchedule(MPI_Comm app, const Plan& plan, CallForm form, int tag, const void* sendbuf,
                    void* recvbuf, int count, MPI_Datatype type, MPI_Op op)
      : plan_(plan),
        call_(app, plan_, OpKind::allreduce, ring_group(plan_), form),
        recvbuf_(recvbuf),
        count_(count),
        type_(type),
        op_(op),
        tag_(tag) {
    CommState& s = *plan_.state;
    const void* input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    node_input_ = input;
    ring_in_ = input;
    ring_acc_ = static_cast<uint8_t*>(recvbuf);
    ring_count_ = count;
    int members = s.coll.size, per_member = 1;
    if (plan_.layout == Layout::rails) {
      const Group& node = s.node;
      counts_.resize(node.size);
      displs_.resize(node.size);
      for (int i = 0; i < node.size; ++i) {
        counts_[i] = static_cast<int>(block_count(count, node.size, i));
        displs_[i] = static_cast<int>(block_begin(count, node.size, i));
      }
      ring_acc_ = call_.memory(ScratchSlot::accumulator, counts_[node.rank] * plan_.type.size + 1);
      ring_in_ = ring_acc_;
      // A rail's members share a local rank, so they agree on skipping.
      ring_count_ = counts_[node.rank];
      members = s.rail.size;
      per_member = node.size;
    } else if (plan_.layout == Layout::leaders) {
      // The leader reduces into recvbuf (its own input copied aside when in place).
      const bool leader = s.node.rank == 0;
      if (leader && input == recvbuf) {
        uint8_t* copy = call_.memory(ScratchSlot::accumulator, plan_.bytes);
        std::memcpy(copy, input, plan_.bytes);
        node_input_ = copy;
      }
      ring_in_ = recvbuf;
      ring_count_ = leader ? count : 0;
      members = s.loc.nodes;
      per_member = s.loc.max_local;
    }
    // Lossy: the range of every rank's input; every element passes
    // `compressions` codings among `members`, each bringing the sum of up to
    // `per_member` ranks' inputs.
    agree_.start(call_, input, count, allreduce_compressions(members), s.coll.size - 1,
                 codes_candidate(plan_, op, count, members) ? members : 0, per_member);
    if (plan_.layout != Layout::flat) gather_.emplace(s), spread_.emplace(s);
  }

  bool advance(bool wait) override {
    const Group& node = plan_.state->node;
    if (gather_ && !gather_->run(
                       wait, false, [&] { return gather(nullptr); },
                       [&](MPI_Request* r) { return gather(r); }))
      return false;
    if (!agree_.ready(call_, wait) || !ring(wait)) return false;
    const bool failed = gather_ && gather_->failed();
    if (plan_.layout == Layout::rails)
      return spread_->run(
          wait, failed,
          [&] {
            return PMPI_Allgatherv(ring_acc_, ring_count_, type_, recvbuf_, counts_.data(),
                                   displs_.data(), type_, node.comm);
          },
          [&](MPI_Request* r) {
            return PMPI_Iallgatherv(ring_acc_, ring_count_, type_, recvbuf_, counts_.data(),
                                    displs_.data(), type_, node.comm, r);
          });
    if (plan_.layout == Layout::leaders)
      return spread_->run(
          wait, failed, [&] { return PMPI_Bcast(recvbuf_, count_, type_, 0, node.comm); },
          [&](MPI_Request* r) { return PMPI_Ibcast(recvbuf_, count_, type_, 0, node.comm, r); });
    return true;
  }

  int finish() override {
    if (gather_) call_.check_mpi(gather_->rc()), call_.check_mpi(spread_->rc());
    return call_.finish();
  }

 private:
  // The node's inputs combined before the ring: blocking (r null) or started.
  int gather(MPI_Request* r) {
    const Group& node = plan_.state->node;
    if (plan_.layout == Layout::rails)
      return r ? PMPI_Ireduce_scatter(node_input_, ring_acc_, counts_.data(), type_, op_, node.comm,
                                      r)
               : PMPI_Reduce_scatter(node_input_, ring_acc_, counts_.data(), type_, op_, node.comm);
    void* out = node.rank == 0 ? recvbuf_ : nullptr;
    return r ? PMPI_Ireduce(node_input_, out, count_, type_, op_, 0, node.comm, r)
             : PMPI_Reduce(node_input_, out, count_, type_, op_, 0, node.comm);
  }

  // The compressed ring on this rank's part, its path chosen once the
  // agreement is in (so its buffers are taken only then).
  bool ring(bool wait) {
    if (ring_done_) return true;
    if (!hops_ && !codes_) {
      if (ring_count_ == 0 || (gather_ && gather_->failed())) return ring_done_ = true;
      if (agree_.grid().on) {
        codes_ = std::make_unique<CodesRing>(call_, ring_in_, ring_acc_, ring_count_, agree_.grid(),
                                             tag_);
      } else {
        if (ring_in_ != ring_acc_) std::memcpy(ring_acc_, ring_in_, ring_count_ * plan_.type.size);
        hops_ = std::make_unique<HopRing>(call_,
                                          ReduceArgs{ring_acc_, plan_.type.size, type_, op_,
                                                     even_blocks(ring_count_, call_.group.size)},
                                          true, tag_);
      }
    }
    return ring_done_ = codes_ ? codes_->advance(wait) : hops_->advance(wait);
  }

  const Plan plan_;
  CompressedCall call_;
  void* const recvbuf_;
  const int count_;
  const MPI_Datatype type_;
  const MPI_Op op_;
  const int tag_;
  const void* node_input_ = nullptr;  // what the node's first stage reads
  const void* ring_in_ = nullptr;     // the ring's input and result
  uint8_t* ring_acc_ = nullptr;
  size_t ring_count_ = 0;
  std::vector<int> counts_, displs_;  // rails: the node's slices
  LossyAgreement agree_;
  std::optional<NodeStage> gather_, spread_;  // node-aware: before and after the ring
  std::unique_ptr<HopRing> hops_;
  std::unique_ptr<CodesRing> codes_;
  bool ring_done_ = false;
};

CallResult allreduce_impl(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, Launch how) {
  stats_for(OpKind::allreduce).calls.fetch_add(1, std::memory_order_relaxed);
  Plan plan;
  if (!plan_call(OpKind::allreduce, comm, count, type, op, how.form(), &plan))
    return decline(plan);
  if (plan.layout != Layout::flat) ensure_node_groups(plan.state);
  return launch(*plan.state, comm, how, kTagRing, [=](int tag) {
    return std::make_unique<AllreduceSchedule>(comm, plan, how.form(), tag, sendbuf, recvbuf, count,
                                               type, op);
  });
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
