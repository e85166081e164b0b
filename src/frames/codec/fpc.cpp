// Lossless float codec from the FPC/DFCM family, in the variant that won on
// our data: cMPI's third-order DFCM with drift and nibble leading-zero
// coding (Ke et al., SC'04). FPC's dual FCM+DFCM predictor with a selector
// bit and byte-granular counts was implemented first and lost on every data
// file, in ratio and in speed (docs/codecs.md has the numbers).
//
// Predictor: the hash of the top 14 bits of the last three differences
// between consecutive values picks a table line holding the two most recent
// differences seen in that context, d'' (newer) and d'. The predicted
// difference is d'' when their top 14 bits differ, else d'' + (d'' - d')
// (drift). Residual x = value XOR (previous value + predicted difference),
// integer arithmetic on the bit patterns.
//
// Coding: a 4-bit code per value gives the residual length in nibbles
// (16 minus the leading zero nibbles, 0 for an exact prediction). The low
// whole bytes of the residual go to a byte stream; an odd top nibble goes
// to a nibble stream. Keeping the byte stream byte-aligned lets both sides
// move residuals with one unaligned 8-byte store or load and a mask.
//
// Payload:
//   u8 format (1), u8 table bits, varint value count,
//   codes   ceil(n/2) bytes,
//   bytes   residual low bytes,
//   nibbles floor(odd count / 2) + 1 bytes (one spare so the decoder can
//           always read the byte at its position, branch-free).
//
// The values are split into two contiguous halves ("lanes") with their own
// tables, coded in lock step: code byte i holds lane 0's code for value i
// (low nibble) and lane 1's for value m+i (high nibble), and both streams
// take the residuals in that order. Two independent dependency chains let
// the decoder work on both at once.
#include <algorithm>
#include <cstring>
#include <type_traits>

#include "codec/bits.h"
#include "codec/codec.h"

namespace adacomp {
namespace {

constexpr uint8_t kFormat = 1;
constexpr int kMinBits = 6, kMaxBits = 16;
constexpr size_t kHeader = 2;   // plus the varint count
constexpr size_t kBlock = 512;  // steps between output-space checks
constexpr int kHashShl = 5;     // three 14-bit terms in a 15-bit hash

// Per-width constants: hash on the top 14 bits (sign, exponent, leading
// mantissa bits); the code for "no residual" replaces the rarest count.
struct F64 {
  using U = uint64_t;
  static constexpr int kHashShr = 50;
  // Index: leading zero nibbles of a nonzero residual (15 coded as 14).
  static constexpr uint8_t kCodeOfLzn[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 14};
  static constexpr uint8_t kZeroCode = 15;
  static constexpr uint8_t kNibblesOfCode[16] = {16, 15, 14, 13, 12, 11, 10, 9,
                                                 8,  7,  6,  5,  4,  3,  2,  0};
};
struct F32 {
  using U = uint32_t;
  static constexpr int kHashShr = 18;
  static constexpr uint8_t kCodeOfLzn[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  static constexpr uint8_t kZeroCode = 8;
  // 0xFF: codes never produced, rejected by the decoder.
  static constexpr uint8_t kNibblesOfCode[16] = {8, 7,    6,    5,    4,    3,    2,    1,
                                                 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
};

template <typename T>
using Traits = std::conditional_t<sizeof(T) == 8, F64, F32>;

inline unsigned clz(uint64_t x) { return static_cast<unsigned>(__builtin_clzll(x)); }
inline unsigned clz(uint32_t x) { return static_cast<unsigned>(__builtin_clz(x)); }

// Per code: everything the coders need, in one 16-byte entry.
template <class T>
struct CodeInfo {
  using U = typename T::U;
  U byte_mask = 0;        // keeps the residual's whole low bytes
  uint8_t nbytes = 0;     // whole residual bytes
  uint8_t odd = 0;        // 1 if there is a top nibble
  uint8_t nib_mask = 0;   // 15 if there is a top nibble, else 0
  uint8_t nib_shift = 0;  // bit position of the top nibble (0 if none)
};
template <class T>
struct CodeTable {
  CodeInfo<T> c[16];
  constexpr CodeTable() : c() {
    using U = typename T::U;
    for (int i = 0; i < 16; ++i) {
      unsigned k = T::kNibblesOfCode[i] == 0xFF ? 0 : T::kNibblesOfCode[i];
      c[i].nbytes = static_cast<uint8_t>(k / 2);
      c[i].byte_mask = k / 2 >= sizeof(U) ? ~U(0) : (U(1) << (8 * (k / 2))) - 1;
      c[i].odd = k & 1;
      c[i].nib_mask = (k & 1) ? 15 : 0;
      c[i].nib_shift = (k & 1) ? static_cast<uint8_t>(4 * (k - 1)) : 0;
    }
  }
};
template <class T>
constexpr CodeTable<T> kCodes;

// Predictor table: lines of {newer, older}, the two lanes' lines
// interleaved. A lane's state is the byte offset of its current line and
// its last value, so the hot loops keep few registers live (spills there
// cost more than anything else).
template <class T>
struct Lane {
  using U = typename T::U;
  size_t off;  // (2 * hash + lane) * sizeof(Line)
  U last;
};

template <class T>
struct Table {
  using U = typename T::U;
  static constexpr int kLineShift = sizeof(U) == 8 ? 4 : 3;  // log2 line bytes
  uint8_t* base;
  size_t mask;  // (lines - 1) << (kLineShift + 1): hash bits as a byte offset

  // Returns the prediction; `n` keeps the line's newer entry for update().
  U predict(const Lane<T>& l, U& n) const {
    n = bits::load<U>(base + l.off);
    U o = bits::load<U>(base + l.off + sizeof(U));
    return l.last + (((n ^ o) >> T::kHashShr) ? n : 2 * n - o);
  }
  template <unsigned kLane>
  void update(Lane<T>& l, U v, U n) const {
    U d = v - l.last;
    bits::store<U>(base + l.off, d);
    bits::store<U>(base + l.off + sizeof(U), n);
    // ((h << 5) ^ (d >> S)) & (lines - 1), kept scaled to a byte offset:
    // the low bits of the shifted d fall outside the mask.
    l.off =
        (((l.off << kHashShl) ^ static_cast<size_t>(d >> (T::kHashShr - kLineShift - 1))) & mask) |
        (kLane << kLineShift);
    l.last = v;
  }
};

// Nibble stream writer: 16 nibbles per 64-bit word.
struct NibbleOut {
  uint64_t acc = 0;
  unsigned shift = 0;
  uint8_t* p;
  void put(uint64_t nib, unsigned odd) {
    acc |= nib << shift;
    shift += 4 * odd;
    if (shift == 64) {
      bits::store(p, acc);
      p += 8;
      acc = 0;
      shift = 0;
    }
  }
};

// Encodes v: writes sizeof(U) bytes at w (advancing by the residual's whole
// bytes) and its odd nibble to nib; returns the 4-bit code.
template <class T, unsigned kLane>
inline unsigned encode_value(const Table<T>& t, Lane<T>& lane, typename T::U v, uint8_t*& w,
                             NibbleOut& nib) {
  using U = typename T::U;
  U n;
  U x = v ^ t.predict(lane, n);
  t.template update<kLane>(lane, v, n);
  unsigned code = x ? T::kCodeOfLzn[clz(x) >> 2] : T::kZeroCode;
  const CodeInfo<T>& c = kCodes<T>.c[code];
  bits::store<U>(w, x);
  w += c.nbytes;
  nib.put((x >> c.nib_shift) & c.nib_mask, c.odd);
  return code;
}

// The nibble position is kept as 2 * address + half (npp), one register.
template <class T, unsigned kLane>
inline typename T::U decode_value(const Table<T>& t, Lane<T>& lane, unsigned code,
                                  const uint8_t*& in, uintptr_t& npp) {
  using U = typename T::U;
  const CodeInfo<T>& c = kCodes<T>.c[code];
  U x = bits::load<U>(in) & c.byte_mask;
  in += c.nbytes;
  U nib = (*reinterpret_cast<const uint8_t*>(npp >> 1) >> ((npp & 1) * 4)) & c.nib_mask;
  npp += c.odd;
  x |= nib << c.nib_shift;
  U n;
  U v = x ^ t.predict(lane, n);
  t.template update<kLane>(lane, v, n);
  return v;
}

int max_bits_for(size_t lane_values) {
  // A table much larger than the lane only costs clearing time.
  int b = kMinBits;
  while (b < kMaxBits && (size_t(1) << b) < 2 * lane_values) ++b;
  return b;
}

// Clears the table (one scratch allocation) and the lane states.
template <class T>
Table<T> init_table(Lane<T>* lanes, int bits) {
  constexpr int kShift = Table<T>::kLineShift;
  size_t bytes = size_t(2) << (bits + kShift);  // two lanes
  uint8_t* t = bits::scratch(bits::kScratchA, bytes);
  std::memset(t, 0, bytes);
  lanes[0] = Lane<T>{0, 0};
  lanes[1] = Lane<T>{size_t(1) << kShift, 0};
  return Table<T>{t, ((size_t(1) << bits) - 1) << (kShift + 1)};
}

// The hot loops work on local copies of the lane states: residual stores go
// through byte pointers, which may alias anything in memory, so state left
// there would be reloaded after every store.
template <class T>
uint8_t* encode_block(const Table<T> t, Lane<T>* lanes, const typename T::U* in, size_t m, size_t i,
                      size_t pair_stop, size_t stop, uint8_t* codes, uint8_t* w, NibbleOut& nib) {
  Lane<T> a = lanes[0], b = lanes[1];
  NibbleOut nb = nib;
  size_t j = i;
  for (; j < pair_stop; ++j) {
    unsigned lo = encode_value<T, 0>(t, a, in[j], w, nb);
    unsigned hi = encode_value<T, 1>(t, b, in[m + j], w, nb);
    codes[j] = static_cast<uint8_t>(lo | (hi << 4));
  }
  if (j < stop)  // odd n: the last step has lane 0 only
    codes[j] = static_cast<uint8_t>(encode_value<T, 0>(t, a, in[j], w, nb) | (T::kZeroCode << 4));
  lanes[0] = a;
  lanes[1] = b;
  nib = nb;
  return w;
}

template <class T>
const uint8_t* decode_block(const Table<T> t, Lane<T>* lanes, typename T::U* o, size_t m, size_t i,
                            size_t pair_stop, size_t stop, const uint8_t* codes, const uint8_t* in,
                            uintptr_t& npp) {
  Lane<T> a = lanes[0], b = lanes[1];
  uintptr_t np = npp;
  const uint8_t* c = codes + i;
  typename T::U* o0 = o + i;
  typename T::U* o1 = o + m + i;
  for (const uint8_t* ce = codes + pair_stop; c < ce; ++c) {
    unsigned code = *c;
    *o0++ = decode_value<T, 0>(t, a, code & 15, in, np);
    *o1++ = decode_value<T, 1>(t, b, code >> 4, in, np);
  }
  if (c < codes + stop) *o0 = decode_value<T, 0>(t, a, *c & 15, in, np);
  lanes[0] = a;
  lanes[1] = b;
  npp = np;
  return in;
}

template <typename F>
long encode_t(const EncodeParams& p, const void* src, size_t src_bytes, void* dst, size_t cap) {
  using T = Traits<F>;
  using U = typename T::U;
  if (src_bytes % sizeof(U)) return kCodecUnsupported;
  size_t n = src_bytes / sizeof(U);
  size_t m = (n + 1) / 2;  // lane 0 length; lane 1 has n - m
  size_t pairs = n - m;    // steps with both lanes
  if (cap < kHeader + bits::varint_size(n) + m) return kCodecNoSpace;
  int bits = std::min(std::clamp(p.fpc_table_bits, kMinBits, kMaxBits), max_bits_for(m));
  auto* o = static_cast<uint8_t*>(dst);
  o[0] = kFormat;
  o[1] = static_cast<uint8_t>(bits);
  uint8_t* codes = bits::put_varint(o + kHeader, n);
  uint8_t* out = codes + m;
  uint8_t* end = o + cap;
  const U* in = static_cast<const U*>(src);
  Lane<T> lanes[2];
  const Table<T> tables = init_table(lanes, bits);
  // Nibbles are collected aside (at most one per value) and appended last.
  uint8_t* nib_start = bits::scratch(bits::kScratchB, n / 2 + 16);
  NibbleOut nib;
  nib.p = nib_start;

  uint8_t tmp[2 * kBlock * sizeof(U)];
  for (size_t i = 0; i < m; i += kBlock) {
    size_t stop = std::min(i + kBlock, m);
    // Residual stores write a whole U; near the end of dst they go to tmp.
    bool direct = static_cast<size_t>(end - out) >= sizeof tmp;
    uint8_t* w = direct ? out : tmp;
    w = encode_block(tables, lanes, in, m, i, std::min(stop, pairs), stop, codes, w, nib);
    if (direct) {
      out = w;
    } else {
      size_t len = static_cast<size_t>(w - tmp);
      if (len > static_cast<size_t>(end - out)) return kCodecNoSpace;
      std::memcpy(out, tmp, len);
      out += len;
    }
  }
  // Flush the partial word; the stream is floor(odd / 2) + 1 bytes.
  bits::store(nib.p, nib.acc);
  size_t odd = static_cast<size_t>(nib.p - nib_start) * 2 + nib.shift / 4;
  size_t nib_bytes = odd / 2 + 1;
  if (nib_bytes > static_cast<size_t>(end - out)) return kCodecNoSpace;
  std::memcpy(out, nib_start, nib_bytes);
  return static_cast<long>(out + nib_bytes - o);
}

// Per code byte: residual whole bytes (low 8 bits) and odd nibbles (high
// bits) of its two codes, or 0xFFFF if it holds an invalid code.
template <class T>
struct PairInfo {
  uint16_t v[256];
  constexpr PairInfo() : v() {
    for (int b = 0; b < 256; ++b) {
      unsigned lo = T::kNibblesOfCode[b & 15], hi = T::kNibblesOfCode[b >> 4];
      v[b] = (lo == 0xFF || hi == 0xFF)
                 ? 0xFFFF
                 : static_cast<uint16_t>((lo >> 1) + (hi >> 1) + (((lo & 1) + (hi & 1)) << 8));
    }
  }
};

template <typename F>
long decode_t(const void* src, size_t src_bytes, void* dst, size_t dst_bytes) {
  using T = Traits<F>;
  using U = typename T::U;
  static constexpr PairInfo<T> kPair;
  if (dst_bytes % sizeof(U)) return kCodecCorrupt;
  size_t n = dst_bytes / sizeof(U);
  size_t m = (n + 1) / 2, pairs = n - m;
  bits::Reader r(src, src_bytes);
  uint8_t format, bits;
  uint64_t count;
  if (!r.get(&format) || !r.get(&bits) || !r.get_varint(&count) || count != n) return kCodecCorrupt;
  if (format != kFormat || bits < kMinBits || bits > max_bits_for(m)) return kCodecCorrupt;
  const uint8_t* codes = r.take(m);
  if (!codes) return kCodecCorrupt;
  const uint8_t* in = codes + m;
  // Validate every code and the stream lengths before decoding.
  if (m > pairs && (codes[m - 1] >> 4) != T::kZeroCode) return kCodecCorrupt;
  size_t total = 0, odd = 0;
  unsigned bad = 0;
  for (size_t j = 0; j < m; ++j) {
    unsigned b = kPair.v[codes[j]];
    bad |= (b == 0xFFFF);
    total += b & 0xFF;
    odd += b >> 8;
  }
  size_t left = r.left();
  if (bad || total > left || left - total != odd / 2 + 1) return kCodecCorrupt;
  const uint8_t* end = in + total;  // end of the byte stream
  const uint8_t* nibbles = end;

  U* o = static_cast<U*>(dst);
  Lane<T> lanes[2];
  const Table<T> tables = init_table(lanes, bits);
  // Loads read a whole U; once fewer than a block's worth of bytes remain,
  // continue from a zero-padded copy. The lengths were validated above, so
  // decoding never reads past the copied bytes plus one U of padding.
  uint8_t tmp[2 * kBlock * sizeof(U) + sizeof(U)];
  bool in_tmp = false;
  uintptr_t npp = 2 * reinterpret_cast<uintptr_t>(nibbles);
  for (size_t i = 0; i < m; i += kBlock) {
    size_t stop = std::min(i + kBlock, m);
    if (!in_tmp && static_cast<size_t>(end - in) < 2 * kBlock * sizeof(U)) {
      size_t rest = static_cast<size_t>(end - in);
      std::memcpy(tmp, in, rest);
      std::memset(tmp + rest, 0, sizeof tmp - rest);
      in = tmp;
      in_tmp = true;
    }
    in = decode_block(tables, lanes, o, m, i, std::min(stop, pairs), stop, codes, in, npp);
  }
  return static_cast<long>(dst_bytes);
}

size_t fpc_max(size_t n) { return kHeader + bits::kMaxVarint + n + n / 4 + 16; }

}  // namespace

ADACOMP_FLOAT_CODEC(kFpcCodec, CodecId::fpc, "fpc", false, fpc_max);

}  // namespace adacomp
