// Error-bounded lossy codec for high ratio: qblock.h's quantisation and
// per-block predictor (as quant_fast), then an entropy stage: each zigzag
// residual becomes a 4-bit code, two per byte (15 escapes: the excess goes
// to a byte stream, 255 there escaping once more to a u32), and the codes
// and escapes are compressed with zstd at EncodeParams::zstd_level but at
// least kMinLevel. The residuals of smooth fields are mostly 0-3: zstd's
// Huffman stage cannot code a byte in under one bit, but it codes a pair
// of residuals per byte, and its matches catch repeats; nibbles gave
// 5-17% more ratio than one byte per residual on the heat fields, and
// zstd has half the input. Level 3 gave 10% more than level 1 at the same
// speed (zstd sees a sixteenth of a double message). This is SZ's design
// (quantisation codes, Huffman, then zstd) with zstd doing both entropy
// stages.
//
// Where fixed-length packing would be smaller (rough data: wide residuals,
// many escapes), the payload is a quant_fast one instead, after a mode
// byte; with more than one escape in 8 values zstd is not even tried (it
// is slowest on such codes).
//
// Payload (little-endian):
//   u8 mode: 2 = a quant_fast payload follows; 1 = this codec's:
//   f64 eb, varint value count n, varint escape bytes e,
//   varint zstd frame bytes, zstd frame of:
//     order bits: ceil(ceil(n/32) / 8) bytes, bit b set = block b second order,
//     codes: ceil(n/2) bytes, value 2i in the low nibble of byte i,
//     escapes: e bytes, per code 15 in value order: v - 15 as one byte if
//              below 255, else 255 and v - 15 as u32,
//   varint outlier count, outliers (u64 index, raw T) in increasing order.
#include <zstd.h>

#include <algorithm>

#include "codec/bits.h"
#include "codec/codec.h"
#include "codec/qblock.h"
#include "codec/zstd_ctx.h"

namespace adacomp {

extern const Codec kQuantFastCodec;

namespace {

using simd::kBlock;
constexpr uint8_t kModeZstd = 1, kModeFast = 2;
constexpr int kMinLevel = 3;
constexpr uint32_t kNibbleEscape = 15, kByteEscape = 255;

// Quantises and writes the order bits, codes and escape bytes (laid out
// as the zstd frame's content); returns the number of escaped values and
// adds the escape bytes to esc_bytes and the fixed-length size to planes.
template <typename T, typename Isa>
ADACOMP_INLINE size_t codes_body(const T* x, size_t n, const qblock::Grid& g, qblock::EncState& s,
                                 uint8_t* order, uint8_t* codes, uint8_t* esc, size_t& esc_bytes,
                                 size_t& planes) {
  alignas(32) uint32_t z[kBlock];
  size_t nesc = 0;
  uint8_t* e = esc;
  for (size_t i = 0, b = 0; i < n; i += kBlock, ++b) {
    const size_t len = n - i < kBlock ? n - i : kBlock;
    const uint8_t head = qblock::block<T, Isa, true>(x + i, len, i, g, s, z);
    planes += 4 * simd::head_width(head);
    if (simd::head_order(head) == 2) order[b / 8] |= static_cast<uint8_t>(1u << (b % 8));
    // z is zero past len, so pairs may run over the end of the block.
    for (size_t k = 0; k < len; k += 2) {
      const uint32_t lo = z[k], hi = z[k + 1];
      codes[(i + k) / 2] = static_cast<uint8_t>((lo < kNibbleEscape ? lo : kNibbleEscape) |
                                                (hi < kNibbleEscape ? hi : kNibbleEscape) << 4);
      if ((lo | hi) >= kNibbleEscape)
        for (uint32_t v : {lo, hi}) {
          if (v < kNibbleEscape) continue;
          ++nesc;
          v -= kNibbleEscape;
          if (v < kByteEscape) {
            *e++ = static_cast<uint8_t>(v);
          } else {
            *e++ = kByteEscape;
            bits::store<uint32_t>(e, v);
            e += 4;
          }
        }
    }
  }
  esc_bytes = static_cast<size_t>(e - esc);
  return nesc;
}

template <typename T>
size_t codes_portable(const T* x, size_t n, const qblock::Grid& g, qblock::EncState& s,
                      uint8_t* order, uint8_t* codes, uint8_t* esc, size_t& esc_bytes,
                      size_t& planes) {
  return codes_body<T, simd::Portable>(x, n, g, s, order, codes, esc, esc_bytes, planes);
}
#if ADACOMP_HAVE_AVX2_PATH
template <typename T>
ADACOMP_AVX2_ENTRY size_t codes_avx2(const T* x, size_t n, const qblock::Grid& g,
                                     qblock::EncState& s, uint8_t* order, uint8_t* codes,
                                     uint8_t* esc, size_t& esc_bytes, size_t& planes) {
  return codes_body<T, simd::Avx2>(x, n, g, s, order, codes, esc, esc_bytes, planes);
}
#endif

size_t order_bytes(size_t n) { return ((n + kBlock - 1) / kBlock + 7) / 8; }

template <typename T>
long encode_t(const EncodeParams& p, const void* src, size_t src_bytes, void* dst, size_t cap) {
  if (src_bytes % sizeof(T) || !qblock::valid_bound(p.abs_bound)) return kCodecUnsupported;
  const size_t n = src_bytes / sizeof(T), nob = order_bytes(n);
  const T* x = static_cast<const T*>(src);
  const qblock::Grid g(p.abs_bound);
  qblock::EncState s;
  s.outliers = reinterpret_cast<uint64_t*>(bits::scratch(bits::kScratchA, 8 * n + 8));
  const size_t ncodes = (n + 1) / 2;
  // Escapes go straight after the codes: at most 5 bytes per value.
  uint8_t* plain = bits::scratch(bits::kScratchB, nob + ncodes + 5 * n + 8);
  std::memset(plain, 0, nob);
  size_t nesc, esc_bytes = 0, planes = 0;
#if ADACOMP_HAVE_AVX2_PATH
  if (simd::use_avx2())
    nesc = codes_avx2<T>(x, n, g, s, plain, plain + nob, plain + nob + ncodes, esc_bytes, planes);
  else
#endif
    nesc =
        codes_portable<T>(x, n, g, s, plain, plain + nob, plain + nob + ncodes, esc_bytes, planes);
  auto* o = static_cast<uint8_t*>(dst);
  auto fast = [&]() -> long {
    if (cap < 1) return kCodecNoSpace;
    o[0] = kModeFast;
    const long r = kQuantFastCodec.encode(p, src, src_bytes, o + 1, cap - 1);
    return r < 0 ? r : r + 1;
  };
  if (nesc > n / 8) return fast();
  const size_t plain_bytes = nob + ncodes + esc_bytes;

  const size_t head = 1 + 8 + bits::varint_size(n) + bits::varint_size(esc_bytes);
  const size_t zmax = ZSTD_compressBound(plain_bytes);
  if (cap < head + bits::varint_size(zmax)) return kCodecNoSpace;
  o[0] = kModeZstd;
  bits::store(o + 1, p.abs_bound);
  uint8_t* q = bits::put_varint(bits::put_varint(o + 9, n), esc_bytes);
  // The frame size varint goes before the frame: reserve its largest size
  // and move the frame down if the actual one is shorter.
  uint8_t* frame = q + bits::varint_size(zmax);
  size_t z = ZSTD_compressCCtx(zstd_thread_cctx(), frame, static_cast<size_t>(o + cap - frame),
                               plain, plain_bytes, std::max(p.zstd_level, kMinLevel));
  // Fixed-length planes (plus their head bytes) smaller: the quant_fast form.
  if (!ZSTD_isError(z) && z > planes + nob * 8) return fast();
  if (ZSTD_isError(z)) return kCodecNoSpace;
  uint8_t* fs = bits::put_varint(q, z);
  std::memmove(fs, frame, z);
  uint8_t* end = fs + z;
  if (static_cast<size_t>(o + cap - end) < qblock::outliers_bytes<T>(s.nout)) return kCodecNoSpace;
  return static_cast<long>(qblock::put_outliers<T>(end, s, x) - o);
}

template <typename T>
long decode_t(const void* src, size_t src_bytes, void* dst, size_t dst_bytes) {
  if (dst_bytes % sizeof(T)) return kCodecCorrupt;
  const size_t n = dst_bytes / sizeof(T), nob = order_bytes(n);
  bits::Reader r(src, src_bytes);
  uint8_t mode;
  if (!r.get(&mode)) return kCodecCorrupt;
  if (mode == kModeFast)
    return kQuantFastCodec.decode(sizeof(T) == 8 ? ElemKind::f64 : ElemKind::f32, r.p, r.left(),
                                  dst, dst_bytes);
  double eb;
  uint64_t count, esc_bytes, zbytes;
  if (mode != kModeZstd || !r.get(&eb) || !r.get_varint(&count) || !r.get_varint(&esc_bytes) ||
      !r.get_varint(&zbytes) || !qblock::valid_bound(eb) || count != n || esc_bytes > 5 * n)
    return kCodecCorrupt;
  const uint8_t* frame = r.take(zbytes);
  if (!frame) return kCodecCorrupt;
  const size_t ncodes = (n + 1) / 2, plain_bytes = nob + ncodes + esc_bytes;
  if (ZSTD_getFrameContentSize(frame, zbytes) != plain_bytes) return kCodecCorrupt;
  uint8_t* plain = bits::scratch(bits::kScratchB, plain_bytes + 1);
  size_t got = ZSTD_decompressDCtx(zstd_thread_dctx(), plain, plain_bytes, frame, zbytes);
  if (ZSTD_isError(got) || got != plain_bytes) return kCodecCorrupt;
  {
    bits::Reader t = r;
    uint64_t nout;
    if (!t.get_varint(&nout) || nout > n || t.left() != nout * (8 + sizeof(T)))
      return kCodecCorrupt;
  }
  const uint8_t* order = plain;
  const uint8_t* codes = plain + nob;
  bits::Reader esc(codes + ncodes, esc_bytes);
  T* out = static_cast<T*>(dst);
  const double step = 2 * eb;
  simd::Carry<uint32_t> c;
  alignas(32) uint32_t z[kBlock] = {};
  for (size_t i = 0, b = 0; i < n; i += kBlock, ++b) {
    const size_t len = n - i < kBlock ? n - i : kBlock;
    for (size_t k = 0; k < len; ++k) {
      uint32_t v = (codes[(i + k) / 2] >> (4 * ((i + k) & 1))) & 15;
      if (v == kNibbleEscape) {
        uint8_t e8;
        uint32_t e32 = 0;
        if (!esc.get(&e8) || (e8 == kByteEscape && !esc.get(&e32))) return kCodecCorrupt;
        v = e8 == kByteEscape ? e32 + kNibbleEscape : e8 + kNibbleEscape;
      }
      z[k] = v;
    }
    for (size_t k = len; k < kBlock; ++k) z[k] = 0;
    qblock::decode_block<T, simd::Portable>(z, 1 + ((order[b / 8] >> (b % 8)) & 1), step, c,
                                            out + i, len);
  }
  if (esc.left() || !qblock::apply_outliers<T>(r, out, n)) return kCodecCorrupt;
  return static_cast<long>(dst_bytes);
}

// Worst case: every value escaped and an outlier, zstd expanding slightly.
size_t quant_zstd_max(size_t n) {
  const size_t plain = n / 4 / kBlock / 8 + 1 + n / 8 + 1 + n / 4 * 5;
  return std::max(1 + 8 + 4 * bits::kMaxVarint + ZSTD_compressBound(plain) + 3 * n,
                  1 + kQuantFastCodec.max_encoded(n));
}

}  // namespace

ADACOMP_FLOAT_CODEC(kQuantZstdCodec, CodecId::quant_zstd, "quant_zstd", true, quant_zstd_max);

}  // namespace adacomp
