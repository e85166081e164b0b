// The compress-or-not verdict of every path, in one place and MPI-free: one
// call's facts (CallFacts, gathered once per call by runtime/call_facts.h) in,
// the tier, whether the adaptive model decides, and why a call passes
// through out (verdict). Its inputs (sizes, element kind, configuration,
// override, the job's layout) are known alike on every rank of a collective
// and at both ends of a transfer, so all of them reach the same verdict.
#pragma once

#include <cstddef>

#include "codec/codec.h"
#include "decision/config.h"
#include "decision/lossy_scope.h"
#include "decision/tier.h"
#include "wire/marker.h"

namespace adacomp {

// What the gate says of one message.
struct GateVerdict {
  TierChoice tier;        // Tier::raw: not coded, the call passes through
  bool adaptive = false;  // the runtime model chooses between raw and `tier`
};

// collective: the reductions and Bcast, in any tier; a tier forced with
// adacomp_override_tier() applies at every size (calibration and benchmarks
// use it). transfer: data movement and point-to-point, lossless unless a
// scoped bound allows lossy, and coded only within the configured sizes; of
// the override, only raw and the adaptive modes apply.
enum class GateScope { collective, transfer };

// The tier of a message of `bytes` whose elements are `kind`, under `bound`
// (the job's default or the communicator's). A transfer is lossy only under
// a scoped bound (ErrorBound::scoped): a job-wide one keeps data movement
// and point-to-point lossless, as they were before scopes existed.
GateVerdict gate(const Config& c, const ErrorBound& bound, Override ov, size_t bytes,
                 ElemKind kind, GateScope scope);

// Whether the runtime model decides a coded transfer (gate's `adaptive`
// for GateScope::transfer): the adaptive policy, or an override to it.
inline bool transfer_adaptive(const Config& c, Override ov) {
  return c.model && (ov == Override::none
                         ? c.adaptive()
                         : ov == Override::adaptive || ov == Override::adaptive_pipelined);
}

// Who decides a call's path. all_ranks: a collective, every rank of which
// must take the same path, so only inputs identical on all of them count.
// sender: point-to-point, where the sender alone decides (the frame tells
// the receiver), so this rank's own state counts too (MPI_Pcontrol).
enum class Decider { all_ranks, sender };

// Point-to-point messages smaller than this are never coded: coding would
// not pay, and a coded message is always larger than its marker, so any
// receive that can take the message can take the marker.
constexpr size_t kMinCodedPayload = 1024;
static_assert(kMinCodedPayload > kMarkerBytes, "coded messages must exceed the marker");

// Everything the verdict on one call reads, gathered once per call
// (runtime/call_facts.h call_facts). Cheap to gather: no query but the size.
struct CallFacts {
  // The library runs, on a communicator, for a call with data: else the
  // call passes through uncounted (bad counts and types are MPI's to report).
  bool active = false;
  size_t bytes = 0;  // the message (a collective: a size every rank knows)
  ElemKind kind = ElemKind::bytes;
  GateScope scope = GateScope::collective;
  Decider who = Decider::all_ranks;
  Override override = Override::none;  // adacomp_override_tier()
  ErrorBound bound;                    // the communicator's (runtime/comm_hints.h)
  bool coding_on = true;               // MPI_Pcontrol: a sender's own state
  bool job_spans_nodes = false;        // the job's layout
};

// Why calls passed through uncoded: the report's verdict names the most
// frequent when nothing was coded (report/stats.h note_pass).
enum class PassReason : unsigned char {
  below_threshold,  // smaller than the tier thresholds
  model_no_gain,    // the runtime model chose the plain path
  nonblocking_off,  // a nonblocking collective not compressed (ADACOMP_NONBLOCKING)
  unprepared,       // a nonblocking collective on a communicator the library has
                    // not prepared: its private copy or node groups are made
                    // by a blocking collective (MPI_COMM_WORLD's at MPI_Init)
  persistent_across_nodes,  // a persistent reduction or Bcast with node stages
  same_node,        // point-to-point to a peer on this rank's node
  switched_off,     // ADACOMP_MODE=raw, the override, or MPI_Pcontrol(0)
  kCount
};
constexpr int kPassReasons = static_cast<int>(PassReason::kCount);

// 16 bytes: returned in registers.
struct CallVerdict {
  GateVerdict gate;      // Tier::raw: the call passes through
  bool counted = false;  // a pass the report counts, as `reason`
  PassReason reason = PassReason::below_threshold;
  bool coded() const { return gate.tier.tier != Tier::raw; }
  static CallVerdict passes(PassReason why) {
    CallVerdict v;
    v.counted = true;
    v.reason = why;
    return v;
  }
};

// The verdict on one call: inactive calls pass uncounted; a sender that
// switched coding off (MPI_Pcontrol(0)) or a message under
// kMinCodedPayload passes; then the gate, whose raw tier passes as
// switched off (raw mode or override) or below the thresholds; and under
// the adaptive policy a job inside one node passes everything uncounted
// (Config::node_local_raw), before any query of the call's arguments, and
// a sender's message under Config::threshold_p2p passes.
// Inline: every call passed through pays it (bench/passthrough.sh).
inline CallVerdict verdict(const Config& c, const CallFacts& f) {
  if (!f.active) return {};
  if (f.who == Decider::sender) {
    if (!f.coding_on) return CallVerdict::passes(PassReason::switched_off);
    if (f.bytes < kMinCodedPayload) return CallVerdict::passes(PassReason::below_threshold);
  }
  CallVerdict v;
  v.gate = gate(c, f.bound, f.override, f.bytes, f.kind, f.scope);
  if (!v.coded())
    return CallVerdict::passes(c.mode == Mode::raw || f.override == Override::raw
                                   ? PassReason::switched_off
                                   : PassReason::below_threshold);
  if (v.gate.adaptive && c.node_local_raw() && !f.job_spans_nodes) return {};
  if (f.who == Decider::sender && v.gate.adaptive && f.bytes < c.threshold_p2p)
    return CallVerdict::passes(PassReason::below_threshold);
  return v;
}

}  // namespace adacomp
