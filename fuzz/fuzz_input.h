// Fuzz input layout shared by the targets and the seed generator:
//   u8 flags (bit 0: f32 instead of f64; bit 1: the SIMD codecs' portable
//   path instead of AVX2), u16 LE value count, codec payload.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/codec.h"

namespace fuzz {

constexpr size_t kPrefix = 3;

inline adacomp::ElemKind kind_of(uint8_t b) {
  return (b & 1) ? adacomp::ElemKind::f32 : adacomp::ElemKind::f64;
}
inline bool portable_of(uint8_t b) { return (b & 2) != 0; }
inline size_t elem_size(adacomp::ElemKind k) { return k == adacomp::ElemKind::f32 ? 4 : 8; }

}  // namespace fuzz
