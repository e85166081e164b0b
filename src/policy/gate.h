// The compress-or-not gate of every path, in one place and MPI-free. Its
// inputs (sizes, element kind, configuration, override) are known alike on
// every rank of a collective and at both ends of a transfer, so all of them
// reach the same verdict.
#pragma once

#include <cstddef>

#include "codec/codec.h"
#include "policy/config.h"
#include "policy/tier.h"

namespace adacomp {

// What the gate says of one message.
struct GateVerdict {
  TierChoice tier;        // Tier::raw: not coded, the call passes through
  bool adaptive = false;  // the runtime model chooses between raw and `tier`
};

// collective: the reductions and Bcast, in any tier; a tier forced with
// adacomp_override_tier() applies at every size (calibration and benchmarks
// use it). transfer: data movement and point-to-point, always lossless and
// coded only within the configured sizes; of the override, only raw and the
// adaptive modes apply.
enum class GateScope { collective, transfer };

// The verdict on a message of `bytes` whose elements are `kind`.
GateVerdict gate(const Config& c, Override ov, size_t bytes, ElemKind kind, GateScope scope);

}  // namespace adacomp
