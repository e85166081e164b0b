// Error-bounded lossy codec for fast links: qblock.h's quantisation and
// per-block predictor, then fixed-length coding of each block's residuals
// as bit planes (simd.h). quant's format, made to vectorise: the same
// ratio class, several times the speed; quant_zstd trades speed for ratio.
//
// Payload (little-endian):
//   u8 version (1), f64 eb, varint value count n,
//   heads: ceil(n/32) bytes, (order - 1) * 65 + width, order 1..2, width 0..32,
//   planes: 4 * width bytes per block (the last block padded with zero
//           residuals),
//   varint outlier count, outliers (u64 index, raw T) in increasing order.
#include "codec/bits.h"
#include "codec/codec.h"
#include "codec/qblock.h"

namespace adacomp {
namespace {

using simd::kBlock;
constexpr uint8_t kVersion = 1;
constexpr size_t kHeader = 1 + 8;  // plus the varint count

template <typename T, typename Isa>
ADACOMP_INLINE uint8_t* encode_body(const T* x, size_t n, const qblock::Grid& g,
                                    qblock::EncState& s, uint8_t* heads, uint8_t* out,
                                    uint8_t* end) {
  alignas(32) uint32_t z[kBlock];
  for (size_t i = 0, b = 0; i < n; i += kBlock, ++b) {
    const size_t len = n - i < kBlock ? n - i : kBlock;
    const uint8_t head = qblock::block<T, Isa, false>(x + i, len, i, g, s, z);
    const unsigned w = simd::head_width(head);
    if (static_cast<size_t>(end - out) < 4 * w) return nullptr;
    heads[b] = head;
    Isa::template pack<uint32_t>(z, w, out);
    out += 4 * w;
  }
  return out;
}

template <typename T, typename Isa>
ADACOMP_INLINE void decode_body(const uint8_t* heads, const uint8_t* in, size_t n, double step,
                                T* out) {
  alignas(32) uint32_t z[kBlock];
  simd::Carry<uint32_t> c;
  for (size_t i = 0, b = 0; i < n; i += kBlock, ++b) {
    const unsigned w = simd::head_width(heads[b]);
    Isa::template unpack<uint32_t>(in, w, z);
    in += 4 * w;
    qblock::decode_block<T, Isa>(z, simd::head_order(heads[b]), step, c, out + i,
                                 n - i < kBlock ? n - i : kBlock);
  }
}

template <typename T>
uint8_t* encode_portable(const T* x, size_t n, const qblock::Grid& g, qblock::EncState& s,
                         uint8_t* heads, uint8_t* out, uint8_t* end) {
  return encode_body<T, simd::Portable>(x, n, g, s, heads, out, end);
}
template <typename T>
void decode_portable(const uint8_t* heads, const uint8_t* in, size_t n, double step, T* out) {
  decode_body<T, simd::Portable>(heads, in, n, step, out);
}
#if ADACOMP_HAVE_AVX2_PATH
template <typename T>
ADACOMP_AVX2_ENTRY uint8_t* encode_avx2(const T* x, size_t n, const qblock::Grid& g,
                                        qblock::EncState& s, uint8_t* heads, uint8_t* out,
                                        uint8_t* end) {
  return encode_body<T, simd::Avx2>(x, n, g, s, heads, out, end);
}
template <typename T>
ADACOMP_AVX2_ENTRY void decode_avx2(const uint8_t* heads, const uint8_t* in, size_t n, double step,
                                    T* out) {
  decode_body<T, simd::Avx2>(heads, in, n, step, out);
}
#endif

template <typename T>
long encode_t(const EncodeParams& params, const void* src, size_t src_bytes, void* dst,
              size_t cap) {
  const double eb = params.abs_bound;
  if (src_bytes % sizeof(T)) return kCodecUnsupported;
  if (!qblock::valid_bound(eb)) return kCodecUnsupported;
  const size_t n = src_bytes / sizeof(T), nblocks = (n + kBlock - 1) / kBlock;
  auto* o = static_cast<uint8_t*>(dst);
  if (cap < kHeader + bits::varint_size(n) + nblocks) return kCodecNoSpace;
  o[0] = kVersion;
  bits::store(o + 1, eb);
  uint8_t* heads = bits::put_varint(o + kHeader, n);
  const T* x = static_cast<const T*>(src);
  const qblock::Grid g(eb);
  qblock::EncState s;
  s.outliers = reinterpret_cast<uint64_t*>(bits::scratch(bits::kScratchA, 8 * n + 8));
  uint8_t* p;
#if ADACOMP_HAVE_AVX2_PATH
  if (simd::use_avx2())
    p = encode_avx2<T>(x, n, g, s, heads, heads + nblocks, o + cap);
  else
#endif
    p = encode_portable<T>(x, n, g, s, heads, heads + nblocks, o + cap);
  if (!p || static_cast<size_t>(o + cap - p) < qblock::outliers_bytes<T>(s.nout))
    return kCodecNoSpace;
  return static_cast<long>(qblock::put_outliers<T>(p, s, x) - o);
}

template <typename T>
long decode_t(const void* src, size_t src_bytes, void* dst, size_t dst_bytes) {
  bits::Reader r(src, src_bytes);
  size_t n;
  double eb;
  uint64_t count;
  if (!qblock::open_payload<T>(r, dst_bytes, kVersion, &n, &eb) || !r.get_varint(&count) ||
      count != n)
    return kCodecCorrupt;
  const size_t nblocks = (n + kBlock - 1) / kBlock;
  size_t planes = 0;
  const uint8_t* heads = simd::take_heads(r, nblocks, 32, qblock::kOrders, &planes);
  const uint8_t* in = heads ? r.take(planes) : nullptr;
  if (!in) return kCodecCorrupt;
  // The outlier list is read first so that nothing is written to dst from
  // a payload that turns out malformed further on.
  bits::Reader tail = r;
  T* out = static_cast<T*>(dst);
  {
    uint64_t nout;
    if (!tail.get_varint(&nout) || nout > n || tail.left() != nout * (8 + sizeof(T)))
      return kCodecCorrupt;
  }
#if ADACOMP_HAVE_AVX2_PATH
  if (simd::use_avx2())
    decode_avx2<T>(heads, in, n, 2 * eb, out);
  else
#endif
    decode_portable<T>(heads, in, n, 2 * eb, out);
  if (!qblock::apply_outliers<T>(r, out, n)) return kCodecCorrupt;
  return static_cast<long>(dst_bytes);
}

// Worst case: 32-bit residuals for every value, every value an outlier.
size_t quant_fast_max(size_t n) {
  return kHeader + 2 * bits::kMaxVarint + n / 4 / kBlock + 1 + n + 128 + 3 * n;
}

}  // namespace

ADACOMP_FLOAT_CODEC(kQuantFastCodec, CodecId::quant_fast, "quant_fast", true, quant_fast_max);

}  // namespace adacomp
