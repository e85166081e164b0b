#include <cstring>

#include "codec/codec.h"

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

namespace {
const Codec* const kAllCodecs[] = {
    &kStoredCodec,
    &kZstdCodec,
    &kLz4Codec,
    &kFpcCodec,
    &kBloscCodec,
    &kQuantCodec,
    &kZfpCodec,
    &kTruncateCodec,
    &kToF32Codec,
};
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

const char* codec_status_string(long status) {
  switch (status) {
    case kCodecNoSpace: return "output does not fit";
    case kCodecCorrupt: return "corrupt or truncated payload";
    case kCodecUnsupported: return "unsupported data kind or parameter";
    case kCodecInternal: return "codec library error";
    default: return status >= 0 ? "ok" : "unknown codec error";
  }
}

}  // namespace adacomp
