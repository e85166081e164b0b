#include "decision/tier.h"

#include <algorithm>
#include <cstring>
#include <initializer_list>

#include "wire/frame.h"

namespace adacomp {

TierChoice choose_tier(const Config& c, const ErrorBound& bound, Mode mode, size_t bytes,
                       ElemKind kind) {
  TierChoice t;
  if (mode == Mode::raw || bytes < c.threshold_lossless) return t;
  const bool lossy_ok = bound.enabled() && kind != ElemKind::bytes;
  switch (mode) {
    case Mode::lossless:
      t.tier = Tier::lossless;
      break;
    case Mode::lossy:
      t.tier = lossy_ok ? Tier::lossy : Tier::lossless;
      break;
    case Mode::adaptive:
    case Mode::adaptive_pipelined:
      t.tier = bytes >= c.threshold_lossy && lossy_ok ? Tier::lossy : Tier::lossless;
      t.pipelined = mode == Mode::adaptive_pipelined && bytes >= c.threshold_pipeline;
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

namespace {

// The candidates of the `auto` codec settings (docs/codecs.md, heat fields
// at 1e-4 of the range). Lossy floats: quant_zstd (35-55x, 2.5 GB/s
// compress, 4.3 GB/s decompress) and quant_fast (21x, 7 and 12 GB/s): the
// ratio wins on a slow link, the speed on a fast one. Not quant: the ratio
// of quant_fast at a third of its speed. Lossless floats: bitplane alone,
// faster than fpc and at or above its ratio on every data file. Bytes:
// zstd, and lz4 (about 16 GB/s) for links where zstd's speed is the
// bottleneck.
struct AutoRow {
  Tier tier;
  bool floating;
  Candidates codecs;
};

Candidates list(std::initializer_list<CodecId> ids) {
  Candidates c;
  for (CodecId id : ids) c.codec[c.count++] = find_codec(id);
  return c;
}

const Candidates& auto_candidates(Tier tier, bool floating) {
  static const AutoRow rows[] = {
      {Tier::lossy, true, list({CodecId::quant_zstd, CodecId::quant_fast})},
      {Tier::lossless, true, list({CodecId::bitplane})},
      {Tier::lossless, false, list({CodecId::zstd, CodecId::lz4})},
  };
  for (const AutoRow& r : rows)
    if (r.tier == tier && r.floating == floating) return r.codecs;
  return rows[2].codecs;  // not reached: asked only of the rows above
}

}  // namespace

Candidates candidates(const Config& c, Tier tier, ElemKind kind) {
  const bool floating = kind != ElemKind::bytes;
  if (tier == Tier::lossy && floating)
    return c.lossy_auto ? auto_candidates(Tier::lossy, true) : list({c.lossy_codec});
  if (c.lossless_auto) return auto_candidates(Tier::lossless, floating);
  // A float-only codec chosen by the user still cannot code integers.
  const bool usable = floating || !find_codec(c.lossless_codec)->float_only;
  return list({usable ? c.lossless_codec : CodecId::zstd});
}

Candidates padded_candidates(const Config& c, const ErrorBound& bound, Tier tier, ElemKind kind) {
  int most = 1;
  for (Tier t : {Tier::lossless, Tier::lossy}) {
    if (t == Tier::lossy && !bound.enabled()) continue;
    for (ElemKind k : {ElemKind::bytes, ElemKind::f64})
      most = std::max(most, candidates(c, t, k).count);
  }
  Candidates p = candidates(c, tier, kind);
  for (; p.count < most; ++p.count) p.codec[p.count] = p.codec[p.count - 1];
  return p;
}

const Codec& codec_for(const Config& c, Tier tier, ElemKind kind) {
  return candidates(c, tier, kind).arm(1);
}

}  // namespace adacomp
