// A collective's query, gathered in the order that lets the common call
// leave first (runtime/call_query.h).
#include "runtime/call_query.h"

#include <algorithm>

#include "runtime/args.h"
#include "runtime/call_facts.h"
#include "runtime/comm_hints.h"
#include "runtime/runtime.h"

namespace adacomp {
namespace {

bool intercommunicator(MPI_Comm comm) {
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  return inter;
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

// The communicator's part of a collective's query. A blocking call whose
// communicator has the library's private copy, under rules every rank sees
// alike, has it at hand: the call is planned in one step. Otherwise the
// query goes without it (its model, if the state exists, for a settled
// slot) and the part is gathered only if plan() asks (Plan::incomplete): a
// blocking call makes the state collectively, and one passed through on its
// facts makes nothing. Every rank asks alike: the state is made
// collectively and the rules agree in-band.
void comm_part_at_hand(MPI_Comm comm, CallQuery* q, CallContext* context) {
  CommState* s = find_comm_state(comm);
  q->model = s ? &s->model : nullptr;
  q->complete = s && s->coll.comm != MPI_COMM_NULL && !rules_need_agreement(comm);
  if (!q->complete) return;
  context->state = s;
  q->comm = comm_layout(s);
  q->eager_limit = eager_limit();
}

// The communicator's part when plan() asks for it: the rules' agreed bound,
// the communicator's state (a blocking call makes it) and layout; then the
// plan.
Plan plan_with_comm_part(MPI_Comm comm, int rule, CallQuery* q, CallContext* context) {
  const bool nonblocking = q->form != CallForm::blocking;
  q->complete = true;
  q->comm.intercomm = intercommunicator(comm);
  if (!q->comm.intercomm) {
    if (!agree_rule(comm, rule, nonblocking, &q->facts)) return Plan{};
    context->state = nonblocking ? find_comm_state(comm) : comm_state(comm);
    q->comm = comm_layout(context->state);
    if (context->state) q->model = &context->state->model;
  }
  q->eager_limit = eager_limit();
  return plan(config(), *q);
}

// plan(), with the communicator's part gathered if it asks.
Plan plan_on(MPI_Comm comm, int rule, CallQuery* q, CallContext* context) {
  comm_part_at_hand(comm, q, context);
  const Plan first = plan(config(), *q);
  return first.incomplete ? plan_with_comm_part(comm, rule, q, context) : first;
}

// The v exchanges are coded where any block is large enough: their facts
// are those of the smallest coded size, and rules select them by it.
CallFacts exchange_facts(MPI_Comm comm, size_t block_bytes, bool varied) {
  const size_t gated = varied ? std::max<size_t>(config().threshold_lossless, 1) : block_bytes;
  return call_facts(comm, gated, ElemKind::bytes, GateScope::transfer, Decider::all_ranks);
}

}  // namespace

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

Plan plan_collective(OpKind operation, MPI_Comm comm, int count, MPI_Datatype type, MPI_Op op,
                     CallForm form, CallContext* context) {
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
  // Checked before plan() reads them, which it does only for a call that
  // does not pass on its facts; a library that is not active asks nothing.
  q.args_ok = !q.facts.active || collective_args_ok(comm, count, type, op, reduction, &context->type);
  return plan_on(comm, rule, &q, context);
}

bool exchange_passes_on_facts(MPI_Comm comm, size_t block_bytes, bool varied) {
  return !verdict(config(), exchange_facts(comm, block_bytes, varied)).coded();
}

Plan plan_exchange_call(OpKind operation, MPI_Comm comm, size_t block_bytes, bool varied,
                        bool nonblocking, CallContext* context) {
  CallQuery q;
  q.op = operation;
  q.form = nonblocking ? CallForm::nonblocking : CallForm::blocking;
  q.facts = exchange_facts(comm, block_bytes, varied);
  const int rule = apply_lossy_rules(comm, op_name(operation), &q.facts);
  q.bytes = block_bytes;
  // Each transfer codes with its own kind's candidate of the arm
  // (Exchange): the arms are the bytes', the most lossless candidates; a
  // float transfer's sender may code lossy under the plan's bound.
  return plan_on(comm, rule, &q, context);
}

}  // namespace adacomp
