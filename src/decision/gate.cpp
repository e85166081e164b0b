#include "decision/gate.h"

#include "wire/frame.h"

namespace adacomp {

GateVerdict gate(const Config& c, const ErrorBound& bound, Override ov, size_t bytes,
                 ElemKind kind, GateScope scope) {
  GateVerdict v;
  if (ov == Override::raw || bytes == 0 || bytes > kMaxFramePayload) return v;
  const bool lossy_ok = bound.enabled() && kind != ElemKind::bytes;
  if (scope == GateScope::transfer) {
    if (c.mode == Mode::raw || bytes < c.threshold_lossless) return v;
    // From the size a transfer codes at: each is coded by its sender alone,
    // with no agreement to pay for as a lossy reduction's (T2).
    const bool lossy = lossy_ok && bound.scoped && c.mode != Mode::lossless;
    v.tier.tier = lossy ? Tier::lossy : Tier::lossless;
    v.adaptive = transfer_adaptive(c, ov);
    return v;
  }
  const Tier compressed = lossy_ok ? Tier::lossy : Tier::lossless;
  switch (ov) {
    case Override::none:
      v.adaptive = c.model && c.adaptive();
      v.tier = choose_tier(c, bound, c.mode, bytes, kind);
      break;
    case Override::adaptive:
      v.adaptive = c.model;
      v.tier = choose_tier(c, bound, Mode::adaptive, bytes, kind);
      break;
    case Override::adaptive_pipelined:
      v.adaptive = c.model;
      v.tier = choose_tier(c, bound, Mode::adaptive_pipelined, bytes, kind);
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

}  // namespace adacomp
