// The decision (decision/plan.h): each step a function, in the order a call
// meets them, each returning the pass it finds or leaving the plan to the
// next.
#include "decision/plan.h"

#include <algorithm>
#include <climits>

namespace adacomp {
namespace {

Plan passes(PassReason why) {
  Plan p;
  p.counted = true;
  p.reason = why;
  return p;
}
Plan passes_uncounted() { return Plan{}; }

// Bytes that move as one unit and are cut into the pipeline's chunks: a
// ring moves the P blocks of the vector, a tree the whole message, a
// Reduce's rail tree its rank's slice of it (coll/reduce_rails.cpp).
size_t moving_unit(const CallQuery& q, Layout layout) {
  if (ring_call(q.op)) return q.bytes / static_cast<size_t>(q.comm.size);
  if (q.op == OpKind::reduce && layout == Layout::rails)
    return q.bytes / static_cast<size_t>(q.comm.max_local);
  return q.bytes;
}

// Segments of a pipelined node-aware staged call, and a ring's (or a rail
// tree's) chunks per segment. Rails also gain balance from segments: local
// rank i codes slice i of every segment, pieces spread over the vector, so
// ranks on a smoothly varying field code alike-compressible data.
void cut_segments(const CallQuery& q, Plan* p) {
  if (p->layout == Layout::flat || !p->tier.pipelined || !staged_call(q.op)) return;
  const size_t node_share =
      p->layout == Layout::rails ? q.bytes / static_cast<size_t>(q.comm.node_size) : q.bytes;
  if (ring_call(q.op)) {
    // What this rank combines and codes: rails, its node's 1/L; a leader, all.
    p->segments = node_segments(node_share);
    p->chunks = (p->chunks + p->segments - 1) / p->segments;
  } else if (q.op == OpKind::bcast) {
    // A Bcast's node stage is one PMPI_Bcast per segment, counted in int.
    p->segments = q.bytes <= static_cast<size_t>(INT_MAX)
                      ? std::min(node_segments(q.bytes), p->chunks)
                      : 1;
  } else {  // Reduce: a rail tree per segment of a rank's slice, or the leaders' one tree
    p->segments = std::min(node_segments(node_share), p->chunks);
    if (p->layout == Layout::rails) p->chunks = (p->chunks + p->segments - 1) / p->segments;
  }
}

// A coded plan's start, from the query and its verdict.
Plan coded_start(const CallQuery& q, const CallVerdict& v) {
  Plan p;
  p.bytes = q.bytes;
  p.kind = q.facts.kind;
  p.tier = v.gate.tier;
  p.adaptive = v.gate.adaptive;
  p.bound = q.facts.bound;
  return p;
}

// The collectives' steps after the verdict: the form, the communicator's
// state, the layout, the model's arm, the codec and the cutting.
Plan plan_collective(const Config& c, const CallQuery& q, const CallVerdict& v) {
  const bool nonblocking = q.form != CallForm::blocking;
  // The adaptive policy's agreement is a blocking collective.
  if (v.gate.adaptive && nonblocking) return passes(PassReason::nonblocking_off);
  if (q.comm.intercomm) return passes_uncounted();
  // A nonblocking call cannot make the private communicator (a blocking
  // collective); every rank has made it, or not, alike.
  if (!q.comm.prepared) return nonblocking ? passes(PassReason::unprepared) : passes_uncounted();
  Plan p = coded_start(q, v);
  p.layout = layout_of(q.comm, c.hierarchy);
  const bool staged = staged_call(q.op);
  if (nonblocking && p.layout != Layout::flat && staged) {
    // Making the node groups is a blocking collective.
    if (!q.comm.node_groups) return passes(PassReason::unprepared);
    // A persistent call's node stages would start at MPI_Start, which ranks
    // may call in different orders (MPI 4.0 section 6.13).
    if (q.form == CallForm::persistent) return passes(PassReason::persistent_across_nodes);
  }
  const Tier tier = p.tier.tier;
  const ElemKind kind = q.facts.kind;
  Candidates codecs = candidates(c, tier, kind);
  if (p.adaptive) {
    // Inside one node only a calibration that found coding worthwhile lets
    // the model try; otherwise the call passes untimed.
    if (!q.comm.spans_nodes() && c.node_local_raw()) return passes_uncounted();
    p.model = q.model->slot(static_cast<int>(q.op), q.bytes);
    Candidates timed = q.padded_arms ? padded_candidates(c, p.bound, tier, kind) : codecs;
    // Where the tier may cut the call into chunks, whole and in chunks are
    // arms of their own (decision/tier.h Candidates).
    timed.pipelined_forms = codecs.pipelined_forms = p.tier.pipelined && staged;
    p.arm = q.model->at(p.model).next(timed);
    if (p.arm == 0) {
      Plan timed_pass = passes(PassReason::model_no_gain);
      timed_pass.model = p.model;  // plain MPI's arm is timed too
      return timed_pass;
    }
    p.tier.pipelined = timed.pipelined(p.arm);
  }
  p.codec = &codecs.arm(p.arm);
  if (p.tier.pipelined && staged)
    p.chunks = pipeline_chunks(c, tier, moving_unit(q, p.layout), q.eager_limit);
  cut_segments(q, &p);
  p.coded = true;
  return p;
}

// A point-to-point sender's steps after the verdict: the peer, then the
// estimate under the adaptive policy.
Plan plan_send(const Config& c, const CallQuery& q, const CallVerdict& v) {
  if (!q.peer_valid) return passes_uncounted();  // MPI reports the rank
  // Never coded to a peer on this node when the communicator spans nodes:
  // shared memory outruns every codec.
  if (q.comm.spans_nodes() && c.hierarchy != Hierarchy::flat && q.peer_same_node)
    return passes(PassReason::same_node);
  Plan p = coded_start(q, v);
  p.estimate_kind = estimate_kind(q.facts.kind, p.tier.tier);
  const Candidates codecs = candidates(c, p.tier.tier, q.facts.kind);
  if (p.adaptive) {
    p.arm = q.estimate->choose(p.estimate_kind, q.bytes, codecs.count, q.link);
    if (p.arm == 0) return passes(PassReason::model_no_gain);
  }
  p.codec = &codecs.arm(p.arm);
  p.coded = true;
  return p;
}

}  // namespace

namespace {

// passes_on_facts with the verdict it reached, for plan() to go on from.
bool passes_on_facts(const Config& c, const CallQuery& q, Plan* pass, CallVerdict* v_out) {
  if (!q.facts.active || (q.form != CallForm::blocking && !c.nonblocking)) {
    *pass = q.facts.active ? passes(PassReason::nonblocking_off) : passes_uncounted();
    pass->bytes = q.bytes;
    return true;
  }
  const CallVerdict v = verdict(c, q.facts);
  *v_out = v;
  *pass = Plan{};
  if (v.coded()) {
    pass->tier = v.gate.tier;
    pass->adaptive = v.gate.adaptive;
    return false;
  }
  pass->counted = v.counted;
  pass->reason = v.reason;
  pass->bytes = q.bytes;
  return true;
}

}  // namespace

bool passes_on_facts(const Config& c, const CallQuery& q, Plan* pass) {
  CallVerdict v;
  return passes_on_facts(c, q, pass, &v);
}

Plan plan(const Config& c, const CallQuery& q) {
  Plan pass;
  CallVerdict v;
  if (passes_on_facts(c, q, &pass, &v)) return pass;
  if (q.form == CallForm::blocking && pass.adaptive && q.model &&
      q.model->passes_settled(static_cast<int>(q.op), q.bytes)) {
    Plan settled = passes(PassReason::model_no_gain);  // untimed: no slot
    settled.bytes = q.bytes;
    return settled;
  }
  if (!q.args_ok) return passes_uncounted();
  if (!q.complete) {
    Plan rest;
    rest.incomplete = true;
    return rest;
  }
  Plan p = q.facts.who == Decider::sender ? plan_send(c, q, v) : plan_collective(c, q, v);
  p.bytes = q.bytes;
  return p;
}

Layout layout_of(const CommLayout& comm, Hierarchy h) {
  if (!comm.spans_nodes() || comm.max_local == 1 || h == Hierarchy::flat) return Layout::flat;
  if (comm.uniform && h != Hierarchy::leaders) return Layout::rails;
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

// How many: at most 4, which already hides three quarters of the shorter
// stages, and each rank's share of a segment at least 256 KiB, so that its
// node-stage and coding work outweighs a segment's fixed costs (a ring's
// 2(G-1) steps, two node collectives). Measured under SMPI, 8 MB, 25
// Gbit/s (docs/scale.md, "Segments"): 4 x 16 lossy, 4 segments of 128 KiB
// per rank took 1.8x the time of 2 of 256 KiB; 16 x 16, 2 segments of
// 256 KiB took 0.74x (lossless) and 0.75x (lossy) the time of one.
int node_segments(size_t share) {
  constexpr int kMaxSegments = 4;
  constexpr size_t kMinSegmentShare = 256 << 10;
  const size_t fit = share / kMinSegmentShare;
  return static_cast<int>(std::min<size_t>(fit < 1 ? 1 : fit, kMaxSegments));
}

int estimate_kind(ElemKind kind, Tier tier) {
  return static_cast<int>(kind) + (tier == Tier::lossy ? CodingEstimate::kLossyKinds : 0);
}

const char* pass_key(PassReason why) {
  static const char* const kKeys[kPassReasons] = {
      "below_threshold", "model_no_gain", "nonblocking_off", "unprepared",
      "persistent_across_nodes", "same_node", "switched_off"};
  return kKeys[static_cast<int>(why)];
}

const char* pass_words(PassReason why) {
  static const char* const kWords[kPassReasons] = {
      "below the thresholds",
      "the runtime model measured no gain",
      "a nonblocking collective not coded (ADACOMP_NONBLOCKING, or the adaptive policy)",
      "a nonblocking collective on a communicator not yet prepared by a blocking one",
      "a persistent reduction or Bcast across nodes (its node stages start at MPI_Start)",
      "point-to-point to a peer on the same node",
      "coding switched off (ADACOMP_MODE=raw, the override, MPI_Pcontrol(0))"};
  return kWords[static_cast<int>(why)];
}

}  // namespace adacomp
