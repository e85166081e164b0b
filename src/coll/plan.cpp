#include "coll/plan.h"

#include <climits>

#include "runtime/runtime.h"
#include "wire/frame.h"

namespace adacomp {
namespace {

// Frames travel as int counts of MPI_BYTE.
constexpr size_t kMaxCompressedBytes = INT_MAX - kFrameHeaderBytes;

bool plan_common(MPI_Comm comm, int count, MPI_Datatype type, Plan* plan) {
  if (!runtime_active() || count <= 0 || comm == MPI_COMM_NULL) return false;
  const Config& cfg = config();
  if (cfg.mode == Mode::raw) return false;
  int size = 0;
  PMPI_Type_size(type, &size);
  plan->bytes = static_cast<size_t>(count) * static_cast<size_t>(size);
  if (plan->bytes < cfg.threshold_lossless || plan->bytes > kMaxCompressedBytes) return false;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return false;
  plan->type = type_info(type);
  plan->tier = choose_tier(cfg, plan->bytes, plan->type.kind);
  return plan->tier.tier != Tier::raw;
}

bool finish_plan(MPI_Comm comm, Plan* plan) {
  const Config& cfg = config();
  plan->codec = &codec_for(cfg, plan->tier.tier, plan->type.kind);
  plan->params.kind = plan->type.kind;
  plan->params.zstd_level = cfg.zstd_level;
  plan->chunks = plan->tier.pipelined ? pipeline_chunks(cfg, plan->bytes) : 1;
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
