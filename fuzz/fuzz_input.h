// Fuzz input layout shared by the targets and the seed generator:
//   u8 kind (0 f64, 1 f32), u16 LE value count, codec payload.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/codec.h"

namespace fuzz {

constexpr size_t kPrefix = 3;

inline adacomp::ElemKind kind_of(uint8_t b) {
  return (b & 1) ? adacomp::ElemKind::f32 : adacomp::ElemKind::f64;
}
inline size_t elem_size(adacomp::ElemKind k) { return k == adacomp::ElemKind::f32 ? 4 : 8; }

}  // namespace fuzz
