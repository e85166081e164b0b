#include <lz4.h>

#include <climits>

#include "codec/codec.h"

namespace adacomp {
namespace {

// LZ4's block API takes int sizes.
constexpr size_t kLz4Max = LZ4_MAX_INPUT_SIZE;

size_t lz4_max(size_t n) {
  return n > kLz4Max ? n : static_cast<size_t>(LZ4_compressBound(static_cast<int>(n)));
}

long lz4_encode(const EncodeParams&, const void* src, size_t n, void* dst, size_t cap) {
  if (n == 0) return 0;
  if (n > kLz4Max) return kCodecUnsupported;
  int c = cap > INT_MAX ? INT_MAX : static_cast<int>(cap);
  int r = LZ4_compress_default(static_cast<const char*>(src), static_cast<char*>(dst),
                               static_cast<int>(n), c);
  return r > 0 ? r : kCodecNoSpace;
}

long lz4_decode(ElemKind, const void* src, size_t n, void* dst, size_t dst_bytes) {
  if (n > INT_MAX || dst_bytes > kLz4Max) return kCodecCorrupt;
  if (dst_bytes == 0) return n == 0 ? 0 : kCodecCorrupt;
  int r = LZ4_decompress_safe(static_cast<const char*>(src), static_cast<char*>(dst),
                              static_cast<int>(n), static_cast<int>(dst_bytes));
  return r == static_cast<int>(dst_bytes) ? r : kCodecCorrupt;
}

}  // namespace

extern const Codec kLz4Codec = {CodecId::lz4, "lz4", false, false, lz4_max, lz4_encode, lz4_decode};

}  // namespace adacomp
