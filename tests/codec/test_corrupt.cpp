// Malformed payloads: every prefix of a valid payload (truncation), wrong
// output sizes, and random byte corruption. Decoders must return an error
// for truncation and size mismatch, and must never crash or write outside
// dst on corruption (the buffers are guarded; run under ASan via fuzz/ for
// reads).
#include "test_util.h"

using namespace adacomp;
using test::Bytes;

namespace {

struct Case {
  const char* codec;
  ElemKind kind;
  CodecId inner;
};

void run(const Case& k, const char* set, size_t n) {
  const Codec* c = find_codec(k.codec);
  EncodeParams p;
  p.kind = k.kind;
  // truncate/to_f32 without a bound: N = 20 on every data set (their
  // payloads are the same under a bound).
  p.abs_bound = c->id == CodecId::truncate || c->id == CodecId::to_f32 ? 0 : 1e-3;
  p.truncate_bits = 20;
  p.lossy_inner = k.inner;
  Bytes src = k.kind == ElemKind::f32 ? test::to_bytes(test::make<float>(set, n))
                                      : test::to_bytes(test::make<double>(set, n));
  Bytes enc(c->max_encoded(src.size()));
  long len = c->encode(p, src.data(), src.size(), enc.data(), enc.size());
  CHECK(len > 0, "%s/%s encode %ld", k.codec, set, len);
  if (len <= 0) return;
  enc.resize(len);
  const size_t guard = 32;
  Bytes dst(src.size() + 2 * guard);
  auto decode = [&](const Bytes& in, size_t in_len, size_t out_len) {
    std::fill(dst.begin(), dst.end(), 0x5A);
    if (out_len > src.size()) dst.resize(out_len + 2 * guard, 0x5A);
    // Copy to an exactly sized heap buffer so ASan sees over-reads.
    Bytes exact(in.begin(), in.begin() + in_len);
    long r = c->decode(k.kind, exact.data(), exact.size(), dst.data() + guard, out_len);
    for (size_t i = 0; i < guard; ++i)
      CHECK(dst[i] == 0x5A && dst[guard + out_len + i] == 0x5A, "%s wrote outside dst", k.codec);
    return r;
  };
  CHECK(decode(enc, enc.size(), src.size()) == static_cast<long>(src.size()), "%s valid payload",
        k.codec);
  // Every strict prefix is rejected.
  for (size_t cut = 0; cut < enc.size(); cut += 1 + cut / 64)
    CHECK(decode(enc, cut, src.size()) < 0, "%s/%s n=%zu: prefix %zu of %zu accepted", k.codec, set,
          n, cut, enc.size());
  // Wrong expected sizes are rejected.
  const size_t esize = k.kind == ElemKind::f64 ? 8 : 4;
  for (size_t out : {src.size() + esize, src.size() ? src.size() - esize : esize, src.size() + 1})
    CHECK(decode(enc, enc.size(), out) < 0, "%s/%s: dst %zu (real %zu) accepted", k.codec, set, out,
          src.size());
  // Corruption: flipped bytes, mostly in the first bytes (headers).
  std::mt19937 rng(7);
  for (int t = 0; t < 300; ++t) {
    Bytes bad = enc;
    size_t pos = t < 150 ? rng() % std::min<size_t>(bad.size(), 48) : rng() % bad.size();
    bad[pos] ^= static_cast<uint8_t>(1 + rng() % 255);
    if (t % 3 == 0) bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
    long r = decode(bad, bad.size(), src.size());
    CHECK(r < 0 || r == static_cast<long>(src.size()), "%s corrupt: odd return %ld", k.codec, r);
  }
}

}  // namespace

int main() {
  const Case cases[] = {
      {"zstd", ElemKind::f64, CodecId::stored},
      {"lz4", ElemKind::f64, CodecId::stored},
      {"blosc", ElemKind::f64, CodecId::stored},
      {"fpc", ElemKind::f64, CodecId::stored},
      {"fpc", ElemKind::f32, CodecId::stored},
      {"quant", ElemKind::f64, CodecId::stored},
      {"quant", ElemKind::f32, CodecId::stored},
      {"zfp", ElemKind::f64, CodecId::stored},
      {"zfp", ElemKind::f32, CodecId::stored},
      {"truncate", ElemKind::f64, CodecId::stored},
      {"truncate", ElemKind::f32, CodecId::fpc},
      {"truncate", ElemKind::f64, CodecId::blosc},
      {"to_f32", ElemKind::f64, CodecId::stored},
      {"to_f32", ElemKind::f64, CodecId::fpc},
      {"bitplane", ElemKind::f64, CodecId::stored},
      {"bitplane", ElemKind::f32, CodecId::stored},
      {"quant_fast", ElemKind::f64, CodecId::stored},
      {"quant_fast", ElemKind::f32, CodecId::stored},
      {"quant_zstd", ElemKind::f64, CodecId::stored},
      {"quant_zstd", ElemKind::f32, CodecId::stored},
  };
  for (const Case& k : cases)
    for (const char* set : {"smooth", "special", "random"})
      for (size_t n : {size_t(1), size_t(77), size_t(5000)}) {
        if (std::string(k.codec) == "to_f32" && std::string(set) == "special") continue;
        run(k, set, n);
      }
  return test::finish("codec_corrupt");
}
