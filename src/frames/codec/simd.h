// Bit-plane kernels shared by the block codecs (bitplane, quant_fast), in a
// portable and an AVX2 version that produce the same bytes. Internal.
//
// A block is 32 unsigned values of U (uint32_t or uint64_t) of which only
// the w low bits may be set. It is stored as w little-endian 32-bit words,
// plane j first for j = 0..w-1: bit p of plane j is bit j of value
// kPlaneOrder(p). Same size as packing each value into w bits, but the
// transposition is a few byte shuffles and 8x8 bit transposes in AVX2
// (the layout of bitshuffle and ndzip's bit transposition, with ndzip's
// zero words at the top removed by the width).
//
// The value order is whatever the AVX2 byte transposition yields
// naturally (see Avx2 below); the portable path follows it through
// plane_value().
//
// Callers write one codec body as an always-inline template over an ISA
// type (Portable or Avx2) and instantiate it twice: once plain and once
// inside a function with ADACOMP_AVX2_ENTRY, chosen per call by use_avx2().
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "codec/bits.h"
#include "codec/predict.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ADACOMP_HAVE_AVX2_PATH 1
#include <immintrin.h>
// AVX2 kernels carry the target but are not always_inline (GCC refuses to
// force them into a function compiled without it); the entry points that
// run a body on AVX2 are flattened, which inlines the kernels there.
#define ADACOMP_AVX2 __attribute__((target("avx2")))
#define ADACOMP_AVX2_ENTRY __attribute__((target("avx2"), flatten))
#else
#define ADACOMP_HAVE_AVX2_PATH 0
#define ADACOMP_AVX2
#define ADACOMP_AVX2_ENTRY
#endif

namespace adacomp {
namespace simd {

// True when the AVX2 path runs: the CPU has it and it is not forced off
// (codec_force_portable()).
bool use_avx2();

// Value index stored at bit p of every plane.
template <typename U>
constexpr unsigned plane_value(unsigned p) {
  return sizeof(U) == 8 ? 4 * ((p % 16) / 2) + 2 * (p / 16) + (p % 2)
                        : 8 * ((p % 16) / 4) + 4 * (p / 16) + (p % 4);
}

// Transposes an 8x8 bit matrix held as 8 bytes (row k = byte k, column i =
// bit i): byte i of the result holds bit i of every input byte, input
// byte k at bit k (Hacker's Delight, transpose8).
inline uint64_t transpose8(uint64_t x) {
  uint64_t t;
  t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
  x ^= t ^ (t << 7);
  t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
  x ^= t ^ (t << 14);
  t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
  x ^= t ^ (t << 28);
  return x;
}

struct Portable {
  template <typename U, unsigned kOrders>
  static ADACOMP_INLINE void residuals(const U* x, const Carry<U>& c, U (*__restrict z)[kBlock],
                                       unsigned* w) {
    simd::residuals<U, kOrders>(x, c, z, w);
  }
  template <typename U>
  static ADACOMP_INLINE void integrate(const U* z, unsigned order, Carry<U>& c, U* x) {
    simd::integrate<U>(z, order, c, x);
  }
  // Bit of the planes (0..31) that holds value k.
  template <typename U>
  struct Position {
    uint8_t of[kBlock];
    constexpr Position() : of() {
      for (unsigned p = 0; p < kBlock; ++p) of[plane_value<U>(p)] = static_cast<uint8_t>(p);
    }
  };

  // Writes the w low planes of v[32] to out (4w bytes): bytes regrouped by
  // position, then an 8x8 bit transpose per 8 values and byte.
  template <typename U>
  static ADACOMP_INLINE void pack(const U* v, unsigned w, uint8_t* out) {
    static constexpr Position<U> kPos;
    const unsigned nb = (w + 7) / 8;
    uint8_t g[sizeof(U)][kBlock];  // g[b][p]: byte b of the value at bit p
    for (unsigned k = 0; k < kBlock; ++k)
      for (unsigned b = 0; b < nb; ++b) g[b][kPos.of[k]] = static_cast<uint8_t>(v[k] >> (8 * b));
    for (unsigned b = 0; b < nb; ++b) {
      const unsigned top = w - 8 * b < 8 ? w - 8 * b : 8;
      for (unsigned c = 0; c < 4; ++c) {
        const uint64_t t = transpose8(bits::load<uint64_t>(&g[b][8 * c]));
        for (unsigned i = 0; i < top; ++i)
          out[4 * (8 * b + i) + c] = static_cast<uint8_t>(t >> (8 * i));
      }
    }
  }
  // Reads w planes (4w bytes) into v[32]; planes above w are zero.
  template <typename U>
  static ADACOMP_INLINE void unpack(const uint8_t* in, unsigned w, U* v) {
    static constexpr Position<U> kPos;
    const unsigned nb = (w + 7) / 8;
    uint8_t g[sizeof(U)][kBlock];
    for (unsigned b = 0; b < nb; ++b) {
      const unsigned top = w - 8 * b < 8 ? w - 8 * b : 8;
      for (unsigned c = 0; c < 4; ++c) {
        uint64_t t = 0;
        for (unsigned i = 0; i < top; ++i) t |= uint64_t(in[4 * (8 * b + i) + c]) << (8 * i);
        bits::store(&g[b][8 * c], transpose8(t));
      }
    }
    for (unsigned k = 0; k < kBlock; ++k) {
      U x = 0;
      for (unsigned b = 0; b < nb; ++b) x |= U(g[b][kPos.of[k]]) << (8 * b);
      v[k] = x;
    }
  }
};

#if ADACOMP_HAVE_AVX2_PATH
// Byte transposition: a per-lane byte shuffle groups each value's bytes by
// position, then a lane-wise transpose of 32-bit (u32) or 16-bit (u64)
// groups across the block's 4 or 8 registers gives one register per byte
// position b, holding byte b of all 32 values (in plane_value order). Bit
// i of those bytes is plane 8b+i.
struct Avx2 {
  // u32: byte 4b+j of a lane <- byte 4j+b (its own inverse).
  static ADACOMP_AVX2 inline __m256i shuf32() {
    return _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5,
                            9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  }
  // u64: byte 2b+h of a lane <- byte 8h+b, and its inverse.
  static ADACOMP_AVX2 inline __m256i shuf64() {
    return _mm256_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15, 0, 8, 1, 9, 2, 10,
                            3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
  }
  static ADACOMP_AVX2 inline __m256i unshuf64() {
    return _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10,
                            12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
  }
  // Lane-wise 4x4 transpose of 32-bit elements (its own inverse).
  static ADACOMP_AVX2 inline void transpose4x32(__m256i* r) {
    __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpacklo_epi32(r[2], r[3]);
    __m256i t2 = _mm256_unpackhi_epi32(r[0], r[1]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
    r[0] = _mm256_unpacklo_epi64(t0, t1);
    r[1] = _mm256_unpackhi_epi64(t0, t1);
    r[2] = _mm256_unpacklo_epi64(t2, t3);
    r[3] = _mm256_unpackhi_epi64(t2, t3);
  }
  // Lane-wise 8x8 transpose of 16-bit elements (its own inverse).
  static ADACOMP_AVX2 inline void transpose8x16(__m256i* r) {
    __m256i s[8], t[8];
    for (int k = 0; k < 4; ++k) {
      s[k] = _mm256_unpacklo_epi16(r[2 * k], r[2 * k + 1]);
      s[k + 4] = _mm256_unpackhi_epi16(r[2 * k], r[2 * k + 1]);
    }
    for (int k = 0; k < 2; ++k) {
      t[4 * k + 0] = _mm256_unpacklo_epi32(s[4 * k + 0], s[4 * k + 1]);
      t[4 * k + 1] = _mm256_unpacklo_epi32(s[4 * k + 2], s[4 * k + 3]);
      t[4 * k + 2] = _mm256_unpackhi_epi32(s[4 * k + 0], s[4 * k + 1]);
      t[4 * k + 3] = _mm256_unpackhi_epi32(s[4 * k + 2], s[4 * k + 3]);
    }
    for (int k = 0; k < 4; ++k) {
      r[2 * k] = _mm256_unpacklo_epi64(t[2 * k], t[2 * k + 1]);
      r[2 * k + 1] = _mm256_unpackhi_epi64(t[2 * k], t[2 * k + 1]);
    }
  }
  static ADACOMP_AVX2 inline void to_bytes(const void* v, __m256i* r, unsigned nregs) {
    const __m256i s = nregs == 8 ? shuf64() : shuf32();
    for (unsigned k = 0; k < nregs; ++k)
      r[k] = _mm256_shuffle_epi8(_mm256_loadu_si256(static_cast<const __m256i*>(v) + k), s);
    if (nregs == 8)
      transpose8x16(r);
    else
      transpose4x32(r);
  }

  // Inclusive prefix sum of the lanes of v plus carry (wrapping); carry
  // becomes the last sum, broadcast.
  template <typename U>
  static ADACOMP_AVX2 inline __m256i prefix(__m256i v, __m256i& carry) {
    const __m256i zero = _mm256_setzero_si256();
    if constexpr (sizeof(U) == 8) {
      v = _mm256_add_epi64(v, _mm256_slli_si256(v, 8));
      v = _mm256_add_epi64(v, _mm256_blend_epi32(zero, _mm256_permute4x64_epi64(v, 0x50), 0xF0));
      v = _mm256_add_epi64(v, carry);
      carry = _mm256_permute4x64_epi64(v, 0xFF);
    } else {
      v = _mm256_add_epi32(v, _mm256_slli_si256(v, 4));
      v = _mm256_add_epi32(v, _mm256_slli_si256(v, 8));
      v = _mm256_add_epi32(
          v, _mm256_blend_epi32(zero, _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(3)), 0xF0));
      v = _mm256_add_epi32(v, carry);
      carry = _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(7));
    }
    return v;
  }
  template <typename U>
  static ADACOMP_AVX2 inline __m256i unzigzag(__m256i u) {
    const __m256i one = sizeof(U) == 8 ? _mm256_set1_epi64x(1) : _mm256_set1_epi32(1);
    const __m256i sign = sizeof(U) == 8
                             ? _mm256_sub_epi64(_mm256_setzero_si256(), _mm256_and_si256(u, one))
                             : _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_and_si256(u, one));
    return _mm256_xor_si256(sizeof(U) == 8 ? _mm256_srli_epi64(u, 1) : _mm256_srli_epi32(u, 1),
                            sign);
  }
  // [last lane of prev, v without its last lane]: the previous element of
  // every lane, taken in registers (a shifted reload of just-stored data
  // would stall on store forwarding).
  template <typename U>
  static ADACOMP_AVX2 inline __m256i shift_in(__m256i v, __m256i prev) {
    if constexpr (sizeof(U) == 8)
      return _mm256_blend_epi32(_mm256_permute4x64_epi64(v, 0x93),
                                _mm256_permute4x64_epi64(prev, 0xFF), 0x03);
    else
      return _mm256_blend_epi32(
          _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 0, 1, 2, 3, 4, 5, 6)),
          _mm256_permutevar8x32_epi32(prev, _mm256_set1_epi32(7)), 0x01);
  }
  template <typename U>
  static ADACOMP_AVX2 inline __m256i sub(__m256i a, __m256i b) {
    return sizeof(U) == 8 ? _mm256_sub_epi64(a, b) : _mm256_sub_epi32(a, b);
  }
  template <typename U>
  static ADACOMP_AVX2 inline __m256i zigzag(__m256i v) {
    if constexpr (sizeof(U) == 8)
      return _mm256_xor_si256(_mm256_slli_epi64(v, 1),
                              _mm256_sub_epi64(_mm256_setzero_si256(), _mm256_srli_epi64(v, 63)));
    else
      return _mm256_xor_si256(_mm256_slli_epi32(v, 1), _mm256_srai_epi32(v, 31));
  }
  template <typename U>
  static ADACOMP_AVX2 inline __m256i bcast(U v) {
    if constexpr (sizeof(U) == 8)
      return _mm256_set1_epi64x(static_cast<long long>(v));
    else
      return _mm256_set1_epi32(static_cast<int>(v));
  }
  // simd::residuals in registers (same integers).
  template <typename U, unsigned kOrders>
  static ADACOMP_AVX2 inline void residuals(const U* x, const Carry<U>& c,
                                            U (*__restrict z)[kBlock], unsigned* w) {
    constexpr unsigned kRegs = sizeof(U), kLanes = 32 / sizeof(U);
    __m256i px = bcast<U>(c.x), pd = bcast<U>(c.d1), pe = bcast<U>(c.d2);
    __m256i o[3] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256()};
    for (unsigned k = 0; k < kRegs; ++k) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x) + k);
      const __m256i d = sub<U>(v, shift_in<U>(v, px));
      const __m256i e = sub<U>(d, shift_in<U>(d, pd));
      const __m256i r[3] = {d, e, sub<U>(e, shift_in<U>(e, pe))};
      for (unsigned i = 0; i < kOrders; ++i) {
        const __m256i zi = zigzag<U>(r[i]);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(z[i] + k * kLanes), zi);
        o[i] = _mm256_or_si256(o[i], zi);
      }
      px = v, pd = d, pe = e;
    }
    for (unsigned i = 0; i < kOrders; ++i) {
      alignas(32) U t[kLanes];
      _mm256_store_si256(reinterpret_cast<__m256i*>(t), o[i]);
      U a = 0;
      for (unsigned l = 0; l < kLanes; ++l) a |= t[l];
      w[i] = width(a);
    }
  }

  // simd::integrate with vector prefix sums (same integers).
  template <typename U>
  static ADACOMP_AVX2 inline void integrate(const U* z, unsigned order, Carry<U>& c, U* x) {
    constexpr unsigned kRegs = sizeof(U);
    __m256i cx, c1, c2;
    if constexpr (sizeof(U) == 8) {
      cx = _mm256_set1_epi64x(static_cast<long long>(c.x));
      c1 = _mm256_set1_epi64x(static_cast<long long>(c.d1));
      c2 = _mm256_set1_epi64x(static_cast<long long>(c.d2));
    } else {
      cx = _mm256_set1_epi32(static_cast<int>(c.x));
      c1 = _mm256_set1_epi32(static_cast<int>(c.d1));
      c2 = _mm256_set1_epi32(static_cast<int>(c.d2));
    }
    for (unsigned k = 0; k < kRegs; ++k) {
      __m256i d = unzigzag<U>(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(z) + k));
      if (order == 3) d = prefix<U>(d, c2);
      if (order >= 2) d = prefix<U>(d, c1);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(x) + k, prefix<U>(d, cx));
    }
    c.after(x);
  }

  // transpose8 on each 64-bit lane.
  static ADACOMP_AVX2 inline __m256i transpose8x4(__m256i x) {
    __m256i t;
    t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64(x, 7)),
                         _mm256_set1_epi64x(0x00AA00AA00AA00AAll));
    x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi64(t, 7)));
    t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64(x, 14)),
                         _mm256_set1_epi64x(0x0000CCCC0000CCCCll));
    x = _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi64(t, 14)));
    t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64(x, 28)),
                         _mm256_set1_epi64x(0x00000000F0F0F0F0ll));
    return _mm256_xor_si256(x, _mm256_xor_si256(t, _mm256_slli_epi64(t, 28)));
  }

  // Mask of the first m (< 8) 32-bit lanes: the planes of a partial group.
  static ADACOMP_AVX2 inline __m256i first_planes(unsigned m) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(m)),
                              _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }

  // Planes 8b..8b+7 are 32 contiguous bytes, plane i's byte c at 4i+c.
  // Grouping byte c of the 8 planes into 64-bit lane c (a byte shuffle and
  // a dword permutation) and transposing each lane's 8x8 bit matrix gives
  // the register of byte b of all values, and back.
  template <typename U>
  static ADACOMP_AVX2 inline void pack(const U* v, unsigned w, uint8_t* out) {
    constexpr unsigned kRegs = sizeof(U);  // 32 values of U = sizeof(U) registers
    const __m256i ungroup = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    __m256i r[kRegs];
    to_bytes(v, r, kRegs);
    for (unsigned b = 0; 8 * b < w; ++b) {
      __m256i g =
          _mm256_shuffle_epi8(_mm256_permutevar8x32_epi32(transpose8x4(r[b]), ungroup), shuf32());
      if (w >= 8 * b + 8)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * b), g);
      else
        _mm256_maskstore_epi32(reinterpret_cast<int*>(out + 32 * b), first_planes(w - 8 * b), g);
    }
  }

  template <typename U>
  static ADACOMP_AVX2 inline void unpack(const uint8_t* in, unsigned w, U* v) {
    constexpr unsigned kRegs = sizeof(U);
    const __m256i group = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    __m256i r[kRegs];
    for (unsigned b = 0; b < kRegs; ++b) {
      __m256i g;
      if (w >= 8 * b + 8) {
        g = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 32 * b));
      } else if (w > 8 * b) {  // masked lanes are not read
        g = _mm256_maskload_epi32(reinterpret_cast<const int*>(in + 32 * b),
                                  first_planes(w - 8 * b));
      } else {
        r[b] = _mm256_setzero_si256();
        continue;
      }
      r[b] = transpose8x4(_mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(g, shuf32()), group));
    }
    if (kRegs == 8) {
      transpose8x16(r);
      for (unsigned k = 0; k < kRegs; ++k)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(v) + k,
                            _mm256_shuffle_epi8(r[k], unshuf64()));
    } else {
      transpose4x32(r);
      for (unsigned k = 0; k < kRegs; ++k)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(v) + k, _mm256_shuffle_epi8(r[k], shuf32()));
    }
  }
};
#endif

}  // namespace simd
}  // namespace adacomp
