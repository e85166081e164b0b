// ZFP fixed-accuracy mode (libzfp, 1-D) with the bound enforced.
//
// ZFP's tolerance is a target, not a guarantee (zfp issue 62), and it has
// no notion of NaN or Inf. So the encoder replaces non-finite values by
// their finite predecessor, stores them exactly as exceptions, decodes its
// own output and checks every element against eb. On overshoot it retries
// with a tighter tolerance; if that still fails it emits a quant payload
// instead, so the codec never returns data outside the bound.
//
// Payload (little-endian):
//   u8 mode (0 zfp, 1 quant payload follows),
//   mode 0: f64 tolerance, u64 exception count, u64 zfp bytes, varint count,
//           exceptions (u64 index, raw T) in increasing index order,
//           zfp stream (no zfp header: the decoder rebuilds the parameters).
#include <zfp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "codec/bits.h"
#include "codec/codec.h"
#include "codec/qblock.h"

namespace adacomp {

extern const Codec kQuantCodec;

namespace {

constexpr uint8_t kModeZfp = 0, kModeQuant = 1;
constexpr size_t kHeader = 1 + 8 + 8 + 8;
constexpr int kTries = 3;        // tolerances eb, eb/4, eb/16
constexpr size_t kWordPad = 16;  // zfp reads whole 64-bit words

template <typename T>
constexpr zfp_type kZfpType = zfp_type_double;
template <>
constexpr zfp_type kZfpType<float> = zfp_type_float;

// Owns a zfp stream and field over one buffer; zfp's C API needs both.
struct Zfp {
  zfp_field* field;
  zfp_stream* zs;
  bitstream* bs = nullptr;
  template <typename T>
  Zfp(T* data, size_t n, double tol)
      : field(zfp_field_1d(data, kZfpType<T>, n)), zs(zfp_stream_open(nullptr)) {
    zfp_stream_set_accuracy(zs, tol);
  }
  ~Zfp() {
    if (bs) stream_close(bs);
    zfp_stream_close(zs);
    zfp_field_free(field);
  }
  void attach(void* buf, size_t bytes) {
    if (bs) stream_close(bs);
    bs = stream_open(buf, bytes);
    zfp_stream_set_bit_stream(zs, bs);
    zfp_stream_rewind(zs);
  }
  size_t max_size() const { return zfp_stream_maximum_size(zs, field); }
};

template <typename T>
long encode_t(const EncodeParams& p, const void* src, size_t src_bytes, void* dst, size_t cap) {
  if (src_bytes % sizeof(T)) return kCodecUnsupported;
  const double eb = p.abs_bound;
  if (!(eb > 0) || !std::isfinite(eb)) return kCodecUnsupported;
  size_t n = src_bytes / sizeof(T);
  if (cap < kHeader) return kCodecNoSpace;
  const T* x = static_cast<const T*>(src);
  auto* o = static_cast<uint8_t*>(dst);

  // Finite working copy; exceptions are written straight after the header.
  T* work = reinterpret_cast<T*>(bits::scratch(bits::kScratchA, src_bytes + 8));
  T* back = reinterpret_cast<T*>(bits::scratch(bits::kScratchB, src_bytes + 8));
  if (cap < kHeader + bits::varint_size(n)) return kCodecNoSpace;
  uint8_t* body = bits::put_varint(o + kHeader, n);
  bits::Writer w(body, static_cast<size_t>(o + cap - body));
  uint64_t nexc = 0;
  T prev = 0;
  for (size_t i = 0; i < n; ++i) {
    if (std::isfinite(x[i])) {
      prev = work[i] = x[i];
      continue;
    }
    work[i] = prev;
    uint64_t idx = i;
    if (!w.put(idx) || !w.put(x[i])) return kCodecNoSpace;
    ++nexc;
  }

  double tol = eb;
  for (int t = 0; t < kTries && n; ++t, tol /= 4) {
    Zfp enc(work, n, tol);
    // zfp does not stop at the end of its buffer: compress into scratch
    // sized by its own worst case, then copy what fits.
    size_t maxz = enc.max_size();
    uint8_t* zbuf = bits::scratch(bits::kScratchC, maxz);
    enc.attach(zbuf, maxz);
    size_t z = zfp_compress(enc.zs, enc.field);
    if (z == 0) return kCodecInternal;
    Zfp dec(back, n, tol);
    dec.attach(zbuf, z);
    if (zfp_decompress(dec.zs, dec.field) == 0) return kCodecInternal;
    bool ok = true;
    for (size_t i = 0; i < n; ++i)
      ok &= !std::isfinite(x[i]) ||
            std::fabs(static_cast<double>(back[i]) - static_cast<double>(x[i])) <= eb;
    if (!ok) continue;
    if (!w.put(zbuf, z)) return kCodecNoSpace;
    o[0] = kModeZfp;
    bits::store(o + 1, tol);
    bits::store<uint64_t>(o + 9, nexc);
    bits::store<uint64_t>(o + 17, z);
    return static_cast<long>(w.p - o);
  }
  if (n == 0) {
    o[0] = kModeZfp;
    bits::store(o + 1, eb);
    bits::store<uint64_t>(o + 9, 0);
    bits::store<uint64_t>(o + 17, 0);
    return static_cast<long>(w.p - o);
  }
  // ZFP cannot meet the bound on this input: fall back to quant.
  o[0] = kModeQuant;
  long r = kQuantCodec.encode(p, src, src_bytes, o + 1, cap - 1);
  return r < 0 ? r : r + 1;
}

template <typename T>
long decode_t(const void* src, size_t src_bytes, void* dst, size_t dst_bytes) {
  if (dst_bytes % sizeof(T)) return kCodecCorrupt;
  size_t n = dst_bytes / sizeof(T);
  bits::Reader r(src, src_bytes);
  uint8_t mode;
  if (!r.get(&mode)) return kCodecCorrupt;
  if (mode == kModeQuant)
    return kQuantCodec.decode(sizeof(T) == 8 ? ElemKind::f64 : ElemKind::f32, r.p, r.left(), dst,
                              dst_bytes);
  double tol;
  uint64_t nexc, z, count;
  if (mode != kModeZfp || !r.get(&tol) || !r.get(&nexc) || !r.get(&z) || !r.get_varint(&count) ||
      count != n)
    return kCodecCorrupt;
  if (!(tol > 0) || !std::isfinite(tol) || nexc > n) return kCodecCorrupt;
  const uint8_t* exc = r.take(nexc * (8 + sizeof(T)));
  const uint8_t* zsrc = r.take(z);
  if (!exc || !zsrc || r.left() != 0) return kCodecCorrupt;
  if (n == 0) return z == 0 ? 0 : kCodecCorrupt;

  T* out = static_cast<T*>(dst);
  Zfp dec(out, n, tol);
  // libzfp does not bound its reads by the stream length. Decode from a
  // zero-padded copy as large as the largest stream these parameters can
  // produce: whatever the bytes say, zfp cannot read past that.
  size_t maxz = dec.max_size();
  if (z > maxz) return kCodecCorrupt;
  size_t padded = (maxz + kWordPad) & ~size_t(7);
  uint8_t* buf = bits::scratch(bits::kScratchA, padded);
  std::memcpy(buf, zsrc, z);
  std::memset(buf + z, 0, padded - z);
  dec.attach(buf, padded);
  size_t used = zfp_decompress(dec.zs, dec.field);
  if (used == 0 || used != z) return kCodecCorrupt;
  if (!qblock::patch_outliers<T>(exc, nexc, out, n)) return kCodecCorrupt;
  return static_cast<long>(dst_bytes);
}

size_t zfp_max(size_t n) {
  // Exceptions plus a ZFP stream (below 2.1 bits per input bit for 1-D),
  // or the quant fallback.
  return std::max(kHeader + bits::kMaxVarint + 3 * n + 64, 1 + kQuantCodec.max_encoded(n));
}

}  // namespace

ADACOMP_FLOAT_CODEC(kZfpCodec, CodecId::zfp, "zfp", true, zfp_max);

}  // namespace adacomp
