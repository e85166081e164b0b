// Byte order and hashing, the one copy for every layer: codec payloads,
// frame headers and channel records are little-endian, and the few checks
// that hash bytes use FNV-1a. Lives in the bottom layer so all can use it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "AdaComp assumes a little-endian host (everything it sends is little-endian)"
#endif

namespace adacomp {
namespace bits {

// Unaligned little-endian loads and stores of any trivially copyable T.
template <typename T>
inline T load(const void* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <typename T>
inline void store(void* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// FNV-1a over n bytes in 32 or 64 bits; `h` continues an earlier hash, so
// a hash can skip a field (hash the bytes before it, then those after).
constexpr uint32_t kFnv32Basis = 2166136261u;
constexpr uint64_t kFnv64Basis = 1469598103934665603ull;
inline uint32_t fnv1a_32(const void* p, size_t n, uint32_t h = kFnv32Basis) {
  const auto* b = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 16777619u;
  return h;
}
inline uint64_t fnv1a_64(const void* p, size_t n, uint64_t h = kFnv64Basis) {
  const auto* b = static_cast<const uint8_t*>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

}  // namespace bits
}  // namespace adacomp
