// Lossless float codec built for speed: integer prediction on the bit
// patterns, zigzag, and per-block bit planes (simd.h), in the spirit of
// ndzip (integer Lorenzo prediction, bit transposition, zero-word
// elimination) and FastLanes (fixed-width blocks that vectorise).
//
// Each block of 32 values picks the first, second or third difference of
// the integer bit patterns (wrapping arithmetic), whichever needs fewer
// bits, and stores the zigzagged residuals as w bit planes, w the widest
// residual's width. Blocks are independent of any table, so encoder and
// decoder are a few vector instructions per value; fpc's context
// predictor still wins on ratio (docs/codecs.md), this one on speed.
//
// Payload (little-endian):
//   u8 format (1), varint value count n,
//   heads: n/32 bytes, (order - 1) * 65 + width, order 1..3, width 0..bits of T,
//   planes: 4 * width bytes per block,
//   tail: the last n%32 values verbatim.
// On incompressible data a block is 32 values plus one head byte: at most
// 0.4% more than the input, plus the header.
#include <algorithm>

#include "codec/bits.h"
#include "codec/codec.h"
#include "codec/simd.h"

namespace adacomp {
namespace {

using simd::kBlock;
constexpr uint8_t kFormat = 1;
constexpr unsigned kOrders = 3;

template <typename U, typename Isa>
ADACOMP_INLINE long encode_body(const U* in, size_t n, uint8_t* heads, uint8_t* out, uint8_t* end) {
  const size_t nblocks = n / kBlock;
  simd::Carry<U> c;
  alignas(32) U z[kOrders][kBlock];
  for (size_t b = 0; b < nblocks; ++b) {
    const U* x = in + b * kBlock;
    unsigned w[kOrders];
    Isa::template residuals<U, kOrders>(x, c, z, w);
    const unsigned order = simd::best_order<kOrders, false>(w);
    if (static_cast<size_t>(end - out) < 4 * w[order - 1]) return kCodecNoSpace;
    heads[b] = simd::head(order, w[order - 1]);
    Isa::template pack<U>(z[order - 1], w[order - 1], out);
    out += 4 * w[order - 1];
    c.after(x);
  }
  const size_t tail = (n - nblocks * kBlock) * sizeof(U);
  if (static_cast<size_t>(end - out) < tail) return kCodecNoSpace;
  if (tail) std::memcpy(out, in + nblocks * kBlock, tail);
  return static_cast<long>(out + tail - heads);  // caller adds its header
}

template <typename U, typename Isa>
ADACOMP_INLINE void decode_body(const uint8_t* heads, const uint8_t* in, size_t n, U* o) {
  const size_t nblocks = n / kBlock;
  simd::Carry<U> c;
  alignas(32) U z[kBlock];
  for (size_t b = 0; b < nblocks; ++b) {
    const unsigned w = simd::head_width(heads[b]);
    Isa::template unpack<U>(in, w, z);
    in += 4 * w;
    Isa::template integrate<U>(z, simd::head_order(heads[b]), c, o + b * kBlock);
  }
  if (n % kBlock) std::memcpy(o + nblocks * kBlock, in, (n % kBlock) * sizeof(U));
}

template <typename U>
long encode_portable(const U* in, size_t n, uint8_t* heads, uint8_t* out, uint8_t* end) {
  return encode_body<U, simd::Portable>(in, n, heads, out, end);
}
template <typename U>
void decode_portable(const uint8_t* heads, const uint8_t* in, size_t n, U* o) {
  decode_body<U, simd::Portable>(heads, in, n, o);
}
#if ADACOMP_HAVE_AVX2_PATH
template <typename U>
ADACOMP_AVX2_ENTRY long encode_avx2(const U* in, size_t n, uint8_t* heads, uint8_t* out,
                                    uint8_t* end) {
  return encode_body<U, simd::Avx2>(in, n, heads, out, end);
}
template <typename U>
ADACOMP_AVX2_ENTRY void decode_avx2(const uint8_t* heads, const uint8_t* in, size_t n, U* o) {
  decode_body<U, simd::Avx2>(heads, in, n, o);
}
#endif

template <typename T>
long encode_t(const EncodeParams&, const void* src, size_t src_bytes, void* dst, size_t cap) {
  using U = bits::uint_of<T>;
  if (src_bytes % sizeof(U)) return kCodecUnsupported;
  const size_t n = src_bytes / sizeof(U), nblocks = n / kBlock;
  auto* o = static_cast<uint8_t*>(dst);
  if (cap < 1 + bits::varint_size(n) + nblocks) return kCodecNoSpace;
  o[0] = kFormat;
  uint8_t* heads = bits::put_varint(o + 1, n);
  const U* in = static_cast<const U*>(src);
  long r;
#if ADACOMP_HAVE_AVX2_PATH
  if (simd::use_avx2())
    r = encode_avx2<U>(in, n, heads, heads + nblocks, o + cap);
  else
#endif
    r = encode_portable<U>(in, n, heads, heads + nblocks, o + cap);
  return r < 0 ? r : r + (heads - o);
}

template <typename T>
long decode_t(const void* src, size_t src_bytes, void* dst, size_t dst_bytes) {
  using U = bits::uint_of<T>;
  if (dst_bytes % sizeof(U)) return kCodecCorrupt;
  const size_t n = dst_bytes / sizeof(U), nblocks = n / kBlock;
  bits::Reader r(src, src_bytes);
  uint8_t format;
  uint64_t count;
  if (!r.get(&format) || format != kFormat || !r.get_varint(&count) || count != n)
    return kCodecCorrupt;
  // Every width and the exact payload length are checked before decoding.
  size_t planes = 0;
  const uint8_t* heads = simd::take_heads(r, nblocks, 8 * sizeof(U), kOrders, &planes);
  if (!heads || r.left() != planes + (n - nblocks * kBlock) * sizeof(U)) return kCodecCorrupt;
  U* o = static_cast<U*>(dst);
#if ADACOMP_HAVE_AVX2_PATH
  if (simd::use_avx2())
    decode_avx2<U>(heads, r.p, n, o);
  else
#endif
    decode_portable<U>(heads, r.p, n, o);
  return static_cast<long>(dst_bytes);
}

size_t bitplane_max(size_t n) { return 1 + bits::kMaxVarint + n / 4 / kBlock + n + 1; }

}  // namespace

ADACOMP_FLOAT_CODEC(kBitplaneCodec, CodecId::bitplane, "bitplane", false, bitplane_max);

}  // namespace adacomp
