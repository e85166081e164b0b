// Truncation schemes (CAM's DP-LossyN and DP-SP): lossy with a relative,
// not an absolute, error; see docs/codecs.md for the bounds.
//
// truncate: rounds away the N low mantissa bits (EncodeParams::
//   truncate_bits), to nearest. Payload: [u8 N][u8 inner codec][body].
//   With inner = stored the body is the remaining W-N high bits of each
//   value, bit-packed (so exactly N/W of the size is saved); otherwise it is
//   the inner codec's payload of the rounded values (low bits zero), which
//   a shuffling codec such as blosc turns into runs of zero bytes.
// to_f32: doubles sent as floats (round to nearest). Payload:
//   [u8 inner codec][body], body = raw floats (inner = stored) or the inner
//   codec's payload of them with kind f32. A message with a finite value
//   beyond the float range is refused (the frame then sends it stored)
//   rather than silently turned into Inf.
//
// The inner codec (EncodeParams::lossy_inner) must be lossless and not one
// of these two.
//
// Under an absolute bound (EncodeParams::abs_bound > 0, as when the user
// selects them as the lossy codec) both become error-bounded: truncate
// drops as many bits as the bound allows for the message's largest
// magnitude (truncate_bits is ignored), to_f32 applies only if every value
// fits. Either way the encoder checks every element's actual error and
// refuses the message (kCodecUnsupported: the frame sends it stored) when
// the bound cannot hold, or a NaN's payload would change (NaN and Inf
// pass bit-exactly under a bound). The payload is unchanged: decoders
// need no mode.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

#include "codec/bits.h"
#include "codec/codec.h"

namespace adacomp {
namespace {

// The inner codec: lossless, so never truncate or to_f32 themselves.
const Codec* inner_codec(CodecId id) {
  const Codec* c = find_codec(id);
  if (!c || c->lossy) return nullptr;
  return c;
}

// Largest body any allowed inner codec can produce for n bytes (bit-packed
// bodies are never larger than stored plus slack).
size_t inner_max(size_t n) {
  size_t m = n + 8;
  for (CodecId id : {CodecId::zstd, CodecId::lz4, CodecId::fpc, CodecId::blosc})
    m = std::max(m, find_codec(id)->max_encoded(n));
  return m;
}

template <typename U>
constexpr int kMantBits = sizeof(U) == 8 ? 52 : 23;
template <typename U>
constexpr U kExpMask = sizeof(U) == 8 ? U(0x7FF) << 52 : U(0xFF) << 23;

// Rounds the N low bits of a float bit pattern away (to nearest, ties up in
// magnitude). Finite values that would round up to Inf are truncated
// instead; NaN stays NaN (its lowest kept bit is set if the payload would
// vanish); Inf is exact.
template <typename U>
inline U round_bits(U u, int n) {
  const U low = (U(1) << n) - 1;
  const U mant = (U(1) << kMantBits<U>)-1;
  if ((u & kExpMask<U>) == kExpMask<U>) {  // Inf or NaN: no rounding
    U t = u & ~low;
    return (u & mant) && !(t & mant) ? t | (U(1) << n) : t;
  }
  U r = (u + (U(1) << (n - 1))) & ~low;
  return (r & kExpMask<U>) == kExpMask<U> ? u & ~low : r;
}

// Bit-packed body: the fields plus the bit stream's 8 bytes of slack.
size_t packed_bytes(size_t count, unsigned keep) { return (count * keep + 7) / 8 + 8; }

// Every finite value's rounding error within eb, NaN and Inf bit-exact.
template <typename U>
bool trunc_fits(const U* in, size_t count, int n, double eb) {
  using T = bits::float_of<U>;
  for (size_t i = 0; i < count; ++i) {
    const double x = bits::from_bits(in[i]);
    if (!std::isfinite(x)) {
      if (round_bits<U>(in[i], n) != in[i]) return false;  // a NaN payload in the low bits
      continue;
    }
    const double y = static_cast<T>(bits::from_bits(round_bits<U>(in[i], n)));
    if (!(std::fabs(y - x) <= eb)) return false;
  }
  return true;
}

// The most low bits that can be rounded away within eb: rounding at bit N
// of a value below 2^e errs by at most 2^(N-1) ulps of 2^(e-p), p the
// significand bits. 0 when not even one bit fits.
template <typename U>
int trunc_bits_for(const U* in, size_t count, double eb) {
  using T = bits::float_of<U>;
  constexpr int p = kMantBits<U> + 1;
  double big = 0;
  for (size_t i = 0; i < count; ++i) {
    const double a = std::fabs(static_cast<double>(bits::from_bits(in[i])));
    if (a <= std::numeric_limits<T>::max()) big = std::max(big, a);  // skips NaN and Inf
  }
  int e = std::numeric_limits<T>::min_exponent;  // subnormals share the smallest ulp
  if (big > 0) e = std::max(e, std::ilogb(big) + 1);
  const int n = std::ilogb(eb) + 1 + p - e;  // 2^ilogb(eb) <= eb
  for (int k = std::min(n, kMantBits<U> - 1); k >= 1; --k)
    if (trunc_fits(in, count, k, eb)) return k;
  return 0;
}

template <typename F>
long encode_t(const EncodeParams& p, const void* src, size_t src_bytes, void* dst, size_t cap) {
  using U = bits::uint_of<F>;
  const int n = p.abs_bound > 0
                    ? trunc_bits_for(static_cast<const U*>(src), src_bytes / sizeof(U), p.abs_bound)
                    : p.truncate_bits;
  const Codec* inner = inner_codec(p.lossy_inner);
  if (src_bytes % sizeof(U) || n < 1 || n >= kMantBits<U> || !inner) return kCodecUnsupported;
  size_t count = src_bytes / sizeof(U);
  if (cap < 2) return kCodecNoSpace;
  auto* o = static_cast<uint8_t*>(dst);
  o[0] = static_cast<uint8_t>(n);
  o[1] = static_cast<uint8_t>(inner->id);
  const U* in = static_cast<const U*>(src);
  if (inner->id == CodecId::stored) {
    // Bit-pack the W-N high bits of each value, in two fields when wider
    // than the bit writer takes at once.
    const unsigned keep = sizeof(U) * 8 - n, lo = keep > 32 ? 32 : keep;
    if (cap - 2 < packed_bytes(count, keep)) return kCodecNoSpace;
    bits::BitWriter bw(o + 2);
    for (size_t i = 0; i < count; ++i) {
      uint64_t v = round_bits<U>(in[i], n) >> n;
      bw.put(v & ((uint64_t(1) << lo) - 1), lo);
      bw.put(v >> lo, keep - lo);
    }
    uint8_t* e = bw.finish();
    std::memset(e, 0, 8);
    return static_cast<long>(e + 8 - o);
  }
  U* tmp = reinterpret_cast<U*>(bits::scratch(bits::kScratchC, src_bytes + 8));
  for (size_t i = 0; i < count; ++i) tmp[i] = round_bits<U>(in[i], n);
  long r = inner->encode(p, tmp, src_bytes, o + 2, cap - 2);
  return r < 0 ? r : r + 2;
}

template <typename F>
long decode_t(const void* src, size_t src_bytes, void* dst, size_t dst_bytes) {
  using U = bits::uint_of<F>;
  const ElemKind kind = sizeof(U) == 8 ? ElemKind::f64 : ElemKind::f32;
  if (dst_bytes % sizeof(U) || src_bytes < 2) return kCodecCorrupt;
  const auto* s = static_cast<const uint8_t*>(src);
  const int n = s[0];
  const Codec* inner = inner_codec(static_cast<CodecId>(s[1]));
  if (n < 1 || n >= kMantBits<U> || !inner) return kCodecCorrupt;
  size_t count = dst_bytes / sizeof(U);
  if (inner->id != CodecId::stored) {
    long r = inner->decode(kind, s + 2, src_bytes - 2, dst, dst_bytes);
    return r < 0 ? r : static_cast<long>(dst_bytes);
  }
  const unsigned keep = sizeof(U) * 8 - n, lo = keep > 32 ? 32 : keep;
  if (src_bytes - 2 != packed_bytes(count, keep)) return kCodecCorrupt;
  bits::BitReader br(s + 2);
  U* out = static_cast<U*>(dst);
  for (size_t i = 0; i < count; ++i) {
    uint64_t v = br.get(lo);
    v |= br.get(keep - lo) << lo;
    out[i] = static_cast<U>(v << n);
  }
  return static_cast<long>(dst_bytes);
}

size_t trunc_max(size_t n) { return 2 + inner_max(n); }

size_t f32_max(size_t n) { return 1 + inner_max(n / 2); }

long f32_encode(const EncodeParams& p, const void* src, size_t src_bytes, void* dst, size_t cap) {
  const Codec* inner = inner_codec(p.lossy_inner);
  if (p.kind != ElemKind::f64 || src_bytes % 8 || !inner) return kCodecUnsupported;
  size_t count = src_bytes / 8;
  if (cap < 1) return kCodecNoSpace;
  auto* o = static_cast<uint8_t*>(dst);
  o[0] = static_cast<uint8_t>(inner->id);
  bool stored = inner->id == CodecId::stored;
  if (stored && cap - 1 < 4 * count) return kCodecNoSpace;
  float* f =
      stored ? nullptr : reinterpret_cast<float*>(bits::scratch(bits::kScratchC, 4 * count + 4));
  const double* in = static_cast<const double*>(src);
  bool range_ok = true;
  for (size_t i = 0; i < count; ++i) {
    double x = in[i];
    // Out-of-range double -> float conversion is undefined; NaN and Inf
    // convert fine.
    bool fits = !(std::fabs(x) > FLT_MAX) || std::isinf(x);
    range_ok &= fits;
    float v = fits ? static_cast<float>(x) : 0.0f;
    if (stored)
      bits::store(o + 1 + 4 * i, v);
    else
      f[i] = v;
  }
  if (!range_ok) return kCodecUnsupported;
  if (p.abs_bound > 0)
    for (size_t i = 0; i < count; ++i) {
      const float v = stored ? bits::load<float>(o + 1 + 4 * i) : f[i];
      const double back = v;
      if (std::isfinite(in[i]) ? !(std::fabs(back - in[i]) <= p.abs_bound)
                               : bits::to_bits(back) != bits::to_bits(in[i]))
        return kCodecUnsupported;  // beyond the bound, or a NaN payload lost
    }
  if (stored) return static_cast<long>(1 + 4 * count);
  EncodeParams q = p;
  q.kind = ElemKind::f32;
  long r = inner->encode(q, f, 4 * count, o + 1, cap - 1);
  return r < 0 ? r : r + 1;
}

long f32_decode(ElemKind kind, const void* src, size_t src_bytes, void* dst, size_t dst_bytes) {
  if (kind != ElemKind::f64 || dst_bytes % 8 || src_bytes < 1) return kCodecCorrupt;
  const auto* s = static_cast<const uint8_t*>(src);
  const Codec* inner = inner_codec(static_cast<CodecId>(s[0]));
  if (!inner) return kCodecCorrupt;
  size_t count = dst_bytes / 8;
  auto* d = static_cast<uint8_t*>(dst);
  // The floats are decoded into the upper half of dst and widened front to
  // back in place: double i ends at byte 8i+8 <= 4n+4(i+1), so it never
  // overwrites a float not yet read.
  uint8_t* floats = d + 4 * count;
  long r = inner->decode(ElemKind::f32, s + 1, src_bytes - 1, floats, 4 * count);
  if (r < 0) return r;
  for (size_t i = 0; i < count; ++i)
    bits::store(d + 8 * i, static_cast<double>(bits::load<float>(floats + 4 * i)));
  return static_cast<long>(dst_bytes);
}

}  // namespace

ADACOMP_FLOAT_CODEC(kTruncateCodec, CodecId::truncate, "truncate", true, trunc_max);
extern const Codec kToF32Codec = {CodecId::to_f32, "to_f32",   true,      true,
                                  f32_max,         f32_encode, f32_decode};

}  // namespace adacomp
