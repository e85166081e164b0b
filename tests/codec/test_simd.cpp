// The SIMD codecs' AVX2 and portable paths: the same payload bytes from
// both encoders, and the same output from both decoders on either payload,
// on data that exercises every width (random bits: 64-bit residuals),
// outliers (NaN, Inf, huge values), the tail block and smooth fields. On a
// CPU without AVX2 only the portable path runs (and the test says so).
#include "test_util.h"

using namespace adacomp;
using test::Bytes;

namespace {

Bytes encode(const Codec& c, const EncodeParams& p, const Bytes& src, bool portable) {
  codec_force_portable(portable);
  Bytes out(c.max_encoded(src.size()));
  long r = c.encode(p, src.data(), src.size(), out.data(), out.size());
  codec_force_portable(false);
  CHECK(r >= 0, "%s encode (portable=%d) %ld", c.name, portable, r);
  out.resize(r < 0 ? 0 : static_cast<size_t>(r));
  return out;
}

Bytes decode(const Codec& c, ElemKind kind, const Bytes& enc, size_t n, bool portable) {
  codec_force_portable(portable);
  Bytes out(n, 0xEE);
  long r = c.decode(kind, enc.data(), enc.size(), out.data(), n);
  codec_force_portable(false);
  CHECK(r == static_cast<long>(n), "%s decode (portable=%d) %ld", c.name, portable, r);
  return out;
}

template <typename T>
void run(const char* name, const char* set, size_t n, double eb) {
  const Codec& c = *find_codec(name);
  EncodeParams p;
  p.kind = sizeof(T) == 8 ? ElemKind::f64 : ElemKind::f32;
  p.abs_bound = eb;
  std::vector<T> v = test::make<T>(set, n, 3);
  if (std::string(set) == "smooth")  // a few outliers inside blocks
    for (size_t i = 5; i < n; i += 997) v[i] = static_cast<T>(i % 2 ? 1e30 : NAN);
  const Bytes src = test::to_bytes(v);
  const Bytes a = encode(c, p, src, true), b = encode(c, p, src, false);
  CHECK(a == b, "%s/%s/n=%zu/%zu-byte: portable and AVX2 payloads differ (%zu vs %zu bytes)", name,
        set, n, sizeof(T), a.size(), b.size());
  const Bytes da = decode(c, p.kind, a, src.size(), true),
              db = decode(c, p.kind, a, src.size(), false);
  CHECK(da == db, "%s/%s/n=%zu: portable and AVX2 decodes differ", name, set, n);
  if (c.lossy)
    test::check_bound<T>(name, src, da, eb);
  else
    CHECK(da == src, "%s/%s/n=%zu not bit-exact", name, set, n);
}

}  // namespace

int main() {
  codec_force_portable(false);
  if (!codec_simd_active()) std::printf("codec_simd: no AVX2 on this CPU, portable path only\n");
  for (const char* name : {"bitplane", "quant_fast", "quant_zstd"})
    for (const char* set : {"random_bits", "random", "smooth", "special", "zeros"})
      for (size_t n : {size_t(1), size_t(31), size_t(32), size_t(95), size_t(4096), size_t(50001)})
        for (double eb : {1e-1, 1e-6}) {
          run<double>(name, set, n, eb);
          run<float>(name, set, n, eb);
        }
  return test::finish("codec_simd");
}
