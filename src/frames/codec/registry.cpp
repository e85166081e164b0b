#include <atomic>
#include <cstring>

#include "codec/codec.h"
#include "codec/simd.h"

namespace adacomp {

// Each codec file defines one of these.
extern const Codec kStoredCodec;
extern const Codec kZstdCodec;
extern const Codec kLz4Codec;
extern const Codec kFpcCodec;
extern const Codec kBloscCodec;
extern const Codec kQuantCodec;
extern const Codec kZfpCodec;
extern const Codec kTruncateCodec;
extern const Codec kToF32Codec;
extern const Codec kBitplaneCodec;
extern const Codec kQuantFastCodec;
extern const Codec kQuantZstdCodec;

namespace {
const Codec* const kAllCodecs[] = {
    &kStoredCodec, &kZstdCodec,     &kLz4Codec,       &kFpcCodec,
    &kBloscCodec,  &kQuantCodec,    &kZfpCodec,       &kTruncateCodec,
    &kToF32Codec,  &kBitplaneCodec, &kQuantFastCodec, &kQuantZstdCodec,
};
std::atomic<bool> g_force_portable{false};
}  // namespace

const Codec* find_codec(CodecId id) {
  for (const Codec* c : kAllCodecs)
    if (c->id == id) return c;
  return nullptr;
}

const Codec* find_codec(std::string_view name) {
  for (const Codec* c : kAllCodecs)
    if (name == c->name) return c;
  return nullptr;
}

void codec_force_portable(bool on) { g_force_portable = on; }
bool codec_simd_active() { return simd::use_avx2(); }

namespace simd {
bool use_avx2() {
#if ADACOMP_HAVE_AVX2_PATH
  static const bool cpu = __builtin_cpu_supports("avx2");
  return cpu && !g_force_portable.load(std::memory_order_relaxed);
#else
  return false;
#endif
}
}  // namespace simd

const char* codec_status_string(long status) {
  switch (status) {
    case kCodecNoSpace:
      return "codec status -1: output does not fit";
    case kCodecCorrupt:
      return "codec status -2: header or coded data malformed";
    case kCodecUnsupported:
      return "codec status -3: codec or parameter unsupported";
    case kCodecInternal:
      return "codec status -4: codec internal error";
    default:
      return status >= 0 ? "ok" : "unknown codec status";
  }
}

}  // namespace adacomp
