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

Layout layout_of(const CommState& s, Hierarchy h) {
  if (!s.spans_nodes() || s.loc.max_local == 1 || h == Hierarchy::flat) return Layout::flat;
  if (s.loc.uniform && h != Hierarchy::leaders) return Layout::rails;
  return Layout::leaders;
}

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::flat:
      return "flat";
    case Layout::rails:
      return "rails";
    case Layout::leaders:
      return "leaders";
  }
  return "?";
}

bool ring_call(OpKind operation) {
  return operation == OpKind::allreduce || operation == OpKind::reduce_scatter ||
         operation == OpKind::reduce_scatter_block;
}

// The reductions and Bcast, whose algorithms chunk and have node stages;
// the others are exchanges (coll/exchange.h).
bool staged_call(OpKind operation) {
  return ring_call(operation) || operation == OpKind::reduce || operation == OpKind::bcast;
}

// Bytes that move as one unit and are cut into the pipeline's chunks: a
// ring moves the P blocks of the vector, a tree the whole message, a
// Reduce's rail tree its rank's slice of it (coll/reduce_rails.cpp).
size_t moving_unit(OpKind operation, const Plan& plan) {
  if (ring_call(operation)) return plan.bytes / plan.state->coll.size;
  if (operation == OpKind::reduce && plan.layout == Layout::rails)
    return plan.bytes / plan.state->loc.max_local;
  return plan.bytes;
}

// Which candidate codecs a call's model arms stand for.
enum class Arms {
  own,     // the call's: every rank passes the same element kind
  padded,  // padded_candidates: the ranks' datatypes may differ (Bcast: only
           // the sender's decides its codec)
};

// The policy's verdict once the tier is known: state, layout, model slot,
// codec. `nonblocking`: see plan_call.
bool decide(OpKind operation, MPI_Comm comm, bool adaptive, bool nonblocking, Arms arms,
            Plan* plan) {
  const Config& cfg = config();
  if (adaptive && nonblocking) {
    note_pass(PassReason::nonblocking_off);  // compressed in the forced modes only
    return false;
  }
  // A nonblocking call cannot make the private communicator (comm_state) and
  // passes through where there is none; every rank's state has one or none
  // alike, as every rank made it in the same collective.
  plan->state = nonblocking ? find_comm_state(comm) : comm_state(comm);
  if (!plan->state || plan->state->coll.comm == MPI_COMM_NULL) {
    if (nonblocking) note_pass(PassReason::unprepared);
    return false;
  }
  CommState& s = *plan->state;
  plan->layout = layout_of(s, cfg.hierarchy);
  // Making the node groups is a blocking collective: a nonblocking call
  // with node stages needs them made, which a blocking node-aware call on
  // this communicator did on every rank alike.
  if (nonblocking && plan->layout != Layout::flat && staged_call(operation) &&
      s.node.comm == MPI_COMM_NULL) {
    note_pass(PassReason::unprepared);
    return false;
  }
  const Tier tier = plan->tier.tier;
  const ElemKind kind = plan->type.kind;
  Candidates codecs = candidates(cfg, tier, kind);
  int arm = 1;
  if (adaptive) {
    // Inside one node only a calibration that found coding worthwhile
    // lets the model try; otherwise the call passes through untimed.
    if (!s.spans_nodes() && node_local_raw()) return false;
    plan->model = s.model.slot(static_cast<int>(operation), plan->bytes);
    Candidates timed = codecs;
    if (arms == Arms::padded) timed = padded_candidates(cfg, plan->bound, tier, kind);
    // Where the tier may cut the call into chunks, whole and in chunks are
    // arms of their own (decision/tier.h Candidates).
    timed.pipelined_forms = codecs.pipelined_forms = plan->tier.pipelined && staged_call(operation);
    arm = s.model.at(plan->model).next(timed);
    if (model_passes(arm)) return false;
    plan->tier.pipelined = timed.pipelined(arm);
  }
  plan->arm = arm;
  plan->codec = &codecs.arm(arm);
  plan->params.kind = plan->type.kind;
  plan->params.zstd_level = cfg.zstd_level;
  const size_t unit = moving_unit(operation, *plan);
  plan->chunks = plan->tier.pipelined && staged_call(operation)
                     ? pipeline_chunks(cfg, plan->tier.tier, unit, eager_limit())
                     : 1;
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
// every rank does), and the tier again under it. Whether the call is coded
// does not depend on the bound, so every rank gets here alike.
bool agree_rule(MPI_Comm comm, int rule, bool nonblocking, CallFacts* facts, CallVerdict* v) {
  if (!rules_need_agreement(comm)) return true;
  if (nonblocking) {
    facts->bound = comm_bound(comm);
  } else {
    const CommState* s = comm_state(comm);
    if (!s || s->coll.comm == MPI_COMM_NULL) return false;
    facts->bound = agreed_rule_bound(s->coll.comm, rule);
  }
  v->gate.tier = gate(config(), facts->bound, facts->override, facts->bytes, facts->kind,
                      facts->scope).tier;
  return true;
}

bool plan_common(OpKind operation, MPI_Comm comm, int count, MPI_Datatype type, MPI_Op op,
                 bool reduction, bool nonblocking, Plan* plan) {
  // The verdict first (runtime/call_facts.h): the common small message leaves
  // before any query but the size, and bad arguments go to PMPI, which
  // reports them.
  CallFacts facts = call_facts(comm, count, type, GateScope::collective, Decider::all_ranks);
  const int rule = apply_lossy_rules(comm, op_name(operation), &facts);
  CallVerdict v = verdict(config(), facts);
  note_verdict(v);
  if (!v.coded()) return false;
  if (v.gate.adaptive && !nonblocking && passes_settled(operation, comm, facts.bytes))
    return false;
  if (!collective_args_ok(comm, count, type, op, reduction, &plan->type)) return false;
  if (intercommunicator(comm)) return false;
  if (!agree_rule(comm, rule, nonblocking, &facts, &v)) return false;
  plan->bytes = facts.bytes;
  plan->tier = v.gate.tier;
  plan->bound = facts.bound;
  // (An Allreduce on quantisation codes has arms too: the codec picks the
  // form of its code payloads, ring_codes.h.)
  return decide(operation, comm, v.gate.adaptive, nonblocking,
                reduction ? Arms::own : Arms::padded, plan);
}

}  // namespace

// Rails also gain balance from segments: local rank i codes slice i of
// every segment, pieces spread over the vector, so ranks on a smoothly
// varying field code alike-compressible data.
// How many: at most 4, which already hides three quarters of the shorter
// stages, and each rank's share of a segment at least 256 KiB, so that its
// node-stage and coding work outweighs a segment's fixed costs (a ring's
// 2(G-1) steps, two node collectives). Measured under SMPI, 8 MB, 25
// Gbit/s (docs/scale.md, "Segments"): 4 x 16 lossy, 4 segments of 128 KiB
// per rank took 1.8x the time of 2 of 256 KiB; 16 x 16, 2 segments of
// 256 KiB took 0.74x (lossless) and 0.75x (lossy) the time of one.
constexpr int kMaxSegments = 4;
constexpr size_t kMinSegmentShare = 256 << 10;

int node_segments(size_t share) {
  const size_t fit = share / kMinSegmentShare;
  return static_cast<int>(std::min<size_t>(fit < 1 ? 1 : fit, kMaxSegments));
}

Plan segmented(Plan plan) {
  if (plan.layout == Layout::flat || !plan.tier.pipelined) return plan;
  // What this rank combines and codes: rails, its node's 1/L; a leader, all.
  const size_t share =
      plan.layout == Layout::rails ? plan.bytes / plan.state->node.size : plan.bytes;
  plan.segments = node_segments(share);
  plan.chunks = (plan.chunks + plan.segments - 1) / plan.segments;
  return plan;
}

bool plan_call(OpKind operation, MPI_Comm comm, int count, MPI_Datatype type, MPI_Op op,
               CallForm form, Plan* plan) {
  // Bcast alone moves data; the others reduce whatever `op` is (an
  // MPI_OP_NULL given to a reduction is the caller's error, MPI's to report).
  const bool reduction = operation != OpKind::bcast;
  if (form == CallForm::blocking) {
    settle_collectives(comm);
    return plan_common(operation, comm, count, type, op, reduction, false, plan);
  }
  if (!config().nonblocking) {
    note_pass(PassReason::nonblocking_off);
    return false;
  }
  if (!plan_common(operation, comm, count, type, op, reduction, true, plan)) return false;
  // Node stages start in ticket order, and a persistent call would take its
  // tickets at MPI_Start, which ranks may call in different orders (MPI 4.0
  // section 6.13): its node-local PMPI collectives would not match.
  return !(form == CallForm::persistent && plan->layout != Layout::flat &&
           staged_call(operation));
}

namespace {

// The v calls are coded where any block is large enough: their facts are
// those of the smallest coded size. Rules select an exchange by that size
// (and count its calls) only where `operation` is given: its gate.
CallFacts exchange_facts(MPI_Comm comm, size_t block_bytes, bool varied,
                         const OpKind* operation = nullptr, int* rule = nullptr) {
  const size_t gated = varied ? std::max<size_t>(config().threshold_lossless, 1) : block_bytes;
  CallFacts f = call_facts(comm, gated, ElemKind::bytes, GateScope::transfer, Decider::all_ranks);
  if (operation) *rule = apply_lossy_rules(comm, op_name(*operation), &f);
  return f;
}

}  // namespace

bool exchange_may_code(MPI_Comm comm, size_t block_bytes, bool varied) {
  return verdict(config(), exchange_facts(comm, block_bytes, varied)).coded();
}

bool plan_exchange(OpKind operation, MPI_Comm comm, size_t block_bytes, bool varied,
                   bool nonblocking, Plan* plan) {
  if (!nonblocking) settle_collectives(comm);
  int rule = -1;
  CallFacts facts = exchange_facts(comm, block_bytes, varied, &operation, &rule);
  CallVerdict v = verdict(config(), facts);
  note_verdict(v);
  if (!v.coded()) return false;
  if (v.gate.adaptive && !nonblocking && passes_settled(operation, comm, block_bytes)) return false;
  if (intercommunicator(comm)) return false;
  if (!agree_rule(comm, rule, nonblocking, &facts, &v)) return false;
  plan->bytes = block_bytes;
  plan->tier = v.gate.tier;
  plan->bound = facts.bound;  // a float transfer's sender may code lossy (Exchange)
  // Each transfer codes with its own kind's candidate of the arm
  // (Exchange): the arms are the bytes', the most lossless candidates.
  return decide(operation, comm, v.gate.adaptive, nonblocking, Arms::own, plan);
}

bool codes_transfer(size_t bytes) {
  return gate(config(), ErrorBound{}, tier_override(), bytes, ElemKind::bytes, GateScope::transfer).tier.tier !=
         Tier::raw;
}

bool codes_hop(const Plan& plan, int peer) {
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
               won ? layout_name(layout_of(*state, config().hierarchy)) : "pass-through");
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
