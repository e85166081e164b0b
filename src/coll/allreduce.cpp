#include <cstring>

#include "coll/bound.h"
#include "coll/call.h"
#include "coll/coll.h"
#include "coll/plan.h"
#include "coll/ring.h"

namespace adacomp {

int allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type,
              MPI_Op op, MPI_Comm comm) {
  stats_for(Op::allreduce).calls.fetch_add(1, std::memory_order_relaxed);
  Plan plan;
  if (!plan_reduction(Op::allreduce, comm, count, type, op, &plan))
    return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);

  const int p = plan.state->size;
  ReduceArgs a{static_cast<uint8_t*>(recvbuf), plan.type.size, type, op,
               even_blocks(static_cast<size_t>(count), p)};
  if (sendbuf != MPI_IN_PLACE) std::memcpy(a.acc, sendbuf, plan.bytes);
  CompressedCall call(comm, plan, Op::allreduce);
  if (plan.tier.tier == Tier::lossy)
    call.set_hop_bound(hop_bound(plan, a.acc, static_cast<size_t>(count), plan.state->coll,
                                 allreduce_compressions(p), p - 1));
  ring_reduce_scatter(call, a);
  ring_allgather_frames(call, a);
  return call.finish();
}

}  // namespace adacomp
