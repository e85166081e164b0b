#include <cstring>

#include "codec/codec.h"

namespace adacomp {
namespace {

size_t stored_max(size_t n) { return n; }

long stored_encode(const EncodeParams&, const void* src, size_t n, void* dst, size_t cap) {
  if (n > cap) return kCodecNoSpace;
  if (n) std::memcpy(dst, src, n);
  return static_cast<long>(n);
}

long stored_decode(ElemKind, const void* src, size_t n, void* dst, size_t dst_bytes) {
  if (n != dst_bytes) return kCodecCorrupt;
  if (n) std::memcpy(dst, src, n);
  return static_cast<long>(n);
}

}  // namespace

extern const Codec kStoredCodec = {CodecId::stored, "stored",      false,        false,
                                   stored_max,      stored_encode, stored_decode};

}  // namespace adacomp
