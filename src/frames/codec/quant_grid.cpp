// Shared-grid quantisation and the coded codes; see quant_grid.h.
#include "codec/quant_grid.h"

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>

#include "codec/bits.h"
#include "codec/qblock.h"
#include "codec/simd.h"
#include "codec/zstd_ctx.h"

namespace adacomp {
namespace qgrid {
namespace {

using simd::kBlock;
// zstd's fastest regular level: the payload is already small (bit planes),
// and the entropy form exists for links slow enough to pay for it.
constexpr int kZstdLevel = 1;
constexpr unsigned kOrders = 2;
// Exponents whose step and inverse are both normal doubles.
constexpr int kMinExp = -1022, kMaxExp = 1022;
constexpr double kCodeLimit = 2147483647.0;  // int32 max: |partial sums| stay below

template <typename T>
ADACOMP_INLINE void quantize_t(const T* x, size_t n, double inv, uint32_t* q) {
  // x * 2^-exp is exact; adding 1.5 * 2^52 rounds it to the nearest
  // integer (ties to even), whose two's complement low 32 bits are the code.
  for (size_t i = 0; i < n; ++i)
    q[i] = static_cast<uint32_t>(bits::to_bits(static_cast<double>(x[i]) * inv + qblock::kMagic));
}

template <typename T>
ADACOMP_INLINE void reconstruct_t(const uint32_t* q, size_t n, double step, T* out) {
  for (size_t i = 0; i < n; ++i)
    out[i] = static_cast<T>(static_cast<double>(static_cast<int32_t>(q[i])) * step);
}

// x - x is 0 exactly when x is finite; a value that is not finite leaves
// lo and hi alone. (The portable scan, and the AVX2 scan's tail.)
template <typename T>
ADACOMP_INLINE bool finite_range_t(const T* x, size_t n, T* lo, T* hi) {
  T mn = std::numeric_limits<T>::max(), mx = std::numeric_limits<T>::lowest();
  int bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const bool fin = x[i] - x[i] == 0;
    bad |= !fin;
    const T v = fin ? x[i] : mn;
    const T w = fin ? x[i] : mx;
    mn = v < mn ? v : mn;
    mx = w > mx ? w : mx;
  }
  *lo = mn;
  *hi = mx;
  return bad;
}

// The whole-array passes in an AVX2 and a portable build of the same
// source: IEEE arithmetic without contraction (-ffp-contract=off) gives the
// same results either way.
template <typename T>
void quantize_portable(const T* x, size_t n, double inv, uint32_t* q) {
  quantize_t(x, n, inv, q);
}
template <typename T>
void reconstruct_portable(const uint32_t* q, size_t n, double step, T* out) {
  reconstruct_t(q, n, step, out);
}
template <typename T>
bool finite_range_portable(const T* x, size_t n, T* lo, T* hi) {
  return finite_range_t(x, n, lo, hi);
}
#if ADACOMP_HAVE_AVX2_PATH
template <typename T>
ADACOMP_AVX2_ENTRY void quantize_avx2(const T* x, size_t n, double inv, uint32_t* q) {
  quantize_t(x, n, inv, q);
}
template <typename T>
ADACOMP_AVX2_ENTRY void reconstruct_avx2(const uint32_t* q, size_t n, double step, T* out) {
  reconstruct_t(q, n, step, out);
}
// GCC does not vectorise the conditional min/max above (NaN and signed
// zeros stop it), so the AVX2 scan is written out: non-finite lanes are
// blended to the neutral value. Only the sign of a zero extreme can differ
// from the portable scan, and the grid depends only on |lo|, |hi| and hi-lo.
template <typename T>
struct Lanes;
template <>
struct Lanes<double> {
  using V = __m256d;
  static constexpr size_t kWidth = 4;
  ADACOMP_AVX2 static V load(const double* p) { return _mm256_loadu_pd(p); }
  ADACOMP_AVX2 static V splat(double v) { return _mm256_set1_pd(v); }
  ADACOMP_AVX2 static V finite(V x) {
    return _mm256_cmp_pd(_mm256_sub_pd(x, x), _mm256_setzero_pd(), _CMP_EQ_OQ);
  }
  ADACOMP_AVX2 static V blend(V no, V yes, V mask) { return _mm256_blendv_pd(no, yes, mask); }
  ADACOMP_AVX2 static V min(V a, V b) { return _mm256_min_pd(a, b); }
  ADACOMP_AVX2 static V max(V a, V b) { return _mm256_max_pd(a, b); }
  ADACOMP_AVX2 static V both(V a, V b) { return _mm256_and_pd(a, b); }
  ADACOMP_AVX2 static bool all(V mask) { return _mm256_movemask_pd(mask) == 0xF; }
  ADACOMP_AVX2 static void store(double* p, V v) { _mm256_storeu_pd(p, v); }
};
template <>
struct Lanes<float> {
  using V = __m256;
  static constexpr size_t kWidth = 8;
  ADACOMP_AVX2 static V load(const float* p) { return _mm256_loadu_ps(p); }
  ADACOMP_AVX2 static V splat(float v) { return _mm256_set1_ps(v); }
  ADACOMP_AVX2 static V finite(V x) {
    return _mm256_cmp_ps(_mm256_sub_ps(x, x), _mm256_setzero_ps(), _CMP_EQ_OQ);
  }
  ADACOMP_AVX2 static V blend(V no, V yes, V mask) { return _mm256_blendv_ps(no, yes, mask); }
  ADACOMP_AVX2 static V min(V a, V b) { return _mm256_min_ps(a, b); }
  ADACOMP_AVX2 static V max(V a, V b) { return _mm256_max_ps(a, b); }
  ADACOMP_AVX2 static V both(V a, V b) { return _mm256_and_ps(a, b); }
  ADACOMP_AVX2 static bool all(V mask) { return _mm256_movemask_ps(mask) == 0xFF; }
  ADACOMP_AVX2 static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
};

template <typename T>
ADACOMP_AVX2_ENTRY bool finite_range_avx2(const T* x, size_t n, T* lo, T* hi) {
  using L = Lanes<T>;
  const typename L::V top = L::splat(std::numeric_limits<T>::max());
  const typename L::V bottom = L::splat(std::numeric_limits<T>::lowest());
  typename L::V mn = top, mx = bottom, finite = L::finite(top);
  size_t i = 0;
  for (; i + L::kWidth <= n; i += L::kWidth) {
    const typename L::V v = L::load(x + i), fin = L::finite(v);
    finite = L::both(finite, fin);
    mn = L::min(mn, L::blend(top, v, fin));
    mx = L::max(mx, L::blend(bottom, v, fin));
  }
  alignas(32) T lows[L::kWidth], highs[L::kWidth];
  L::store(lows, mn);
  L::store(highs, mx);
  T l, h;
  const bool bad = finite_range_t(x + i, n - i, &l, &h) || !L::all(finite);
  for (size_t k = 0; k < L::kWidth; ++k) {
    l = lows[k] < l ? lows[k] : l;
    h = highs[k] > h ? highs[k] : h;
  }
  *lo = l;
  *hi = h;
  return bad;
}
#define ADACOMP_QGRID_PASS(name, ...) \
  (simd::use_avx2() ? name##_avx2(__VA_ARGS__) : name##_portable(__VA_ARGS__))
#else
#define ADACOMP_QGRID_PASS(name, ...) name##_portable(__VA_ARGS__)
#endif

// Codes of block [i, i + len) padded to 32 with the last one (zero residuals).
ADACOMP_INLINE const uint32_t* padded(const uint32_t* q, size_t len, uint32_t* pad) {
  if (len == kBlock) return q;
  std::memcpy(pad, q, len * 4);
  for (size_t k = len; k < kBlock; ++k) pad[k] = q[len - 1];
  return pad;
}

template <typename Isa>
ADACOMP_INLINE uint8_t* encode_body(const uint32_t* q, size_t n, uint8_t* heads, uint8_t* out) {
  alignas(32) uint32_t pad[kBlock], z[kOrders][kBlock];
  simd::Carry<uint32_t> c;
  for (size_t i = 0, b = 0; i < n; i += kBlock, ++b) {
    const size_t len = n - i < kBlock ? n - i : kBlock;
    const uint32_t* v = padded(q + i, len, pad);
    unsigned w[kOrders];
    Isa::template residuals<uint32_t, kOrders>(v, c, z, w);
    const unsigned order = simd::best_order<kOrders, false>(w);
    heads[b] = simd::head(order, w[order - 1]);
    Isa::template pack<uint32_t>(z[order - 1], w[order - 1], out);
    out += 4 * w[order - 1];
    c.after(v);
  }
  return out;
}

// What a decoded block of codes becomes: added to the codes already there
// (the reduce-scatter), or the values they stand for (the allgather).
enum class Sink { add, values };

// Decodes the blocks into `out`: added to uint32_t codes (Sink::add) or
// T values on grid step `step` (Sink::values).
template <typename Isa, Sink kSink, typename T>
ADACOMP_INLINE void decode_body(const uint8_t* heads, const uint8_t* in, size_t n, double step,
                                void* out) {
  alignas(32) uint32_t z[kBlock], v[kBlock];
  simd::Carry<uint32_t> c;
  uint32_t* q = static_cast<uint32_t*>(out);
  for (size_t i = 0, b = 0; i < n; i += kBlock, ++b) {
    const size_t len = n - i < kBlock ? n - i : kBlock;
    const unsigned w = simd::head_width(heads[b]);
    Isa::template unpack<uint32_t>(in, w, z);
    in += 4 * w;
    Isa::template integrate<uint32_t>(z, simd::head_order(heads[b]), c, v);
    if constexpr (kSink == Sink::add) {
      for (size_t k = 0; k < len; ++k) q[i + k] += v[k];
    } else {
      reconstruct_t(v, len, step, static_cast<T*>(out) + i);
    }
  }
}

template <Sink kSink, typename T>
void decode_portable(const uint8_t* heads, const uint8_t* in, size_t n, double step, void* out) {
  decode_body<simd::Portable, kSink, T>(heads, in, n, step, out);
}
#if ADACOMP_HAVE_AVX2_PATH
ADACOMP_AVX2_ENTRY uint8_t* encode_avx2(const uint32_t* q, size_t n, uint8_t* heads, uint8_t* out) {
  return encode_body<simd::Avx2>(q, n, heads, out);
}
template <Sink kSink, typename T>
ADACOMP_AVX2_ENTRY void decode_avx2(const uint8_t* heads, const uint8_t* in, size_t n, double step,
                                    void* out) {
  decode_body<simd::Avx2, kSink, T>(heads, in, n, step, out);
}
#endif
uint8_t* encode_portable(const uint32_t* q, size_t n, uint8_t* heads, uint8_t* out) {
  return encode_body<simd::Portable>(q, n, heads, out);
}

// Validates all the coded codes, then decodes them into out (decode_body).
template <Sink kSink, typename T = uint32_t>
long decode_into(uint8_t form, const uint8_t* src, size_t bytes, int exp, void* out, size_t n) {
  const size_t nblocks = (n + kBlock - 1) / kBlock;
  bits::Reader r(src, bytes);
  if (form != kFormPlanes && form != kFormZstd) return kCodecCorrupt;
  if (form == kFormZstd) {
    // The heads and planes, bounded by their largest size for n codes.
    uint64_t plain_bytes;
    if (!r.get_varint(&plain_bytes) || plain_bytes > nblocks * (1 + 4 * kBlock))
      return kCodecCorrupt;
    const uint8_t* frame = r.take(r.left());
    if (ZSTD_getFrameContentSize(frame, r.p - frame) != plain_bytes) return kCodecCorrupt;
    uint8_t* plain = bits::scratch(bits::kScratchB, plain_bytes + 1);
    const size_t got = ZSTD_decompressDCtx(zstd_thread_dctx(), plain, plain_bytes, frame,
                                           static_cast<size_t>(r.p - frame));
    if (ZSTD_isError(got) || got != plain_bytes) return kCodecCorrupt;
    r = bits::Reader(plain, plain_bytes);
  }
  size_t planes = 0;
  const uint8_t* heads = simd::take_heads(r, nblocks, 32, kOrders, &planes);
  const uint8_t* in = heads ? r.take(planes) : nullptr;
  if (!in || r.left() != 0) return kCodecCorrupt;
  const double step = std::ldexp(1.0, exp);
#if ADACOMP_HAVE_AVX2_PATH
  if (simd::use_avx2())
    decode_avx2<kSink, T>(heads, in, n, step, out);
  else
#endif
    decode_portable<kSink, T>(heads, in, n, step, out);
  return kCodecOk;
}

}  // namespace

namespace {
// The rounding of a float result of magnitude up to `largest` (none for double).
double result_rounding(ElemKind kind, double largest) {
  return kind == ElemKind::f32 ? std::ldexp(largest, -24) + std::ldexp(1.0, -150) : 0;
}
}  // namespace

double grid_error(int exp, double max_abs, int inputs, ElemKind kind) {
  const double half_step = std::ldexp(1.0, exp - 1);
  return inputs * half_step + result_rounding(kind, inputs * (max_abs + half_step));
}

bool choose_grid(double bound, double max_abs, int inputs, ElemKind kind, int* exp) {
  if (kind != ElemKind::f32 && kind != ElemKind::f64) return false;
  if (!(bound > 0) || !std::isfinite(bound) || !(max_abs >= 0) || !std::isfinite(max_abs) ||
      inputs < 1)
    return false;
  const double p = inputs;
  // |result| <= P (max|x| + s/2) <= P (max|x| + bound): must stay finite in T.
  const double largest = p * (max_abs + bound);
  const double rounding = result_rounding(kind, largest);
  if (!(largest <= (kind == ElemKind::f32 ? FLT_MAX : DBL_MAX / 2))) return false;
  const double budget = bound - rounding;  // for the P quantisation errors
  if (!(budget > 0)) return false;
  const double target = 2 * budget / p;  // P s / 2 <= budget
  if (!(target > 0)) return false;
  const int e = std::ilogb(target);  // 2^e <= target
  if (e < kMinExp || e > kMaxExp) return false;
  // Every code |q| <= max|x| / s + 1/2, so partial sums of P codes stay
  // below P (max|x| / s + 1).
  if (!(p * (std::ldexp(max_abs, -e) + 1) < kCodeLimit)) return false;
  *exp = e;
  return true;
}

bool finite_range(ElemKind kind, const void* x, size_t n, double* lo, double* hi) {
  bool bad;
  if (kind == ElemKind::f32) {
    float l, h;
    bad = ADACOMP_QGRID_PASS(finite_range, static_cast<const float*>(x), n, &l, &h);
    *lo = l, *hi = h;
  } else {
    bad = ADACOMP_QGRID_PASS(finite_range, static_cast<const double*>(x), n, lo, hi);
  }
  return bad;
}

void quantize(ElemKind kind, const void* x, size_t n, int exp, uint32_t* q) {
  const double inv = std::ldexp(1.0, -exp);
  if (kind == ElemKind::f32)
    ADACOMP_QGRID_PASS(quantize, static_cast<const float*>(x), n, inv, q);
  else
    ADACOMP_QGRID_PASS(quantize, static_cast<const double*>(x), n, inv, q);
}

void reconstruct(ElemKind kind, const uint32_t* q, size_t n, int exp, void* out) {
  const double step = std::ldexp(1.0, exp);
  if (kind == ElemKind::f32)
    ADACOMP_QGRID_PASS(reconstruct, q, n, step, static_cast<float*>(out));
  else
    ADACOMP_QGRID_PASS(reconstruct, q, n, step, static_cast<double*>(out));
}

size_t max_codes_bytes(size_t n) { return (n + kBlock - 1) / kBlock * (1 + 4 * 32); }

size_t write_codes(const uint32_t* q, size_t n, bool entropy, uint8_t* dst, uint8_t* form) {
  const size_t nblocks = (n + kBlock - 1) / kBlock;
  uint8_t* const body = dst;
  *form = kFormPlanes;
  // The entropy form codes the planes aside first, then zstd's frame
  // replaces them only where it is smaller.
  uint8_t* heads = entropy ? bits::scratch(bits::kScratchA, nblocks * (1 + 4 * kBlock) + 1) : body;
  uint8_t* end;
#if ADACOMP_HAVE_AVX2_PATH
  if (simd::use_avx2())
    end = encode_avx2(q, n, heads, heads + nblocks);
  else
#endif
    end = encode_portable(q, n, heads, heads + nblocks);
  if (!entropy) return static_cast<size_t>(end - body);
  const size_t plain_bytes = static_cast<size_t>(end - heads);
  // Form 2 must fit where form 1's body would go (max_codes_bytes).
  const size_t size_bytes = bits::varint_size(plain_bytes);
  if (plain_bytes > size_bytes) {
    uint8_t* frame = body + size_bytes;
    const size_t z = ZSTD_compressCCtx(zstd_thread_cctx(), frame, plain_bytes - size_bytes, heads,
                                       plain_bytes, kZstdLevel);
    if (!ZSTD_isError(z)) {
      bits::put_varint(body, plain_bytes);
      *form = kFormZstd;
      return static_cast<size_t>(frame + z - body);
    }
  }
  std::memcpy(body, heads, plain_bytes);
  return plain_bytes;
}

long codes_to_values(uint8_t form, const uint8_t* src, size_t bytes, int exp, ElemKind kind,
                     void* out, size_t n) {
  return kind == ElemKind::f32 ? decode_into<Sink::values, float>(form, src, bytes, exp, out, n)
                               : decode_into<Sink::values, double>(form, src, bytes, exp, out, n);
}

long add_codes(uint8_t form, const uint8_t* src, size_t bytes, uint32_t* acc, size_t n) {
  return decode_into<Sink::add>(form, src, bytes, 0, acc, n);
}

}  // namespace qgrid
}  // namespace adacomp
