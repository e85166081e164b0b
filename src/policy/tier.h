// Which path a call takes. Decided only from values that are identical on
// every rank of the communicator (sizes, datatype, op, configuration), never
// from the data, so all ranks always take the same collective path.
#pragma once

#include <cstddef>

#include "codec/codec.h"
#include "policy/config.h"

namespace adacomp {

enum class Tier { raw, lossless };

inline Tier choose_tier(const Config& c, size_t message_bytes) {
  if (c.mode == Mode::raw || message_bytes < c.threshold_lossless) return Tier::raw;
  return Tier::lossless;
}

// The codec used for lossless frames of this element kind.
const Codec& lossless_codec_for(const Config& c, ElemKind kind);

}  // namespace adacomp
