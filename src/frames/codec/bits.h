// Byte and bit helpers shared by the codec implementations. Internal: not
// part of the codec interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "codec/bytes.h"
#include "codec/codec.h"

namespace adacomp {
namespace bits {

inline size_t elem_size(ElemKind k) { return k == ElemKind::f64 ? 8 : k == ElemKind::f32 ? 4 : 1; }

// The one f32/f64 dispatch of the float codecs (zfp-style): a Codec's
// encode and decode entry points from the codec's implementations for
// double and float. Byte payloads are refused.
using TypedEncode = long (*)(const EncodeParams& p, const void* src, size_t src_bytes, void* dst,
                             size_t cap);
using TypedDecode = long (*)(const void* src, size_t src_bytes, void* dst, size_t dst_bytes);
template <TypedEncode F64, TypedEncode F32>
long float_encode(const EncodeParams& p, const void* src, size_t n, void* dst, size_t cap) {
  switch (p.kind) {
    case ElemKind::f64:
      return F64(p, src, n, dst, cap);
    case ElemKind::f32:
      return F32(p, src, n, dst, cap);
    default:
      return kCodecUnsupported;
  }
}
template <TypedDecode F64, TypedDecode F32>
long float_decode(ElemKind kind, const void* src, size_t n, void* dst, size_t dst_bytes) {
  switch (kind) {
    case ElemKind::f64:
      return F64(src, n, dst, dst_bytes);
    case ElemKind::f32:
      return F32(src, n, dst, dst_bytes);
    default:
      return kCodecCorrupt;
  }
}

// A float codec's table entry (the codec's own file, namespace adacomp):
// its encode_t<T> and decode_t<T>, for T = double and float, behind the
// dispatch above.
#define ADACOMP_FLOAT_CODEC(var, id, name, lossy, max_encoded)                     \
  extern const Codec var = {id,                                                    \
                            name,                                                  \
                            lossy,                                                 \
                            true,                                                  \
                            max_encoded,                                           \
                            bits::float_encode<encode_t<double>, encode_t<float>>, \
                            bits::float_decode<decode_t<double>, decode_t<float>>}

// Same-width unsigned integer of a float type, and back.
template <typename T>
using uint_of = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
template <typename U>
using float_of = std::conditional_t<sizeof(U) == 8, double, float>;

// Float <-> same-width unsigned integer bit patterns.
inline uint64_t to_bits(double d) { return load<uint64_t>(&d); }
inline uint32_t to_bits(float f) { return load<uint32_t>(&f); }
inline double from_bits(uint64_t u) { return load<double>(&u); }
inline float from_bits(uint32_t u) { return load<float>(&u); }

// LEB128 varint: element counts in payload headers, so a payload decodes
// only to the size it was made from.
constexpr size_t kMaxVarint = 10;
inline size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, ++n;
  return n;
}
inline uint8_t* put_varint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) *p++ = static_cast<uint8_t>(v | 0x80), v >>= 7;
  *p++ = static_cast<uint8_t>(v);
  return p;
}

// Sequential writer into a caller buffer of fixed capacity; put() returns
// false (and writes nothing) once the capacity would be exceeded.
struct Writer {
  uint8_t* p;
  uint8_t* end;
  Writer(void* dst, size_t cap)
      : p(static_cast<uint8_t*>(dst)), end(static_cast<uint8_t*>(dst) + cap) {}
  size_t room() const { return static_cast<size_t>(end - p); }
  bool put(const void* src, size_t n) {
    if (n > room()) return false;
    if (n) std::memcpy(p, src, n);
    p += n;
    return true;
  }
  template <typename T>
  bool put(T v) {
    return put(&v, sizeof v);
  }
};

// Sequential reader over an untrusted payload: every get() is checked.
struct Reader {
  const uint8_t* p;
  const uint8_t* end;
  Reader(const void* src, size_t n)
      : p(static_cast<const uint8_t*>(src)), end(static_cast<const uint8_t*>(src) + n) {}
  size_t left() const { return static_cast<size_t>(end - p); }
  bool get(void* dst, size_t n) {
    if (n > left()) return false;
    if (n) std::memcpy(dst, p, n);
    p += n;
    return true;
  }
  template <typename T>
  bool get(T* v) {
    return get(v, sizeof *v);
  }
  bool get_varint(uint64_t* v) {
    uint64_t x = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      uint8_t b;
      if (!get(&b)) return false;
      x |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) {
        *v = x;
        return true;
      }
    }
    return false;
  }
  // Takes n bytes in place; nullptr if fewer are left.
  const uint8_t* take(size_t n) {
    if (n > left()) return nullptr;
    const uint8_t* q = p;
    p += n;
    return q;
  }
};

// Little-endian bit stream of fields up to 56 bits wide. Both ends touch 8
// bytes at the current byte position, so buffers need 8 bytes of slack
// past the last field (writers: writable; readers: readable).
struct BitWriter {
  uint8_t* p;
  uint64_t acc = 0;
  unsigned fill = 0;  // pending bits in acc, < 8 between calls
  explicit BitWriter(uint8_t* dst) : p(dst) {}
  // v must fit in w <= 56 bits.
  void put(uint64_t v, unsigned w) {
    acc |= v << fill;
    fill += w;
    store(p, acc);
    p += fill >> 3;
    acc >>= fill & ~7u;
    fill &= 7;
  }
  // Writes the pending bits; returns the end of the stream.
  uint8_t* finish() {
    store(p, acc);
    return p + (fill + 7) / 8;
  }
};

struct BitReader {
  const uint8_t* base;
  size_t pos = 0;  // in bits
  explicit BitReader(const uint8_t* src) : base(src) {}
  uint64_t get(unsigned w) {  // w <= 56
    uint64_t v = load<uint64_t>(base + (pos >> 3)) >> (pos & 7);
    pos += w;
    return v & ((uint64_t(1) << w) - 1);
  }
};

// Per-thread scratch memory reused across calls, so codecs that need a
// temporary buffer do not allocate per message once warmed up. Each slot is
// owned by one codec call at a time; nested codecs use different slots.
enum ScratchSlot { kScratchA = 0, kScratchB = 1, kScratchC = 2, kScratchSlots };
inline uint8_t* scratch(ScratchSlot slot, size_t n) {
  thread_local std::vector<uint8_t> bufs[kScratchSlots];
  std::vector<uint8_t>& b = bufs[slot];
  if (b.size() < n) b.resize(n);
  return b.data();
}

}  // namespace bits
}  // namespace adacomp
