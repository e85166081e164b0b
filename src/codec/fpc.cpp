// FPC-style lossless float codec (Burtscher & Ratanaworabhan): each value is
// predicted by an FCM and a DFCM hash table, XORed with the closer
// prediction, and sent as a 4-bit code (1 selector bit, 3 bits of leading
// zero byte count) plus the nonzero low bytes of the residual.
//
// Payload:  [u8 variant = 0][u8 table bits][codes: ceil(n/2) bytes][residuals]
//
// The values are split into two contiguous halves ("lanes") with their own
// predictor tables, coded in lock step: code byte i holds lane 0's code for
// value i (low nibble) and lane 1's for value m+i (high nibble), and the
// residual bytes follow in that order. Two independent dependency chains
// let the decoder run both at once, which nearly doubles its speed; the
// ratio loss is negligible since a lane is still a contiguous run.
//
// Codes and residuals are separate streams so the decoder can validate the
// total residual length from the codes alone before trusting any of it, and
// then read residuals with fixed 8-byte loads (masked) instead of per-byte
// branches.
#include <algorithm>
#include <cstring>

#include "codec/bits.h"
#include "codec/codec.h"

namespace adacomp {
namespace {

constexpr uint8_t kVariantFpc = 0;
constexpr int kMinBits = 6, kMaxBits = 16;
constexpr size_t kHeader = 2;
constexpr size_t kBlock = 512;  // steps between output-space checks

// Per-width constants. Hash shifts follow FPC for doubles (FCM: top 16 bits
// of the value; DFCM: top 24 bits of the difference) and scale them down
// for floats.
struct F64 {
  using U = uint64_t;
  static constexpr int kFcmShl = 6, kFcmShr = 48, kDfcmShl = 2, kDfcmShr = 40;
  // 9 leading-zero-byte counts (0..8) in 3 bits: 4 is coded as 3, as in FPC
  // (it is the rarest on real data).
  static constexpr uint8_t kCodeOfLzb[9] = {0, 1, 2, 3, 3, 4, 5, 6, 7};
  static constexpr uint8_t kBytesOfCode[8] = {8, 7, 6, 5, 3, 2, 1, 0};
  static constexpr uint8_t kEmptyCode = 7;  // 0 residual bytes
};
struct F32 {
  using U = uint32_t;
  static constexpr int kFcmShl = 5, kFcmShr = 16, kDfcmShl = 2, kDfcmShr = 12;
  static constexpr uint8_t kCodeOfLzb[5] = {0, 1, 2, 3, 4};
  // Codes 5..7 are never produced; 0xFF marks them invalid.
  static constexpr uint8_t kBytesOfCode[8] = {4, 3, 2, 1, 0, 0xFF, 0xFF, 0xFF};
  static constexpr uint8_t kEmptyCode = 4;
};

inline unsigned lz_bytes(uint64_t x) {
  return (static_cast<unsigned>(__builtin_clzll(x | 1)) + (x == 0)) >> 3;
}
inline unsigned lz_bytes(uint32_t x) {
  return (static_cast<unsigned>(__builtin_clz(x | 1)) + (x == 0)) >> 3;
}

template <class T>
constexpr typename T::U byte_mask(unsigned nbytes) {
  using U = typename T::U;
  return nbytes >= sizeof(U) ? ~U(0) : (U(1) << (8 * nbytes)) - 1;
}

template <class T>
struct Lane {
  using U = typename T::U;
  U* fcm;
  U* dfcm;
  size_t fh = 0, dh = 0;
  U last = 0;
  size_t mask;

  // Both predictions for the next value.
  U pred_fcm() const { return fcm[fh]; }
  U pred_dfcm() const { return dfcm[dh] + last; }
  void update(U v) {
    fcm[fh] = v;
    fh = ((fh << T::kFcmShl) ^ static_cast<size_t>(v >> T::kFcmShr)) & mask;
    U d = v - last;
    dfcm[dh] = d;
    dh = ((dh << T::kDfcmShl) ^ static_cast<size_t>(d >> T::kDfcmShr)) & mask;
    last = v;
  }
  // Encodes v: writes sizeof(U) bytes at out, returns the 4-bit code.
  unsigned encode(U v, uint8_t*& out) {
    U x1 = v ^ pred_fcm(), x2 = v ^ pred_dfcm();
    update(v);
    unsigned sel = x2 < x1;
    U x = sel ? x2 : x1;
    unsigned code = T::kCodeOfLzb[lz_bytes(x)];
    bits::store<U>(out, x);
    out += T::kBytesOfCode[code];
    return (sel << 3) | code;
  }
  // Decodes one value from its code; reads sizeof(U) bytes at in.
  U decode(unsigned nib, const uint8_t*& in) {
    unsigned code = nib & 7;
    unsigned n = T::kBytesOfCode[code];
    U x = bits::load<U>(in) & byte_mask<T>(n);
    in += n;
    U v = x ^ ((nib & 8) ? pred_dfcm() : pred_fcm());
    update(v);
    return v;
  }
};

int max_bits_for(size_t lane_values) {
  // A table much larger than the lane only costs clearing time.
  int b = kMinBits;
  while (b < kMaxBits && (size_t(1) << b) < 2 * lane_values) ++b;
  return b;
}

// Sets up two lanes over one zeroed scratch allocation of 4 tables.
template <class T>
void init_lanes(Lane<T>* lanes, int bits) {
  using U = typename T::U;
  size_t entries = size_t(1) << bits;
  U* t = reinterpret_cast<U*>(bits::scratch(bits::kScratchA, 4 * entries * sizeof(U)));
  std::memset(t, 0, 4 * entries * sizeof(U));
  for (int l = 0; l < 2; ++l) {
    lanes[l] = Lane<T>();
    lanes[l].fcm = t + (2 * l) * entries;
    lanes[l].dfcm = t + (2 * l + 1) * entries;
    lanes[l].mask = entries - 1;
  }
}

template <class T>
long encode_t(const EncodeParams& p, const void* src, size_t src_bytes,
              void* dst, size_t cap) {
  using U = typename T::U;
  if (src_bytes % sizeof(U)) return kCodecUnsupported;
  size_t n = src_bytes / sizeof(U);
  size_t m = (n + 1) / 2;  // lane 0 length; lane 1 has n - m
  size_t pairs = n - m;    // steps with both lanes
  if (cap < kHeader + m) return kCodecNoSpace;
  int bits = std::min(std::clamp(p.fpc_table_bits, kMinBits, kMaxBits), max_bits_for(m));
  auto* o = static_cast<uint8_t*>(dst);
  o[0] = kVariantFpc;
  o[1] = static_cast<uint8_t>(bits);
  uint8_t* codes = o + kHeader;
  uint8_t* out = codes + m;
  uint8_t* end = o + cap;
  const U* in = static_cast<const U*>(src);
  Lane<T> lanes[2];
  init_lanes(lanes, bits);

  uint8_t tmp[2 * kBlock * sizeof(U)];
  for (size_t i = 0; i < m; i += kBlock) {
    size_t stop = std::min(i + kBlock, m);
    // Residual stores write a whole U; near the end of dst they go to tmp.
    bool direct = static_cast<size_t>(end - out) >= sizeof tmp;
    uint8_t* w = direct ? out : tmp;
    size_t j = i;
    for (; j < std::min(stop, pairs); ++j) {
      unsigned lo = lanes[0].encode(in[j], w);
      unsigned hi = lanes[1].encode(in[m + j], w);
      codes[j] = static_cast<uint8_t>(lo | (hi << 4));
    }
    if (j < stop)  // odd n: last step has lane 0 only
      codes[j] = static_cast<uint8_t>(lanes[0].encode(in[j], w) | (T::kEmptyCode << 4));
    if (direct) {
      out = w;
    } else {
      size_t len = static_cast<size_t>(w - tmp);
      if (len > static_cast<size_t>(end - out)) return kCodecNoSpace;
      std::memcpy(out, tmp, len);
      out += len;
    }
  }
  return static_cast<long>(out - o);
}

// Residual bytes announced by each code byte, or 0xFF if it holds an
// invalid code.
template <class T>
struct PairBytes {
  uint8_t v[256];
  constexpr PairBytes() : v() {
    for (int b = 0; b < 256; ++b) {
      unsigned lo = T::kBytesOfCode[b & 7], hi = T::kBytesOfCode[(b >> 4) & 7];
      v[b] = (lo == 0xFF || hi == 0xFF) ? 0xFF : static_cast<uint8_t>(lo + hi);
    }
  }
};

template <class T>
long decode_t(const void* src, size_t src_bytes, void* dst, size_t dst_bytes) {
  using U = typename T::U;
  static constexpr PairBytes<T> kPair;
  if (dst_bytes % sizeof(U)) return kCodecCorrupt;
  size_t n = dst_bytes / sizeof(U);
  size_t m = (n + 1) / 2, pairs = n - m;
  if (src_bytes < kHeader || (src_bytes - kHeader) < m) return kCodecCorrupt;
  const auto* s = static_cast<const uint8_t*>(src);
  int bits = s[1];
  if (s[0] != kVariantFpc || bits < kMinBits || bits > max_bits_for(m))
    return kCodecCorrupt;
  const uint8_t* codes = s + kHeader;
  const uint8_t* in = codes + m;
  const uint8_t* end = s + src_bytes;
  // Validate every code and the total residual length before decoding.
  if (m > pairs && (codes[m - 1] >> 4) != T::kEmptyCode) return kCodecCorrupt;
  size_t total = 0;
  unsigned bad = 0;
  for (size_t j = 0; j < m; ++j) {
    unsigned b = kPair.v[codes[j]];
    bad |= (b == 0xFF);
    total += b;
  }
  if (bad || total != static_cast<size_t>(end - in)) return kCodecCorrupt;

  U* o = static_cast<U*>(dst);
  Lane<T> lanes[2];
  init_lanes(lanes, bits);
  // Loads read a whole U; once fewer than a block's worth of bytes remain,
  // continue from a zero-padded copy. The lengths were validated above, so
  // decoding never reads past the copied bytes plus one U of padding.
  uint8_t tmp[2 * kBlock * sizeof(U) + sizeof(U)];
  bool in_tmp = false;
  for (size_t i = 0; i < m; i += kBlock) {
    size_t stop = std::min(i + kBlock, m);
    if (!in_tmp && static_cast<size_t>(end - in) < 2 * kBlock * sizeof(U)) {
      size_t rest = static_cast<size_t>(end - in);
      std::memcpy(tmp, in, rest);
      std::memset(tmp + rest, 0, sizeof tmp - rest);
      in = tmp;
      in_tmp = true;
    }
    size_t j = i;
    for (; j < std::min(stop, pairs); ++j) {
      unsigned c = codes[j];
      o[j] = lanes[0].decode(c & 15, in);
      o[m + j] = lanes[1].decode(c >> 4, in);
    }
    if (j < stop) o[j] = lanes[0].decode(codes[j] & 15, in);
  }
  return static_cast<long>(dst_bytes);
}

size_t fpc_max(size_t n) { return kHeader + n + (n / 4 + 1) / 2 + 1; }

long fpc_encode(const EncodeParams& p, const void* src, size_t n, void* dst,
                size_t cap) {
  switch (p.kind) {
    case ElemKind::f64: return encode_t<F64>(p, src, n, dst, cap);
    case ElemKind::f32: return encode_t<F32>(p, src, n, dst, cap);
    default: return kCodecUnsupported;
  }
}

long fpc_decode(ElemKind kind, const void* src, size_t n, void* dst,
                size_t dst_bytes) {
  switch (kind) {
    case ElemKind::f64: return decode_t<F64>(src, n, dst, dst_bytes);
    case ElemKind::f32: return decode_t<F32>(src, n, dst, dst_bytes);
    default: return kCodecCorrupt;
  }
}

}  // namespace

extern const Codec kFpcCodec = {CodecId::fpc, "fpc", false, true,
                                fpc_max, fpc_encode, fpc_decode};

}  // namespace adacomp
