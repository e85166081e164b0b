#include "policy/gate.h"

#include "wire/frame.h"

namespace adacomp {

GateVerdict gate(const Config& c, Override ov, size_t bytes, ElemKind kind, GateScope scope) {
  GateVerdict v;
  if (ov == Override::raw || bytes == 0 || bytes > kMaxFramePayload) return v;
  if (scope == GateScope::transfer) {
    if (c.mode == Mode::raw || bytes < c.threshold_lossless) return v;
    v.tier.tier = Tier::lossless;
    v.adaptive = transfer_adaptive(c, ov);
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

}  // namespace adacomp
