#include "coll/plan.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "coll/schedule.h"
#include "runtime/call_query.h"
#include "runtime/link_check.h"
#include "runtime/runtime.h"

namespace adacomp {
namespace {

// Follows a plan: notes it for the report (report/stats.h note_plan) and
// fills the call's context; true when the call is coded.
bool follow(OpKind op, const Plan& decided, const CallContext& context, CollPlan* plan) {
  static_cast<Plan&>(*plan) = decided;
  plan->state = context.state;
  plan->type = context.type;
  // A coded call has nothing to count; only ADACOMP_VERBOSE=2 prints it.
  if (!decided.coded || config().verbose >= 2) note_plan(op, decided);
  if (!decided.coded) return false;
  plan->params.kind = plan->type.kind;
  plan->params.zstd_level = config().zstd_level;
  return true;
}

}  // namespace

bool plan_call(OpKind operation, MPI_Comm comm, int count, MPI_Datatype type, MPI_Op op,
               CallForm form, CollPlan* plan) {
  if (form == CallForm::blocking) settle_collectives(comm);
  CallContext context;
  const Plan decided = plan_collective(operation, comm, count, type, op, form, &context);
  return follow(operation, decided, context, plan);
}

bool exchange_may_code(MPI_Comm comm, size_t block_bytes, bool varied) {
  return !exchange_passes_on_facts(comm, block_bytes, varied);
}

bool plan_exchange(OpKind operation, MPI_Comm comm, size_t block_bytes, bool varied,
                   bool nonblocking, CollPlan* plan) {
  if (!nonblocking) settle_collectives(comm);
  CallContext context;
  const Plan decided =
      plan_exchange_call(operation, comm, block_bytes, varied, nonblocking, &context);
  return follow(operation, decided, context, plan);
}

bool codes_transfer(size_t bytes) {
  return gate(config(), ErrorBound{}, tier_override(), bytes, ElemKind::bytes,
              GateScope::transfer)
             .tier.tier != Tier::raw;
}

bool codes_hop(const CollPlan& plan, int peer) {
  const CommState& s = *plan.state;
  return config().hierarchy == Hierarchy::flat || !s.spans_nodes() || !s.loc.same_node(peer);
}

void record_time(CommState* state, int slot, double seconds) {
  if (slot < 0) return;
  PathChoice& model = state->model.at(slot);
  if (!model.record(seconds)) return;
  // One MAX agrees on the arms' times and, in-band, on the link figure
  // (runtime/link_check.h): the same value on every rank of the communicator.
  constexpr int kArms = PathChoice::kMaxArms;
  double mine[kArms + 1], slowest[kArms + 1];
  std::copy(model.best(), model.best() + kArms, mine);
  mine[kArms] = link_vote();
  PMPI_Allreduce(mine, slowest, kArms + 1, MPI_DOUBLE, MPI_MAX, state->coll.comm);
  const bool settled = model.agree(slowest);
  link_agree(slowest[kArms]);
  if (!settled) return;  // the arms kept for the rest of the exploration were agreed
  const int won = model.settled();
  const OpKind op = static_cast<OpKind>(slot / kSizeClasses);
  // An arm's name: its codec, and whether it cuts the call into chunks.
  const auto arm_name = [&](int a) {
    if (a == 0) return std::string("raw");
    return std::string(model.codecs().arm(a).name) + (model.codecs().pipelined(a) ? " chunked" : "");
  };
  note_settled(op, class_bytes(slot % kSizeClasses), arm_name(won).c_str(),
               won ? layout_name(layout_of(comm_layout(state), config().hierarchy)) : "pass-through");
  if (config().verbose < 2 || state->coll.rank != 0) return;
  // Rank 0's codec names: a Bcast's other ranks may have coded other kinds.
  std::string arms;
  for (int a = 0; a < model.arms(); ++a) {
    char t[96];
    std::snprintf(t, sizeof t, "%s%s %.3g s%s", a ? ", " : "", arm_name(a).c_str(), slowest[a],
                  model.dropped(a) ? " (dropped)" : "");
    arms += t;
  }
  std::fprintf(stderr, "adacomp: model: %s %zu-byte class settled on %s (%s)\n",
               call_name(op, CallForm::blocking).c_str(), class_bytes(slot % kSizeClasses),
               arm_name(won).c_str(), arms.c_str());
}

}  // namespace adacomp
