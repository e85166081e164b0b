// Quantisation stage of the block quantisers (quant_fast, quant_zstd):
// 32 values at a time, portable and AVX2 with identical results. Internal.
//
// q = round(x / (2 eb)) to nearest-even, kept as a 32-bit integer
// (|x / 2eb| < 2^30); decoded as q * 2eb (for floats clamped to the float
// range, then rounded to float). The encoder computes that reconstruction
// exactly as the decoder will and checks |dec - x| <= eb; a value that
// fails (bin-edge rounding, out of range, NaN, Inf) is an outlier: its q
// repeats the previous one and the value travels verbatim. Prediction
// (simd.h residuals) then works on the integers, so it is exact.
//
// Rounding is done by adding 1.5 * 2^52 and taking the low 32 bits of the
// sum, the same IEEE operation in both paths (the x87-free SSE2/AVX2
// double add), so the paths cannot disagree.
#pragma once

#include <cfloat>
#include <cmath>
#include <type_traits>

#include "codec/simd.h"

namespace adacomp {
namespace qblock {

using simd::kBlock;
constexpr double kMaxBins = 1073741824.0;      // 2^30: q fits an int32 with room
constexpr double kMagic = 6755399441055744.0;  // 1.5 * 2^52
constexpr unsigned kOrders = 2;                // predictors: first and second difference

struct Grid {
  double eb, step, inv;
  explicit Grid(double bound) : eb(bound), step(2 * bound), inv(1 / (2 * bound)) {}
};

// A bound the codecs accept: positive, and 2eb finite.
inline bool valid_bound(double eb) { return eb > 0 && std::isfinite(2 * eb); }

// The opening the quantisers' decoders share (quant, quant_fast): dst holds
// a whole number of T (*n of them), and the payload starts with `version`
// and a valid bound (*eb).
template <typename T>
inline bool open_payload(bits::Reader& r, size_t dst_bytes, uint8_t version, size_t* n,
                         double* eb) {
  if (dst_bytes % sizeof(T)) return false;
  *n = dst_bytes / sizeof(T);
  uint8_t v;
  return r.get(&v) && v == version && r.get(eb) && valid_bound(*eb);
}

// Reconstruction shared by encoder and decoder (quant, quant_fast,
// quant_zstd): it must be the same expression on both sides for the
// encoder's check to mean anything. Floats clamp to the finite range first:
// an out-of-range double -> float conversion is undefined in C++.
template <typename T>
ADACOMP_INLINE T recon(int64_t q, double step) {
  double v = static_cast<double>(q) * step;
  if constexpr (sizeof(T) == 4) v = v < -FLT_MAX ? -FLT_MAX : v > FLT_MAX ? FLT_MAX : v;
  return static_cast<T>(v);
}

// Quantises x[0..32); returns the mask of values within the bound.
template <typename T>
ADACOMP_INLINE uint32_t quantize_portable(const T* x, const Grid& g, uint32_t* q) {
  uint32_t ok = 0;
  for (unsigned k = 0; k < kBlock; ++k) {
    const double xd = static_cast<double>(x[k]), y = xd * g.inv;
    const bool in = std::fabs(y) < kMaxBins;  // false for NaN and Inf
    const int32_t qk = static_cast<int32_t>(bits::to_bits((in ? y : 0.0) + kMagic));
    q[k] = static_cast<uint32_t>(qk);
    const double e = std::fabs(static_cast<double>(recon<T>(qk, g.step)) - xd);
    ok |= static_cast<uint32_t>(in && e <= g.eb) << k;
  }
  return ok;
}

#if ADACOMP_HAVE_AVX2_PATH
template <typename T>
ADACOMP_AVX2 inline uint32_t quantize_avx2(const T* x, const Grid& g, uint32_t* q) {
  const __m256d inv = _mm256_set1_pd(g.inv), step = _mm256_set1_pd(g.step);
  const __m256d eb = _mm256_set1_pd(g.eb), maxb = _mm256_set1_pd(kMaxBins);
  const __m256d magic = _mm256_set1_pd(kMagic), sign = _mm256_set1_pd(-0.0);
  const __m256i low32 = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  uint32_t ok = 0;
  __m128i qlo = _mm_setzero_si128();
  for (unsigned k = 0; k < kBlock; k += 4) {
    __m256d xd;
    if constexpr (sizeof(T) == 8)
      xd = _mm256_loadu_pd(reinterpret_cast<const double*>(x + k));
    else
      xd = _mm256_cvtps_pd(_mm_loadu_ps(reinterpret_cast<const float*>(x + k)));
    const __m256d y = _mm256_mul_pd(xd, inv);
    const __m256d in = _mm256_cmp_pd(_mm256_andnot_pd(sign, y), maxb, _CMP_LT_OQ);
    const __m256d t = _mm256_add_pd(_mm256_and_pd(y, in), magic);
    const __m128i qk =
        _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(_mm256_castpd_si256(t), low32));
    // Whole-register stores, so that the residual stage's loads forward.
    if (k & 4)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(q + k - 4), _mm256_set_m128i(qk, qlo));
    else
      qlo = qk;
    __m256d r = _mm256_mul_pd(_mm256_cvtepi32_pd(qk), step);
    if constexpr (sizeof(T) == 4)
      r = _mm256_cvtps_pd(_mm256_cvtpd_ps(
          _mm256_max_pd(_mm256_min_pd(r, _mm256_set1_pd(FLT_MAX)), _mm256_set1_pd(-FLT_MAX))));
    const __m256d e = _mm256_andnot_pd(sign, _mm256_sub_pd(r, xd));
    const __m256d good = _mm256_and_pd(in, _mm256_cmp_pd(e, eb, _CMP_LE_OQ));
    ok |= static_cast<uint32_t>(_mm256_movemask_pd(good)) << k;
  }
  return ok;
}
#endif

#if ADACOMP_HAVE_AVX2_PATH
// recon() of 32 codes.
template <typename T>
ADACOMP_AVX2 inline void recon_avx2(const uint32_t* q, double step, T* out) {
  const __m256d s = _mm256_set1_pd(step);
  for (unsigned k = 0; k < kBlock; k += 4) {
    __m256d v = _mm256_mul_pd(
        _mm256_cvtepi32_pd(_mm_load_si128(reinterpret_cast<const __m128i*>(q + k))), s);
    if constexpr (sizeof(T) == 8) {
      _mm256_storeu_pd(reinterpret_cast<double*>(out + k), v);
    } else {
      v = _mm256_max_pd(_mm256_min_pd(v, _mm256_set1_pd(FLT_MAX)), _mm256_set1_pd(-FLT_MAX));
      _mm_storeu_ps(reinterpret_cast<float*>(out + k), _mm256_cvtpd_ps(v));
    }
  }
}
#endif

// Encoder state carried from block to block.
struct EncState {
  simd::Carry<uint32_t> carry;  // of the q
  uint64_t* outliers;           // indices of values sent verbatim
  size_t nout = 0;
};

// Quantises the block at x (len <= 32 values, global index i0) and picks
// its predictor (order 1 or 2) by residual width: returns the head byte
// (simd::head) and leaves the chosen zigzag residuals in z (zero past
// len). On a tie, kTieHigh picks the second difference: better for an
// entropy coder (one predictor throughout a smooth region), while first
// differences decode faster. (Third differences, which bitplane uses,
// amplify the quantisation noise: wider residuals here.)
template <typename T, typename Isa, bool kTieHigh>
ADACOMP_INLINE uint8_t block(const T* x, size_t len, size_t i0, const Grid& g, EncState& s,
                             uint32_t* z) {
  alignas(32) T pad[kBlock];
  if (len < kBlock) {  // tail: quantise a padded copy
    std::memcpy(pad, x, len * sizeof(T));
    for (size_t k = len; k < kBlock; ++k) pad[k] = 0;
    x = pad;
  }
  alignas(32) uint32_t q[kBlock], zs[kOrders][kBlock];
  uint32_t ok;
#if ADACOMP_HAVE_AVX2_PATH
  if constexpr (std::is_same_v<Isa, simd::Avx2>)
    ok = quantize_avx2<T>(x, g, q);
  else
#endif
    ok = quantize_portable<T>(x, g, q);
  const uint32_t all = len < kBlock ? (uint32_t(1) << len) - 1 : ~uint32_t(0);
  if ((ok & all) != all) {
    uint32_t last = s.carry.x;
    for (size_t k = 0; k < len; ++k) {
      if (!((ok >> k) & 1)) q[k] = last, s.outliers[s.nout++] = i0 + k;
      last = q[k];
    }
  }
  for (size_t k = len; k < kBlock; ++k) q[k] = q[len - 1];
  unsigned w[kOrders];
  Isa::template residuals<uint32_t, kOrders>(q, s.carry, zs, w);
  if (len < kBlock)
    for (unsigned o = 0; o < kOrders; ++o) {
      uint32_t acc = 0;
      for (size_t k = 0; k < kBlock; ++k) acc |= zs[o][k] = k < len ? zs[o][k] : 0;
      w[o] = simd::width(acc);
    }
  const unsigned order = simd::best_order<kOrders, kTieHigh>(w);
  std::memcpy(z, zs[order - 1], sizeof zs[0]);
  s.carry.after(q);
  return simd::head(order, w[order - 1]);
}

// Decoder: rebuilds len values of the block from its residuals.
template <typename T, typename Isa>
ADACOMP_INLINE void decode_block(const uint32_t* z, unsigned order, double step,
                                 simd::Carry<uint32_t>& c, T* out, size_t len) {
  alignas(32) uint32_t q[kBlock];
  Isa::template integrate<uint32_t>(z, order, c, q);
#if ADACOMP_HAVE_AVX2_PATH
  if constexpr (std::is_same_v<Isa, simd::Avx2>)
    if (len == kBlock) return recon_avx2<T>(q, step, out);
#endif
  for (size_t k = 0; k < len; ++k) out[k] = recon<T>(static_cast<int32_t>(q[k]), step);
}

// Outliers: (u64 index, raw T) each, after the count. Both ends share
// these two.
template <typename T>
inline size_t outliers_bytes(size_t nout) {
  return bits::varint_size(nout) + nout * (8 + sizeof(T));
}

// Patches out[index] = value from `count` entries (u64 index, raw T) at p;
// false unless the indices increase strictly and stay below n. Shared with
// quant and zfp, whose exception lists have the same entries.
template <typename T>
inline bool patch_outliers(const uint8_t* p, uint64_t count, T* out, size_t n) {
  uint64_t last = 0;
  for (uint64_t k = 0; k < count; ++k, p += 8 + sizeof(T)) {
    const uint64_t idx = bits::load<uint64_t>(p);
    if (idx >= n || (k && idx <= last)) return false;
    out[idx] = bits::load<T>(p + 8);
    last = idx;
  }
  return true;
}

// Reads and applies the outlier list at r (which must end exactly there).
template <typename T>
inline bool apply_outliers(bits::Reader& r, T* out, size_t n) {
  uint64_t nout;
  if (!r.get_varint(&nout) || nout > n || r.left() != nout * (8 + sizeof(T))) return false;
  return patch_outliers<T>(r.p, nout, out, n);
}

template <typename T>
inline uint8_t* put_outliers(uint8_t* p, const EncState& s, const T* x) {
  p = bits::put_varint(p, s.nout);
  for (size_t k = 0; k < s.nout; ++k) {
    bits::store<uint64_t>(p, s.outliers[k]);
    bits::store<T>(p + 8, x[s.outliers[k]]);
    p += 8 + sizeof(T);
  }
  return p;
}

}  // namespace qblock
}  // namespace adacomp
