#include "policy/tier.h"

#include <cstring>

#include "wire/frame.h"

namespace adacomp {

TierChoice choose_tier(const Config& c, Mode mode, size_t bytes, ElemKind kind) {
  TierChoice t;
  if (mode == Mode::raw || bytes < c.threshold_lossless) return t;
  const bool lossy_ok = c.lossy_enabled() && kind != ElemKind::bytes;
  switch (mode) {
    case Mode::lossless:
      t.tier = Tier::lossless;
      break;
    case Mode::lossy:
      t.tier = lossy_ok ? Tier::lossy : Tier::lossless;
      break;
    case Mode::adaptive:
    case Mode::pipelined:
      t.tier = bytes >= c.threshold_lossy && lossy_ok ? Tier::lossy : Tier::lossless;
      t.pipelined = mode == Mode::pipelined && bytes >= c.threshold_pipeline;
      break;
    case Mode::raw:
      break;
  }
  return t;
}

bool parse_override(const char* name, Override* out) {
  static const std::pair<const char*, Override> names[] = {
      {"raw", Override::raw},           {"lossless", Override::lossless},
      {"lossy", Override::lossy},       {"pipelined", Override::pipelined},
      {"adaptive", Override::adaptive}, {"adaptive-pipelined", Override::adaptive_pipelined}};
  if (!name) {
    *out = Override::none;
    return true;
  }
  for (const auto& [n, o] : names)
    if (std::strcmp(name, n) == 0) {
      *out = o;
      return true;
    }
  return false;
}

size_t eager_chunk_bytes(size_t eager_limit) {
  // The MPI's own headers travel inside its eager limit (Open MPI ob1: a
  // match header of a few dozen bytes), and a chunk may hold one element
  // more than the even split (16 bytes at most).
  constexpr size_t kTransportHeader = 128, kOddElement = 16;
  const size_t slack = kFrameHeaderBytes + kTransportHeader + kOddElement;
  return eager_limit > 4096 + slack ? eager_limit - slack : 4096;
}

int pipeline_chunks(const Config& c, Tier tier, size_t bytes, size_t eager_limit) {
  const size_t eager =
      eager_chunk_bytes(eager_limit) * (tier == Tier::lossy ? kLossyChunkFactor : 1);
  const size_t chunk = c.pipeline_eager ? eager : c.pipeline_chunk_bytes;
  if (chunk == 0) return c.pipeline_chunks;
  size_t k = (bytes + chunk - 1) / chunk;
  return k < 1 ? 1 : (k > 1024 ? 1024 : static_cast<int>(k));
}

const Codec& codec_for(const Config& c, Tier tier, ElemKind kind) {
  const bool floating = kind != ElemKind::bytes;
  if (tier == Tier::lossy && floating) return *find_codec(c.lossy_codec);
  CodecId id = c.lossless_auto ? (floating ? CodecId::bitplane : CodecId::zstd) : c.lossless_codec;
  const Codec* codec = find_codec(id);
  // A float-only codec chosen by the user still cannot code integers.
  if (codec->float_only && !floating) codec = find_codec(CodecId::zstd);
  return *codec;
}

}  // namespace adacomp
