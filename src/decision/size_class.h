#pragma once
// Message-size classes: one definition for the model's slots, the senders'
// coding estimates and the report's call histograms. Class 0 is 0 bytes,
// class k is [2^(k-1), 2^k) bytes, and the last class takes every larger size.

#include <cstddef>

namespace adacomp {

constexpr int kSizeClasses = 48;

// The bit width of `bytes`, capped: asked on every call the model decides,
// so no loop over the bits.
constexpr int size_class(size_t bytes) {
  if (bytes == 0) return 0;
  const int width = 64 - __builtin_clzll(static_cast<unsigned long long>(bytes));
  return width < kSizeClasses ? width : kSizeClasses - 1;
}

// The least size of class k.
constexpr size_t class_bytes(int k) { return k == 0 ? 0 : size_t{1} << (k - 1); }

static_assert(size_class(0) == 0 && size_class(1) == 1 && size_class(4096) == 13 &&
              size_class(4095) == 12 && size_class(~size_t{0}) == kSizeClasses - 1 &&
              class_bytes(size_class(4096)) == 4096 && class_bytes(size_class(6000)) == 4096);

}  // namespace adacomp
