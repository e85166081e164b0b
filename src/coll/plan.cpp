#include "coll/plan.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "coll/schedule.h"
#include "decision/gate.h"
#include "runtime/args.h"
#include "runtime/call_facts.h"
#include "runtime/link_check.h"
#include "runtime/runtime.h"

namespace adacomp {
namespace {

bool intercommunicator(MPI_Comm comm) {
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  return inter;
}

// The communicator as the decision sees it: its layout (learned when the
// library's state of it was made, alike on every rank) and what of the
// state exists.
CommLayout comm_layout(const CommState* s) {
  CommLayout l;
  if (!s || s->coll.comm == MPI_COMM_NULL) return l;
  l.prepared = true;
  l.node_groups = s->node.comm != MPI_COMM_NULL;
  l.size = s->coll.size;
  l.nodes = s->loc.nodes;
  l.max_local = s->loc.max_local;
  l.node_size = s->loc.local_size;
  l.uniform = s->loc.uniform;
  return l;
}

// Follows a plan: notes it for the report (report/stats.h note_plan) and
// fills the call's context; true when the call is coded.
bool follow(OpKind op, const Plan& decided, CollPlan* plan) {
  static_cast<Plan&>(*plan) = decided;
  note_plan(op, decided);
  if (!decided.coded) return false;
  plan->params.kind = plan->type.kind;
  plan->params.zstd_level = config().zstd_level;
  return true;
}

// Whether a blocking call the adaptive policy decides passes through
// untimed on its slot's settled answer (PathChoice::passes_settled), asked
// before any other query: such a call would throw away the argument
// checks, the datatype's facts and the candidates. Every rank asks alike:
// the state and its slots are made collectively, and a slot settles only
// on calls that passed every check (an intercommunicator's never do).
bool passes_settled(OpKind operation, MPI_Comm comm, size_t bytes) {
  CommState* s = find_comm_state(comm);
  if (!s || !s->model.passes_settled(static_cast<int>(operation), bytes)) return false;
  note_pass(PassReason::model_no_gain);
  return true;
}

// The bound of a coded collective under rules that ranks may see
// differently (rules_need_agreement): agreed in-band over the private
// communicator (a blocking call makes it; a nonblocking one cannot agree
// without blocking, so it takes its communicator's bound without rules, as
// every rank does). Whether the call is coded does not depend on the bound,
// so every rank gets here alike.
bool agree_rule(MPI_Comm comm, int rule, bool nonblocking, CallFacts* facts) {
  if (!rules_need_agreement(comm)) return true;
  if (nonblocking) {
    facts->bound = comm_bound(comm);
    return true;
  }
  const CommState* s = comm_state(comm);
  if (!s || s->coll.comm == MPI_COMM_NULL) return false;
  facts->bound = agreed_rule_bound(s->coll.comm, rule);
  return true;
}

// The query's facts and the early passes, shared by every collective: the
// common small message leaves on its facts alone, before any query but the
// size; a blocking call the model settled on plain MPI leaves next.
bool passes_early(const CallQuery& q, MPI_Comm comm) {
  Plan pass;
  if (passes_on_facts(config(), q, &pass)) {
    note_plan(q.op, pass);
    return true;
  }
  return q.form == CallForm::blocking && verdict(config(), q.facts).gate.adaptive &&
         passes_settled(q.op, comm, q.bytes);
}

// The rest of the query, once the arguments are known good: the rules'
// agreed bound, the communicator's state (a blocking call makes it) and
// layout, then the plan.
bool plan_on(MPI_Comm comm, int rule, CallQuery* q, CollPlan* plan) {
  const bool nonblocking = q->form != CallForm::blocking;
  q->comm.intercomm = intercommunicator(comm);
  if (!q->comm.intercomm) {
    if (!agree_rule(comm, rule, nonblocking, &q->facts)) return false;
    plan->state = nonblocking ? find_comm_state(comm) : comm_state(comm);
    q->comm = comm_layout(plan->state);
    if (plan->state) q->model = &plan->state->model;
  }
  q->eager_limit = eager_limit();
  return follow(q->op, adacomp::plan(config(), *q), plan);
}

}  // namespace

bool plan_call(OpKind operation, MPI_Comm comm, int count, MPI_Datatype type, MPI_Op op,
               CallForm form, CollPlan* plan) {
  if (form == CallForm::blocking) settle_collectives(comm);
  // Bcast alone moves data; the others reduce whatever `op` is (an
  // MPI_OP_NULL given to a reduction is the caller's error, MPI's to report).
  const bool reduction = operation != OpKind::bcast;
  CallQuery q;
  q.op = operation;
  q.form = form;
  // Only the sender's datatype decides a Bcast's codec: the arms are padded.
  q.padded_arms = !reduction;
  q.facts = call_facts(comm, count, type, GateScope::collective, Decider::all_ranks);
  const int rule = apply_lossy_rules(comm, op_name(operation), &q.facts);
  q.bytes = q.facts.bytes;
  if (passes_early(q, comm)) return false;
  // Bad arguments go to PMPI, which reports them.
  if (!collective_args_ok(comm, count, type, op, reduction, &plan->type)) return false;
  return plan_on(comm, rule, &q, plan);
}

bool exchange_may_code(MPI_Comm comm, size_t block_bytes, bool varied) {
  const size_t gated = varied ? std::max<size_t>(config().threshold_lossless, 1) : block_bytes;
  const CallFacts f =
      call_facts(comm, gated, ElemKind::bytes, GateScope::transfer, Decider::all_ranks);
  return verdict(config(), f).coded();
}

bool plan_exchange(OpKind operation, MPI_Comm comm, size_t block_bytes, bool varied,
                   bool nonblocking, CollPlan* plan) {
  if (!nonblocking) settle_collectives(comm);
  CallQuery q;
  q.op = operation;
  q.form = nonblocking ? CallForm::nonblocking : CallForm::blocking;
  // The v calls are coded where any block is large enough: their facts are
  // those of the smallest coded size, and rules select them by it.
  const size_t gated = varied ? std::max<size_t>(config().threshold_lossless, 1) : block_bytes;
  q.facts = call_facts(comm, gated, ElemKind::bytes, GateScope::transfer, Decider::all_ranks);
  const int rule = apply_lossy_rules(comm, op_name(operation), &q.facts);
  q.bytes = block_bytes;
  if (passes_early(q, comm)) return false;
  // Each transfer codes with its own kind's candidate of the arm
  // (Exchange): the arms are the bytes', the most lossless candidates; a
  // float transfer's sender may code lossy under the plan's bound.
  return plan_on(comm, rule, &q, plan);
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
