#include "coll/plan.h"

#include <climits>

#include "policy/tier.h"
#include "runtime/runtime.h"
#include "wire/frame.h"

namespace adacomp {
namespace {

// Frames travel as int counts of MPI_BYTE.
constexpr size_t kMaxCompressedBytes = INT_MAX - kFrameHeaderBytes;

bool plan_common(MPI_Comm comm, int count, MPI_Datatype type, Plan* plan) {
  if (!runtime_active() || count <= 0 || comm == MPI_COMM_NULL) return false;
  const Config& cfg = config();
  int size = 0;
  PMPI_Type_size(type, &size);
  size_t bytes = static_cast<size_t>(count) * static_cast<size_t>(size);
  if (choose_tier(cfg, bytes) == Tier::raw || bytes > kMaxCompressedBytes) return false;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return false;
  plan->type = type_info(type);
  return true;
}

bool finish_plan(MPI_Comm comm, Plan* plan) {
  const Config& cfg = config();
  plan->codec = &lossless_codec_for(cfg, plan->type.kind);
  plan->params.kind = plan->type.kind;
  plan->params.zstd_level = cfg.zstd_level;
  plan->state = comm_state(comm);
  return plan->state != nullptr;
}

}  // namespace

bool plan_reduction(MPI_Comm comm, int count, MPI_Datatype type, MPI_Op op, Plan* plan) {
  if (!plan_common(comm, count, type, plan)) return false;
  if (!reducible(plan->type) || !op_commutative(op)) return false;
  return finish_plan(comm, plan);
}

bool plan_bcast(MPI_Comm comm, int count, MPI_Datatype type, Plan* plan) {
  if (!plan_common(comm, count, type, plan)) return false;
  return finish_plan(comm, plan);
}

}  // namespace adacomp
