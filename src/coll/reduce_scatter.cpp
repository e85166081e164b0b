// Reduce_scatter(_block): the Allreduce's ring reduce-scatter alone. The ring
// leaves block owned_block(r) complete at rank r, so rank i's slice of the
// vector is laid out as ring block owned_block(i): every rank ends with its
// own reduced block and nothing travels after the reduce-scatter.
//
// Node-aware, a node-local PMPI_Reduce gives each node's leader its node's
// sum; the leaders run the ring with one block per node (the slices of the
// node's ranks, copied next to each other); a node-local PMPI_Scatterv
// hands every rank its slice.
#include <climits>
#include <cstring>
#include <utility>
#include <vector>

#include "coll/bound.h"
#include "coll/call.h"
#include "coll/coll.h"
#include "coll/plan.h"
#include "coll/ring.h"
#include "runtime/scratch.h"

namespace adacomp {
namespace {

// Rank i's slice: counts[i] elements, or `block` for every rank when counts
// is null (Reduce_scatter_block). Slices follow each other in rank order.
// Count is int for the classic calls and MPI_Count for the MPI-4 _c forms.
template <class Count>
Count count_of(const Count* counts, Count block, int i) { return counts ? counts[i] : block; }

// Eligibility is the Allreduce's, for the whole vector (identical on every
// rank: MPI requires identical counts, so the _c forms decide alike).
template <class Count>
bool plan_reduce_scatter(OpKind operation, MPI_Comm comm, const Count* counts, Count block,
                         MPI_Datatype type, MPI_Op op, Plan* plan) {
  int size = 0;
  if (comm == MPI_COMM_NULL || PMPI_Comm_size(comm, &size) != MPI_SUCCESS) return false;
  long long total = 0;
  for (int i = 0; i < size; ++i) {
    const Count n = count_of(counts, block, i);
    if (n < 0) return false;  // PMPI reports the error
    total += n;
    if (total > INT_MAX) return false;  // PMPI takes it whole
  }
  return plan_reduction(operation, comm, static_cast<int>(total), type, op, plan);
}

template <class Count>
int reduce_scatter_nodes(OpKind operation, const Plan& plan, const void* sendbuf, void* recvbuf,
                         const Count* counts, Count block, MPI_Datatype type, MPI_Op op,
                         MPI_Comm comm) {
  CommState& s = *plan.state;
  ensure_node_groups(&s);
  const Locality& loc = s.loc;
  const int p = s.coll.size;
  const size_t elem = plan.type.size, total = plan.bytes / elem;
  const void* input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  CompressedCall call(comm, plan, operation, s.leaders);
  if (plan.tier.tier == Tier::lossy)
    call.set_hop_bound(hop_bound(plan, input, total, s.coll.comm,
                                 reduce_scatter_compressions(loc.nodes), p - 1));
  // Slices in node order: node n's ranks' slices side by side.
  std::vector<size_t> offset(p + 1, 0);
  for (int i = 0; i < p; ++i) offset[i + 1] = offset[i] + count_of(counts, block, i);
  std::vector<RingBlock> blocks(loc.nodes);
  std::vector<int> scounts, sdispls;  // this node's ranks, in the permuted vector
  size_t at = 0;
  for (int n = 0; n < loc.nodes; ++n) {
    const size_t start = at;
    for (int i = 0; i < p; ++i) {
      if (loc.node_of[i] != n) continue;
      if (n == loc.node) {
        scounts.push_back(static_cast<int>(offset[i + 1] - offset[i]));
        sdispls.push_back(static_cast<int>(at - start));
      }
      at += offset[i + 1] - offset[i];
    }
    blocks[owned_block(n, loc.nodes)] = {start, at - start};
  }
  const bool leader = s.node.rank == 0;
  uint8_t* sum = leader ? scratch(ScratchSlot::accumulator, plan.bytes) : nullptr;
  std::vector<uint8_t> permuted(leader ? plan.bytes : 0);
  int rc = PMPI_Reduce(input, sum, static_cast<int>(total), type, op, 0, s.node.comm);
  const RingBlock& mine = blocks[owned_block(loc.node, loc.nodes)];
  if (rc == MPI_SUCCESS && leader) {
    size_t to = 0;
    for (int n = 0; n < loc.nodes; ++n)
      for (int i = 0; i < p; ++i)
        if (loc.node_of[i] == n) {
          const size_t len = (offset[i + 1] - offset[i]) * elem;
          std::memcpy(permuted.data() + to, sum + offset[i] * elem, len);
          to += len;
        }
    ReduceArgs a{permuted.data(), elem, type, op, blocks};
    ring_reduce_scatter(call, a);
  }
  const int mycount = static_cast<int>(count_of(counts, block, s.coll.rank));
  if (rc == MPI_SUCCESS)
    rc = PMPI_Scatterv(leader ? permuted.data() + mine.offset * elem : nullptr, scounts.data(),
                       sdispls.data(), type, mycount > 0 ? recvbuf : nullptr, mycount, type, 0,
                       s.node.comm);
  return call.finish_with(rc);
}

template <class Count>
int reduce_scatter_ring(OpKind operation, const Plan& plan, const void* sendbuf, void* recvbuf,
                        const Count* counts, Count block, MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm) {
  if (plan.layout != Layout::flat)
    return reduce_scatter_nodes(operation, plan, sendbuf, recvbuf, counts, block, type, op, comm);
  const int p = plan.state->coll.size;
  std::vector<RingBlock> blocks(p);
  size_t total = 0;
  for (int i = 0; i < p; ++i) {
    const size_t n = static_cast<size_t>(count_of(counts, block, i));
    blocks[owned_block(i, p)] = {total, n};
    total += n;
  }
  // In place the input is the whole of recvbuf, which keeps everything but
  // its first block as it was.
  ReduceArgs a{scratch(ScratchSlot::accumulator, plan.bytes), plan.type.size, type, op,
               std::move(blocks)};
  std::memcpy(a.acc, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, plan.bytes);
  CompressedCall call(comm, plan, operation);
  if (plan.tier.tier == Tier::lossy)
    call.set_hop_bound(hop_bound(plan, a.acc, total, plan.state->coll.comm,
                                 reduce_scatter_compressions(p), p - 1));
  ring_reduce_scatter(call, a);
  const RingBlock& mine = a.blocks[owned_block(plan.state->coll.rank, p)];
  if (mine.count > 0)  // recvbuf may be null then
    std::memcpy(recvbuf, a.acc + mine.offset * a.elem_size, mine.count * a.elem_size);
  return call.finish();
}

// Both calls and both count widths.
template <class Count>
CallResult reduce_scatter_impl(OpKind operation, const void* sendbuf, void* recvbuf,
                               const Count* counts, Count block, MPI_Datatype type, MPI_Op op,
                               MPI_Comm comm) {
  stats_for(operation).calls.fetch_add(1, std::memory_order_relaxed);
  Plan plan;
  if (!plan_reduce_scatter(operation, comm, counts, block, type, op, &plan)) return decline(plan);
  return reduce_scatter_ring(operation, plan, sendbuf, recvbuf, counts, block, type, op, comm);
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
  return reduce_scatter_impl<Count>(OpKind::reduce_scatter, sendbuf, recvbuf, recvcounts, 0,
                                    type, op, comm);
}

// Both count widths (coll/coll.h).
template decltype(reduce_scatter_block<int>) reduce_scatter_block<int>;
template decltype(reduce_scatter<int>) reduce_scatter<int>;
#if MPI_VERSION >= 4
template decltype(reduce_scatter_block<MPI_Count>) reduce_scatter_block<MPI_Count>;
template decltype(reduce_scatter<MPI_Count>) reduce_scatter<MPI_Count>;
#endif

}  // namespace adacomp
