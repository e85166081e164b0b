#include "policy/gate.h"

#include "wire/frame.h"

namespace adacomp {

GateVerdict gate(const Config& c, Override ov, size_t bytes, ElemKind kind, GateScope scope) {
  GateVerdict v;
  if (ov == Override::raw || bytes == 0 || bytes > kMaxFramePayload) return v;
  if (scope == GateScope::transfer) {
    if (c.mode == Mode::raw || bytes < c.threshold_lossless) return v;
    v.tier.tier = Tier::lossless;
    v.adaptive = c.model && (ov == Override::none
                                 ? c.adaptive()
                                 : ov == Override::adaptive || ov == Override::adaptive_pipelined);
    return v;
  }
  const bool lossy_ok = c.lossy_enabled() && kind != ElemKind::bytes;
  const Tier compressed = lossy_ok ? Tier::lossy : Tier::lossless;
  switch (ov) {
    case Override::none:
      v.adaptive = c.model && c.adaptive();
      v.tier = choose_tier(c, c.mode, bytes, kind);
      break;
    case Override::adaptive:
      v.adaptive = c.model;
      v.tier = choose_tier(c, Mode::adaptive, bytes, kind);
      break;
    case Override::adaptive_pipelined:
      v.adaptive = c.model;
      v.tier = choose_tier(c, Mode::adaptive_pipelined, bytes, kind);
      break;
    case Override::lossless:
      v.tier = {Tier::lossless, false};
      break;
    case Override::lossy:
      v.tier = {compressed, false};
      break;
    case Override::pipelined:
      v.tier = {compressed, true};
      break;
    case Override::raw:
      break;
  }
  return v;
}

namespace {
CallVerdict passes(PassReason why) {
  CallVerdict v;
  v.counted = true;
  v.reason = why;
  return v;
}
}  // namespace

CallVerdict verdict(const Config& c, const CallFacts& f) {
  if (!f.active) return {};
  if (f.who == Decider::sender) {
    if (!f.coding_on) return passes(PassReason::switched_off);
    if (f.bytes < kMinCodedPayload) return passes(PassReason::below_threshold);
  }
  CallVerdict v;
  v.gate = gate(c, f.override, f.bytes, f.kind, f.scope);
  if (!v.coded())
    return passes(c.mode == Mode::raw || f.override == Override::raw ? PassReason::switched_off
                                                                    : PassReason::below_threshold);
  if (v.gate.adaptive && c.node_local_raw() && !f.job_spans_nodes) return {};
  return v;
}

}  // namespace adacomp
