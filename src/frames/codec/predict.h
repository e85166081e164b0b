// Block prediction, the first stage of the block codecs (bitplane,
// quant_fast): residuals of order 1 to 3, their zigzag, the block heads and
// the inverse. The portable form; the AVX2 one is simd.h's Avx2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "codec/bits.h"

#define ADACOMP_INLINE inline __attribute__((always_inline))

namespace adacomp {
namespace simd {

// Values per block.
constexpr size_t kBlock = 32;

// Bits needed by v.
template <typename U>
ADACOMP_INLINE unsigned width(U v) {
  if constexpr (sizeof(U) == 8)
    return v ? 64 - __builtin_clzll(v) : 0;
  else
    return v ? 32 - __builtin_clz(v) : 0;
}

// Zigzag: small negative and positive residuals both get few bits.
template <typename U>
ADACOMP_INLINE U zigzag(U v) {
  return (v << 1) ^ (U(0) - (v >> (8 * sizeof(U) - 1)));
}
template <typename U>
ADACOMP_INLINE U unzigzag(U u) {
  return (u >> 1) ^ (U(0) - (u & 1));
}

// Block prediction, shared by the block codecs: differences of order 1 to
// 3 of integer values (wrapping arithmetic), zigzagged; each block uses
// the order whose residuals are narrowest. The state carried from block
// to block is the last value and its first and second differences, taken
// from the values themselves so that any order can follow any other.
template <typename U>
struct Carry {
  U x = 0, d1 = 0, d2 = 0;
  // v: the block just coded (or decoded).
  ADACOMP_INLINE void after(const U* v) {
    const U a = v[kBlock - 1] - v[kBlock - 2], b = v[kBlock - 2] - v[kBlock - 3];
    x = v[kBlock - 1];
    d1 = a;
    d2 = a - b;
  }
};

// z[o-1] = zigzagged differences of order o = 1..kOrders, w[o-1] their width.
template <typename U, unsigned kOrders>
ADACOMP_INLINE void residuals(const U* x, const Carry<U>& c, U (*__restrict z)[kBlock],
                              unsigned* w) {
  static_assert(kOrders >= 1 && kOrders <= 3, "orders 1 to 3");
  U v[kBlock + 1], d[kBlock + 1], e[kBlock + 1], o[3] = {0, 0, 0};
  v[0] = c.x;
  std::memcpy(v + 1, x, sizeof(U) * kBlock);
  d[0] = c.d1;
  for (size_t k = 0; k < kBlock; ++k) d[k + 1] = v[k + 1] - v[k];
  e[0] = c.d2;
  for (size_t k = 0; k < kBlock; ++k) e[k + 1] = d[k + 1] - d[k];
  for (size_t k = 0; k < kBlock; ++k) {
    o[0] |= z[0][k] = zigzag<U>(d[k + 1]);
    if constexpr (kOrders >= 2) o[1] |= z[1][k] = zigzag<U>(e[k + 1]);
    if constexpr (kOrders >= 3) o[2] |= z[2][k] = zigzag<U>(e[k + 1] - e[k]);
  }
  for (unsigned i = 0; i < kOrders; ++i) w[i] = width(o[i]);
}

// The order (1-based) with the narrowest residuals; ties go to the lower
// order (faster to decode) or, with kTieHigh, the higher one.
template <unsigned kOrders, bool kTieHigh>
ADACOMP_INLINE unsigned best_order(const unsigned* w) {
  unsigned o = 0;
  for (unsigned k = 1; k < kOrders; ++k)
    if (kTieHigh ? w[k] <= w[o] : w[k] < w[o]) o = k;
  return o + 1;
}

// Block head byte: order and width in one byte, (order - 1) * 65 + width.
constexpr unsigned kWidths = 65;
ADACOMP_INLINE uint8_t head(unsigned order, unsigned w) {
  return static_cast<uint8_t>((order - 1) * kWidths + w);
}
ADACOMP_INLINE unsigned head_order(uint8_t h) { return h / kWidths + 1u; }
ADACOMP_INLINE unsigned head_width(uint8_t h) { return h % kWidths; }

// Takes a payload's table of `nblocks` block heads from r and checks every
// head (width <= max_width, order <= max_order) before any plane is read.
// Returns the heads, or null when missing or invalid; *planes is the byte
// count of the bit planes that follow (4 bytes per bit of width).
inline const uint8_t* take_heads(bits::Reader& r, size_t nblocks, unsigned max_width,
                                 unsigned max_order, size_t* planes) {
  const uint8_t* heads = r.take(nblocks);
  if (!heads) return nullptr;
  size_t total = 0;
  unsigned bad = 0;
  for (size_t b = 0; b < nblocks; ++b) {
    const unsigned w = head_width(heads[b]);
    bad |= (w > max_width) | (head_order(heads[b]) > max_order);
    total += 4 * w;
  }
  *planes = total;
  return bad ? nullptr : heads;
}

// Inverse of residuals(): rebuilds the block's values from the residuals
// of the given order and carries the state on.
template <typename U>
ADACOMP_INLINE void integrate(const U* z, unsigned order, Carry<U>& c, U* x) {
  U p = c.x, d1 = c.d1, d2 = c.d2;
  if (order == 3) {
    for (size_t k = 0; k < kBlock; ++k) d2 += unzigzag(z[k]), d1 += d2, x[k] = p += d1;
  } else if (order == 2) {
    for (size_t k = 0; k < kBlock; ++k) d1 += unzigzag(z[k]), x[k] = p += d1;
  } else {
    for (size_t k = 0; k < kBlock; ++k) x[k] = p += unzigzag(z[k]);
  }
  c.after(x);
}

}  // namespace simd
}  // namespace adacomp
