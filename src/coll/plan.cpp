#include "coll/plan.h"

#include "runtime/args.h"
#include "runtime/runtime.h"
#include "wire/frame.h"

namespace adacomp {
namespace {

// The tier of this call and whether the runtime model may veto it.
TierChoice tier_of(const Config& cfg, Override ov, size_t bytes, ElemKind kind,
                   bool* use_model) {
  const bool lossy_ok = cfg.lossy_enabled() && kind != ElemKind::bytes;
  const Tier compressed = lossy_ok ? Tier::lossy : Tier::lossless;
  const bool policy_mode = cfg.mode == Mode::adaptive || cfg.mode == Mode::pipelined;
  *use_model = false;
  switch (ov) {
    case Override::none:
      *use_model = cfg.model && policy_mode;
      return choose_tier(cfg, cfg.mode, bytes, kind);
    case Override::adaptive:
      *use_model = cfg.model;
      return choose_tier(cfg, Mode::adaptive, bytes, kind);
    case Override::adaptive_pipelined:
      *use_model = cfg.model;
      return choose_tier(cfg, Mode::pipelined, bytes, kind);
    case Override::lossless: return {Tier::lossless, false};
    case Override::lossy: return {compressed, false};
    case Override::pipelined: return {compressed, true};
    case Override::raw: break;
  }
  return {};
}

bool plan_common(MPI_Comm comm, int count, MPI_Datatype type, Plan* plan, bool* use_model) {
  if (!runtime_active() || count <= 0 || comm == MPI_COMM_NULL) return false;
  // Bad arguments go to PMPI, which reports them (runtime/args.h).
  if (arg_error(comm, count, type, MPI_PROC_NULL, Peer::none, 0)) return false;
  const Config& cfg = config();
  const Override ov = tier_override();
  if (ov == Override::raw || (ov == Override::none && cfg.mode == Mode::raw)) return false;
  int size = 0;
  PMPI_Type_size(type, &size);
  plan->bytes = static_cast<size_t>(count) * static_cast<size_t>(size);
  if (plan->bytes == 0 || plan->bytes > kMaxFramePayload) return false;
  // The common case of a small message leaves here, before any other query.
  if (ov == Override::none && plan->bytes < cfg.threshold_lossless) return false;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return false;
  plan->type = type_info(type);
  plan->tier = tier_of(cfg, ov, plan->bytes, plan->type.kind, use_model);
  return plan->tier.tier != Tier::raw;
}

bool finish_plan(Op operation, MPI_Comm comm, bool use_model, Plan* plan) {
  const Config& cfg = config();
  plan->state = comm_state(comm);
  if (!plan->state) return false;
  if (use_model) {
    plan->model = &plan->state->model.slot(static_cast<int>(operation), plan->bytes);
    if (!RuntimeModel::allows(*plan->model)) return false;
  }
  plan->codec = &codec_for(cfg, plan->tier.tier, plan->type.kind);
  plan->params.kind = plan->type.kind;
  plan->params.zstd_level = cfg.zstd_level;
  plan->chunks = plan->tier.pipelined ? pipeline_chunks(cfg, plan->bytes) : 1;
  return true;
}

}  // namespace

bool plan_reduction(Op operation, MPI_Comm comm, int count, MPI_Datatype type, MPI_Op op,
                    Plan* plan) {
  bool use_model = false;
  if (!plan_common(comm, count, type, plan, &use_model)) return false;
  if (!reducible(plan->type) || !op_commutative(op)) return false;
  return finish_plan(operation, comm, use_model, plan);
}

bool plan_movement(Op operation, MPI_Comm comm, int count, MPI_Datatype type, Plan* plan) {
  bool use_model = false;
  if (!plan_common(comm, count, type, plan, &use_model)) return false;
  return finish_plan(operation, comm, use_model, plan);
}

}  // namespace adacomp
