// Error-bounded lossy codec: quantise, predict in the integer domain, code
// the residuals as bytes, and let zstd entropy-code them.
//
// Every value x is first quantised alone: q = round(x / (2 eb)), decoded as
// q * (2 eb). Prediction then works on the integers q (first or second
// order difference along the array), so it is exact: the decoder rebuilds
// the same q bit for bit and no error accumulates through the predictor.
// The encoder computes each reconstruction exactly as the decoder will and
// checks |dec - x| <= eb; a value that fails (rounding at a bin edge, NaN,
// Inf, magnitude beyond 2^52 bins) is an outlier and is stored verbatim.
//
// Payload (little-endian):
//   u8 version, u8 order (1 or 2), f64 eb,
//   u64 zstd bytes, u64 wide count, u64 outlier count,
//   zstd frame of n code bytes, wide residuals (i64), outliers (raw T).
// Code byte c < 254: residual zigzag(c); 254: next wide residual; 255: next
// outlier (its q repeats the previous q, its difference counts as 0).
#include <zstd.h>
#include <zstd_errors.h>

#include <cfloat>
#include <cmath>
#include <cstring>

#include "codec/bits.h"
#include "codec/codec.h"

namespace adacomp {
namespace {

constexpr uint8_t kVersion = 0;
constexpr size_t kHeader = 1 + 1 + 8 + 3 * 8;
constexpr uint8_t kWide = 254, kOutlier = 255;
constexpr int kZstdLevel = 1;  // the codes are small; higher levels gain little
// |x / step| below this keeps q exact in a double and residuals far from
// int64 overflow.
constexpr double kMaxBins = 4503599627370496.0;  // 2^52

inline uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t unzigzag(uint64_t u) {
  return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
}

// Reconstruction shared by encoder and decoder: it must be the same
// expression on both sides for the encoder's check to mean anything.
// Floats clamp to the finite range first: a double -> float conversion out
// of range is undefined in C++.
template <typename T>
inline T recon(int64_t q, double step) {
  double v = static_cast<double>(q) * step;
  if constexpr (sizeof(T) == 4) v = std::fmin(std::fmax(v, -FLT_MAX), FLT_MAX);
  return static_cast<T>(v);
}

template <typename T>
long encode_t(double eb, const void* src, size_t src_bytes, void* dst,
              size_t cap) {
  if (src_bytes % sizeof(T)) return kCodecUnsupported;
  if (!(eb > 0) || !std::isfinite(eb) || !std::isfinite(2 * eb))
    return kCodecUnsupported;
  size_t n = src_bytes / sizeof(T);
  const T* x = static_cast<const T*>(src);
  const double step = 2 * eb, inv = 1 / step;

  // Pass 1: quantise and verify every value; pick the predictor order by
  // the total magnitude of the residuals each would produce.
  auto* q = reinterpret_cast<int64_t*>(bits::scratch(bits::kScratchA, n * 8 + 8));
  auto* codes = bits::scratch(bits::kScratchB, n + 1);
  int64_t qp = 0, dp = 0;
  uint64_t sum1 = 0, sum2 = 0;
  for (size_t i = 0; i < n; ++i) {
    double y = static_cast<double>(x[i]) * inv;
    bool ok = std::fabs(y) < kMaxBins;  // false for NaN and Inf too
    int64_t qi = ok ? std::llrint(y) : 0;
    ok = ok && std::fabs(static_cast<double>(recon<T>(qi, step)) -
                         static_cast<double>(x[i])) <= eb;
    codes[i] = ok ? 0 : kOutlier;
    qi = ok ? qi : qp;  // outliers repeat the previous q
    int64_t d = qi - qp;
    q[i] = qi;
    sum1 += static_cast<uint64_t>(d < 0 ? -d : d);
    sum2 += static_cast<uint64_t>(d - dp < 0 ? dp - d : d - dp);
    qp = qi;
    dp = d;
  }
  const int order = sum2 < sum1 ? 2 : 1;

  // Pass 2: residual codes; large residuals and outliers go to side streams.
  bits::Writer w(dst, cap);
  size_t nwide = 0, nout = 0;
  for (size_t i = 0; i < n; ++i) nout += codes[i] == kOutlier;
  // Side streams live at the end of the payload, after the zstd frame whose
  // size is unknown yet; collect them in scratch first.
  auto* side = bits::scratch(bits::kScratchC, n * 8 + 8);
  uint8_t* wide = side;
  qp = 0;
  dp = 0;
  for (size_t i = 0; i < n; ++i) {
    if (codes[i] == kOutlier) {
      dp = 0;
      continue;
    }
    int64_t d = q[i] - qp;
    int64_t r = order == 2 ? d - dp : d;
    qp = q[i];
    dp = d;
    uint64_t z = zigzag(r);
    if (z < kWide) {
      codes[i] = static_cast<uint8_t>(z);
    } else {
      codes[i] = kWide;
      bits::store<int64_t>(wide + 8 * nwide++, r);
    }
  }

  uint8_t head[kHeader];
  if (!w.put(head, kHeader)) return kCodecNoSpace;
  size_t z = 0;
  if (n) {
    thread_local struct Holder {
      ZSTD_CCtx* ctx = ZSTD_createCCtx();
      ~Holder() { ZSTD_freeCCtx(ctx); }
    } h;
    z = ZSTD_compressCCtx(h.ctx, w.p, w.room(), codes, n, kZstdLevel);
    if (ZSTD_isError(z))
      return ZSTD_getErrorCode(z) == ZSTD_error_dstSize_tooSmall ? kCodecNoSpace
                                                                 : kCodecInternal;
    w.p += z;
  }
  if (!w.put(wide, 8 * nwide)) return kCodecNoSpace;
  if (nout) {
    if (w.room() < nout * sizeof(T)) return kCodecNoSpace;
    for (size_t i = 0; i < n; ++i)
      if (codes[i] == kOutlier) w.put(x[i]);
  }
  uint8_t* o = static_cast<uint8_t*>(dst);
  o[0] = kVersion;
  o[1] = static_cast<uint8_t>(order);
  bits::store(o + 2, eb);
  bits::store<uint64_t>(o + 10, z);
  bits::store<uint64_t>(o + 18, nwide);
  bits::store<uint64_t>(o + 26, nout);
  return static_cast<long>(w.p - o);
}

template <typename T>
long decode_t(const void* src, size_t src_bytes, void* dst, size_t dst_bytes) {
  if (dst_bytes % sizeof(T)) return kCodecCorrupt;
  size_t n = dst_bytes / sizeof(T);
  bits::Reader r(src, src_bytes);
  uint8_t version, order;
  double eb;
  uint64_t z, nwide, nout;
  if (!r.get(&version) || !r.get(&order) || !r.get(&eb) || !r.get(&z) ||
      !r.get(&nwide) || !r.get(&nout))
    return kCodecCorrupt;
  if (version != kVersion || (order != 1 && order != 2) || !(eb > 0) ||
      !std::isfinite(2 * eb) || nwide > n || nout > n)
    return kCodecCorrupt;
  const uint8_t* zsrc = r.take(z);
  const uint8_t* wide = r.take(8 * nwide);
  const uint8_t* outl = r.take(sizeof(T) * nout);
  if (!zsrc || !wide || !outl || r.left() != 0) return kCodecCorrupt;
  if (n == 0) return z == 0 && nwide == 0 && nout == 0 ? 0 : kCodecCorrupt;

  uint8_t* codes = bits::scratch(bits::kScratchA, n);
  if (ZSTD_getFrameContentSize(zsrc, z) != n) return kCodecCorrupt;
  thread_local struct Holder {
    ZSTD_DCtx* ctx = ZSTD_createDCtx();
    ~Holder() { ZSTD_freeDCtx(ctx); }
  } h;
  size_t got = ZSTD_decompressDCtx(h.ctx, codes, n, zsrc, z);
  if (ZSTD_isError(got) || got != n) return kCodecCorrupt;

  T* out = static_cast<T*>(dst);
  const double step = 2 * eb;
  // Unsigned arithmetic: corrupt residuals may wrap, which is harmless
  // (garbage values) but must not be undefined behaviour.
  uint64_t qp = 0, dp = 0;
  size_t iw = 0, io = 0;
  for (size_t i = 0; i < n; ++i) {
    uint8_t c = codes[i];
    uint64_t res;
    if (c < kWide) {
      res = static_cast<uint64_t>(unzigzag(c));
    } else if (c == kWide) {
      if (iw == nwide) return kCodecCorrupt;
      res = bits::load<uint64_t>(wide + 8 * iw++);
    } else {
      if (io == nout) return kCodecCorrupt;
      out[i] = bits::load<T>(outl + sizeof(T) * io++);
      dp = 0;
      continue;
    }
    uint64_t d = order == 2 ? dp + res : res;
    qp += d;
    dp = d;
    out[i] = recon<T>(static_cast<int64_t>(qp), step);
  }
  if (iw != nwide || io != nout) return kCodecCorrupt;
  return static_cast<long>(dst_bytes);
}

size_t quant_max(size_t n) {
  // Worst case: every value a wide residual (8 bytes, twice a float), plus
  // the zstd frame of the codes.
  return kHeader + ZSTD_compressBound(n / 4) + 2 * n;
}

long quant_encode(const EncodeParams& p, const void* src, size_t n, void* dst,
                  size_t cap) {
  switch (p.kind) {
    case ElemKind::f64: return encode_t<double>(p.abs_bound, src, n, dst, cap);
    case ElemKind::f32: return encode_t<float>(p.abs_bound, src, n, dst, cap);
    default: return kCodecUnsupported;
  }
}

long quant_decode(ElemKind kind, const void* src, size_t n, void* dst,
                  size_t dst_bytes) {
  switch (kind) {
    case ElemKind::f64: return decode_t<double>(src, n, dst, dst_bytes);
    case ElemKind::f32: return decode_t<float>(src, n, dst, dst_bytes);
    default: return kCodecCorrupt;
  }
}

}  // namespace

extern const Codec kQuantCodec = {CodecId::quant, "quant", true, true,
                                  quant_max, quant_encode, quant_decode};

}  // namespace adacomp
