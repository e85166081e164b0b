// Allreduce. Flat: the compressed ring over every rank. Node-aware, when the
// communicator spans nodes with several ranks on some of them, the node
// stages run through PMPI on the node's private communicator and only the
// inter-node stage is coded:
//   rails   (every node holds the same number of ranks): a node-local
//           reduce-scatter leaves local rank i with slice i of its node's
//           sum; the ranks with local rank i on every node (a rail) run the
//           compressed ring on that slice; a node-local allgather joins the
//           slices. Every core codes, each 1/local_size of the vector.
//   leaders (any layout): a node-local reduce to the node's lowest rank, the
//           compressed ring among those leaders, a node-local broadcast.
// Either way each element's value is computed once and copied to every
// rank, so results are identical everywhere and from run to run.
#include <cstring>
#include <vector>

#include "coll/bound.h"
#include "coll/call.h"
#include "coll/coll.h"
#include "coll/plan.h"
#include "coll/ring.h"
#include "coll/ring_codes.h"
#include "runtime/scratch.h"

namespace adacomp {
namespace {

// The compressed ring allreduce of `count` elements of `input` into acc
// (which may be input) among `group`, on quantisation codes when the call
// has a shared grid (ring_codes.h); the other rings work in place in acc.
void ring_allreduce(CompressedCall& call, const void* input, uint8_t* acc, size_t count,
                    MPI_Datatype type, MPI_Op op, const CodesGrid& grid) {
  if (grid.on) return ring_allreduce_codes(call, input, acc, count, grid);
  if (input != acc) std::memcpy(acc, input, count * call.plan.type.size);
  ReduceArgs a{acc, call.plan.type.size, type, op, even_blocks(count, call.group.size)};
  ring_reduce_scatter(call, a);
  ring_allgather_frames(call, a);
}

// Lossy: the shared grid when the call reduces on codes; otherwise the
// per-compression bound: the range is agreed over every rank's input, and
// every element passes `compressions` codings among `ring_members`, each
// bringing the sum of up to `per_member` ranks' inputs.
CodesGrid set_bound(CompressedCall& call, const Plan& plan, const void* input, size_t count,
                    int ring_members, int per_member, MPI_Op op) {
  if (plan.tier.tier != Tier::lossy) return {};
  const CodesGrid grid = codes_grid(plan, op, input, count, ring_members, per_member);
  if (!grid.on)
    call.set_hop_bound(hop_bound(plan, input, count, plan.state->coll.comm,
                                 allreduce_compressions(ring_members),
                                 plan.state->coll.size - 1));
  return grid;
}

int allreduce_rails(const void* input, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                    MPI_Comm comm, const Plan& plan) {
  CommState& s = *plan.state;
  const Group& node = s.node;
  std::vector<int> counts(node.size), displs(node.size);
  for (int i = 0; i < node.size; ++i) {
    counts[i] = static_cast<int>(block_count(count, node.size, i));
    displs[i] = static_cast<int>(block_begin(count, node.size, i));
  }
  const size_t elem = plan.type.size;
  uint8_t* slice = scratch(ScratchSlot::accumulator, counts[node.rank] * elem + 1);
  CompressedCall call(comm, plan, OpKind::allreduce, s.rail);
  const CodesGrid grid = set_bound(call, plan, input, count, s.rail.size, node.size, op);
  int rc = PMPI_Reduce_scatter(input, slice, counts.data(), type, op, node.comm);
  if (rc == MPI_SUCCESS) {
    // A rail's members share a local rank, so they agree on skipping.
    if (counts[node.rank] > 0)
      ring_allreduce(call, slice, slice, counts[node.rank], type, op, grid);
    rc = PMPI_Allgatherv(slice, counts[node.rank], type, recvbuf, counts.data(), displs.data(),
                         type, node.comm);
  }
  return call.finish_with(rc);
}

int allreduce_leaders(const void* input, void* recvbuf, int count, MPI_Datatype type,
                      MPI_Op op, MPI_Comm comm, const Plan& plan) {
  CommState& s = *plan.state;
  const bool leader = s.node.rank == 0;
  // The leader reduces into recvbuf (its own input copied aside when in place).
  const void* src = input;
  if (leader && input == recvbuf) {
    uint8_t* copy = scratch(ScratchSlot::accumulator, plan.bytes);
    std::memcpy(copy, input, plan.bytes);
    src = copy;
  }
  CompressedCall call(comm, plan, OpKind::allreduce, s.leaders);
  const CodesGrid grid = set_bound(call, plan, input, count, s.loc.nodes, s.loc.max_local, op);
  int rc = PMPI_Reduce(src, leader ? recvbuf : nullptr, count, type, op, 0, s.node.comm);
  if (rc == MPI_SUCCESS && leader)
    ring_allreduce(call, recvbuf, static_cast<uint8_t*>(recvbuf), count, type, op, grid);
  if (rc == MPI_SUCCESS) rc = PMPI_Bcast(recvbuf, count, type, 0, s.node.comm);
  return call.finish_with(rc);
}

}  // namespace

CallResult allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
                     MPI_Op op, MPI_Comm comm) {
  stats_for(OpKind::allreduce).calls.fetch_add(1, std::memory_order_relaxed);
  Plan plan;
  if (!plan_reduction(OpKind::allreduce, comm, count, type, op, &plan)) return decline(plan);

  const void* input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (plan.layout != Layout::flat) ensure_node_groups(plan.state);
  if (plan.layout == Layout::rails)
    return allreduce_rails(input, recvbuf, count, type, op, comm, plan);
  if (plan.layout == Layout::leaders)
    return allreduce_leaders(input, recvbuf, count, type, op, comm, plan);

  CompressedCall call(comm, plan, OpKind::allreduce);
  const CodesGrid grid = set_bound(call, plan, input, count, plan.state->coll.size, 1, op);
  ring_allreduce(call, input, static_cast<uint8_t*>(recvbuf), count, type, op, grid);
  return call.finish();
}

}  // namespace adacomp
