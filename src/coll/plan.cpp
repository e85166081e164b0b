#include "coll/plan.h"

#include <cstdio>

#include "coll/schedule.h"
#include "runtime/args.h"
#include "runtime/runtime.h"
#include "wire/frame.h"

namespace adacomp {
namespace {

// The tier of this call and whether the adaptive policy decides it.
TierChoice tier_of(const Config& cfg, Override ov, size_t bytes, ElemKind kind,
                   bool* adaptive) {
  const bool lossy_ok = cfg.lossy_enabled() && kind != ElemKind::bytes;
  const Tier compressed = lossy_ok ? Tier::lossy : Tier::lossless;
  *adaptive = false;
  switch (ov) {
    case Override::none:
      *adaptive = cfg.model && cfg.adaptive();
      return choose_tier(cfg, cfg.mode, bytes, kind);
    case Override::adaptive:
      *adaptive = cfg.model;
      return choose_tier(cfg, Mode::adaptive, bytes, kind);
    case Override::adaptive_pipelined:
      *adaptive = cfg.model;
      return choose_tier(cfg, Mode::pipelined, bytes, kind);
    case Override::lossless: return {Tier::lossless, false};
    case Override::lossy: return {compressed, false};
    case Override::pipelined: return {compressed, true};
    case Override::raw: break;
  }
  return {};
}

// Cheap checks first: the common small message leaves before any query.
// The library is off for this call: not running, no communicator, or raw.
bool switched_off(MPI_Comm comm) {
  if (!runtime_active() || comm == MPI_COMM_NULL) return true;
  const Override ov = tier_override();
  return ov == Override::raw || (ov == Override::none && config().mode == Mode::raw);
}

bool intercommunicator(MPI_Comm comm) {
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  return inter;
}

bool eligible(MPI_Comm comm, size_t bytes) {
  if (switched_off(comm) || bytes == 0 || bytes > kMaxFramePayload) return false;
  if (tier_override() == Override::none && bytes < config().threshold_lossless) return false;
  return !intercommunicator(comm);
}

Layout layout_of(const CommState& s, Hierarchy h) {
  if (!s.spans_nodes() || s.loc.max_local == 1 || h == Hierarchy::flat) return Layout::flat;
  if (s.loc.uniform && h != Hierarchy::leaders) return Layout::rails;
  return Layout::leaders;
}

// The policy's verdict once the tier is known: state, layout, model slot.
// `nonblocking`: see plan_nonblocking.
bool decide(Op operation, MPI_Comm comm, bool adaptive, bool nonblocking, Plan* plan) {
  const Config& cfg = config();
  if (adaptive && nonblocking) return false;
  // A job inside one node: nothing to create, nothing to time.
  if (adaptive && node_local_raw() && !job_spans_nodes()) return false;
  plan->state = nonblocking ? existing_comm_state(comm) : comm_state(comm);
  if (!plan->state) return false;
  CommState& s = *plan->state;
  plan->layout = layout_of(s, cfg.hierarchy);
  if (nonblocking && plan->layout != Layout::flat) return false;
  if (adaptive) {
    // Inside one node only a calibration that found coding worthwhile
    // lets the model try; otherwise the call passes through untimed.
    if (!s.spans_nodes() && node_local_raw()) return false;
    plan->model = &s.model.slot(static_cast<int>(operation), plan->bytes);
    if (plan->model->next() == Path::raw) return false;
  }
  plan->codec = &codec_for(cfg, plan->tier.tier, plan->type.kind);
  plan->params.kind = plan->type.kind;
  plan->params.zstd_level = cfg.zstd_level;
  plan->chunks = plan->tier.pipelined ? pipeline_chunks(cfg, plan->bytes) : 1;
  return true;
}

bool plan_common(Op operation, MPI_Comm comm, int count, MPI_Datatype type, MPI_Op op,
                 bool reduction, bool nonblocking, Plan* plan) {
  if (count <= 0 || comm == MPI_COMM_NULL) return false;
  // Bad arguments go to PMPI, which reports them (runtime/args.h).
  if (arg_error(comm, count, type, MPI_PROC_NULL, Peer::none, 0)) return false;
  int size = 0;
  PMPI_Type_size(type, &size);
  plan->bytes = static_cast<size_t>(count) * static_cast<size_t>(size);
  if (!eligible(comm, plan->bytes)) return false;
  plan->type = type_info(type);
  if (reduction && (!reducible(plan->type) || !op_commutative(op))) return false;
  bool adaptive = false;
  plan->tier = tier_of(config(), tier_override(), plan->bytes, plan->type.kind, &adaptive);
  return plan->tier.tier != Tier::raw && decide(operation, comm, adaptive, nonblocking, plan);
}

}  // namespace

bool plan_reduction(Op operation, MPI_Comm comm, int count, MPI_Datatype type, MPI_Op op,
                    Plan* plan) {
  settle_collectives(comm);
  return plan_common(operation, comm, count, type, op, true, false, plan);
}

bool plan_movement(Op operation, MPI_Comm comm, int count, MPI_Datatype type, Plan* plan) {
  settle_collectives(comm);
  return plan_common(operation, comm, count, type, MPI_OP_NULL, false, false, plan);
}

bool plan_nonblocking(Op operation, MPI_Comm comm, int count, MPI_Datatype type, MPI_Op op,
                      Plan* plan) {
  return plan_common(operation, comm, count, type, op, op != MPI_OP_NULL, true, plan);
}

bool plan_exchange(Op operation, MPI_Comm comm, size_t block_bytes, bool any_block_pays,
                   Plan* plan) {
  settle_collectives(comm);
  if (!any_block_pays || switched_off(comm) || intercommunicator(comm)) return false;
  plan->bytes = block_bytes;
  bool adaptive = false;
  // Data movement is lossless: the tier only says whether the policy decides.
  tier_of(config(), tier_override(), block_bytes, ElemKind::bytes, &adaptive);
  plan->tier = {Tier::lossless, false};
  return decide(operation, comm, adaptive, false, plan);
}

bool codes_hop(const Plan& plan, int peer) {
  const CommState& s = *plan.state;
  return config().hierarchy == Hierarchy::flat || !s.spans_nodes() || !s.loc.same_node(peer);
}

void record_time(const Plan& plan, double seconds) {
  if (!plan.model || !plan.model->record(seconds)) return;
  double slowest[2];
  PMPI_Allreduce(plan.model->best(), slowest, 2, MPI_DOUBLE, MPI_MAX, plan.state->coll.comm);
  const bool was = plan.model->settled_compressed();
  plan.model->agree(slowest);
  const Config& cfg = config();
  if (cfg.verbose >= 2 && plan.state->coll.rank == 0 && was != plan.model->settled_compressed())
    std::fprintf(stderr, "adacomp: model: %zu-byte class %s (raw %.3g s, compressed %.3g s)\n",
                 plan.bytes, plan.model->settled_compressed() ? "compressed" : "raw",
                 slowest[0], slowest[1]);
}

}  // namespace adacomp
