// Shared helpers for the codec tests: a failure counter, data generators
// and one encode/decode round trip with buffer-overrun guards.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "codec/codec.h"

namespace test {

inline int failures = 0;

#define CHECK(cond, ...)                                                            \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      ++test::failures;                                                             \
      std::fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                            \
      std::fprintf(stderr, "\n");                                                   \
    }                                                                               \
  } while (0)

inline int finish(const char* name) {
  if (test::failures)
    std::fprintf(stderr, "%s: %d failure(s)\n", name, test::failures);
  else
    std::printf("%s: ok\n", name);
  return test::failures ? 1 : 0;
}

using Bytes = std::vector<uint8_t>;

template <typename T>
Bytes to_bytes(const std::vector<T>& v) {
  Bytes b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

template <typename T>
T at(const Bytes& b, size_t i) {
  T v;
  std::memcpy(&v, b.data() + i * sizeof(T), sizeof(T));
  return v;
}

template <typename T>
T from_bits(uint64_t u) {
  T v;
  if constexpr (sizeof(T) == 8)
    std::memcpy(&v, &u, 8);
  else {
    uint32_t w = static_cast<uint32_t>(u);
    std::memcpy(&v, &w, 4);
  }
  return v;
}

// Data sets by name; n values of T.
template <typename T>
std::vector<T> make(const std::string& kind, size_t n, uint32_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  using L = std::numeric_limits<T>;
  for (size_t i = 0; i < n; ++i) {
    if (kind == "random_bits")
      v[i] = from_bits<T>(rng());  // includes NaN/Inf
    else if (kind == "random")
      v[i] = static_cast<T>(std::uniform_real_distribution<double>(-1e3, 1e3)(rng));
    else if (kind == "smooth")
      v[i] = static_cast<T>(100 * std::sin(i * 0.001) + 3 * std::cos(i * 0.037));
    else if (kind == "constant")
      v[i] = static_cast<T>(42.5);
    else if (kind == "zeros")
      v[i] = 0;
    else if (kind == "special") {
      // NaN with payloads, infinities, signed zeros, denormals, extremes,
      // mixed with ordinary values.
      const T sp[] = {from_bits<T>(sizeof(T) == 8 ? 0x7FF0000000000001ull : 0x7F800001u),
                      from_bits<T>(sizeof(T) == 8 ? 0xFFF8DEADBEEF0001ull : 0xFFC0BEEFu),
                      L::quiet_NaN(),
                      L::infinity(),
                      -L::infinity(),
                      T(-0.0),
                      T(0.0),
                      L::denorm_min(),
                      -L::denorm_min(),
                      L::min() / 3,
                      L::max(),
                      -L::max(),
                      L::min(),
                      L::epsilon(),
                      T(1),
                      T(-1)};
      v[i] = (i % 3 == 2) ? static_cast<T>(i * 0.25) : sp[(i / 3 + i) % (sizeof sp / sizeof sp[0])];
    }
  }
  return v;
}

struct Result {
  long enc = 0;  // encoded size or status
  long dec = 0;  // decode status
  Bytes out;
};

// Encodes with capacity cap (default max_encoded), checking that nothing
// is written past cap, then decodes into an exactly sized buffer, checking
// that nothing is written outside it.
inline Result round_trip(const adacomp::Codec& c, const adacomp::EncodeParams& p, const Bytes& src,
                         size_t cap = SIZE_MAX) {
  Result r;
  if (cap == SIZE_MAX) cap = c.max_encoded(src.size());
  const size_t guard = 64;
  Bytes enc(cap + guard, 0xA5);
  r.enc = c.encode(p, src.data(), src.size(), enc.data(), cap);
  for (size_t i = cap; i < enc.size(); ++i)
    CHECK(enc[i] == 0xA5, "%s wrote past capacity %zu", c.name, cap);
  if (r.enc < 0) return r;
  CHECK(static_cast<size_t>(r.enc) <= cap, "%s returned %ld > cap %zu", c.name, r.enc, cap);
  Bytes dec(src.size() + 2 * guard, 0x5A);
  r.dec = c.decode(p.kind, enc.data(), r.enc, dec.data() + guard, src.size());
  for (size_t i = 0; i < guard; ++i)
    CHECK(dec[i] == 0x5A && dec[guard + src.size() + i] == 0x5A, "%s decode wrote outside dst",
          c.name);
  r.out.assign(dec.begin() + guard, dec.begin() + guard + src.size());
  return r;
}

// Checks a decoded lossy result: |dec - orig| <= eb for finite values,
// bit-exact for NaN and Inf. Returns the max error seen.
template <typename T>
double check_bound(const char* what, const Bytes& src, const Bytes& out, double eb) {
  double worst = 0;
  size_t n = src.size() / sizeof(T);
  for (size_t i = 0; i < n; ++i) {
    T a = at<T>(src, i), b = at<T>(out, i);
    if (!std::isfinite(a)) {
      CHECK(std::memcmp(&src[i * sizeof(T)], &out[i * sizeof(T)], sizeof(T)) == 0,
            "%s: non-finite value %zu not exact", what, i);
      continue;
    }
    double e = std::fabs(static_cast<double>(a) - static_cast<double>(b));
    if (!(e <= eb)) {
      CHECK(e <= eb, "%s: value %zu error %.17g > bound %.17g (orig %.17g dec %.17g)", what, i, e,
            eb, static_cast<double>(a), static_cast<double>(b));
      return e;
    }
    worst = std::max(worst, e);
  }
  return worst;
}

}  // namespace test
