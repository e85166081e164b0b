// Round trips of every codec on synthetic data: random bits (NaN/Inf
// included), smooth, constant, zeros and special values (NaN payloads,
// +-Inf, -0.0, denormals, extremes), at sizes 0, 1, odd and large.
// Lossless codecs must be bit-exact; quant/zfp must hold the bound;
// truncate/to_f32 must hold their documented relative error.
#include <cfloat>

#include "test_util.h"

using namespace adacomp;
using test::Bytes;

namespace {

const size_t kSizes[] = {0, 1, 2, 3, 7, 31, 32, 33, 64, 1001, 100003};
const char* const kSets[] = {"random_bits", "random", "smooth", "constant", "zeros", "special"};

template <typename T>
ElemKind kind_of() {
  return sizeof(T) == 8 ? ElemKind::f64 : ElemKind::f32;
}

template <typename T>
void lossless(const char* name, int fpc_bits) {
  const Codec* c = find_codec(name);
  CHECK(c && !c->lossy, "codec %s missing", name);
  if (!c) return;
  EncodeParams p;
  p.kind = kind_of<T>();
  p.fpc_table_bits = fpc_bits;
  for (const char* set : kSets)
    for (size_t n : kSizes) {
      Bytes src = test::to_bytes(test::make<T>(set, n));
      auto r = test::round_trip(*c, p, src);
      CHECK(r.enc >= 0, "%s/%s n=%zu encode %ld", name, set, n, r.enc);
      if (r.enc < 0) continue;
      CHECK(r.dec == static_cast<long>(src.size()), "%s/%s n=%zu decode %ld", name, set, n, r.dec);
      CHECK(r.out == src, "%s/%s n=%zu (%zu-byte values) not bit-exact", name, set, n, sizeof(T));
      // Incompressible input: at most 1% larger (one head byte per block).
      if (std::string(name) == "bitplane" && std::string(set) == "random_bits" && n >= 1001)
        CHECK(r.enc <= static_cast<long>(src.size() * 1.01), "bitplane on random bits: %ld of %zu",
              r.enc, src.size());
      // The frame layer gives capacity src-1 and sends stored on failure:
      // either a valid shorter payload or kCodecNoSpace, never an overrun.
      if (!src.empty()) {
        auto s = test::round_trip(*c, p, src, src.size() - 1);
        CHECK(s.enc == kCodecNoSpace || (s.enc >= 0 && s.out == src),
              "%s/%s n=%zu cap=src-1 gave %ld", name, set, n, s.enc);
      }
      for (size_t cap : {size_t(0), size_t(3), size_t(9)}) {
        auto s = test::round_trip(*c, p, src, cap);
        CHECK(s.enc < 0 || s.out == src, "%s/%s n=%zu cap=%zu", name, set, n, cap);
      }
    }
}

template <typename T>
void bounded(const char* name) {
  const Codec* c = find_codec(name);
  EncodeParams p;
  p.kind = kind_of<T>();
  for (const char* set : kSets)
    for (size_t n : kSizes)
      for (double eb : {1e-2, 1e-5, 1e-9}) {
        p.abs_bound = eb;
        Bytes src = test::to_bytes(test::make<T>(set, n));
        auto r = test::round_trip(*c, p, src);
        CHECK(r.enc >= 0, "%s/%s n=%zu eb=%g encode %ld", name, set, n, eb, r.enc);
        if (r.enc < 0) continue;
        CHECK(r.dec == static_cast<long>(src.size()), "%s/%s decode %ld", name, set, r.dec);
        std::string what = std::string(name) + "/" + set + "/n=" + std::to_string(n);
        test::check_bound<T>(what.c_str(), src, r.out, eb);
        auto s = test::round_trip(*c, p, src, src.size() ? src.size() - 1 : 0);
        if (s.enc >= 0) test::check_bound<T>((what + "/cap").c_str(), src, s.out, eb);
      }
  // Values on and next to bin edges, where rounding decides the bin.
  for (double eb : {0.1, 1.0 / 3, 1e-7}) {
    std::vector<T> v;
    for (int i = -2000; i < 2000; ++i) {
      T x = static_cast<T>((i + 0.5) * 2 * eb);
      v.push_back(x);
      v.push_back(std::nextafter(x, T(1e30)));
      v.push_back(std::nextafter(x, T(-1e30)));
    }
    p.abs_bound = eb;
    Bytes src = test::to_bytes(v);
    auto r = test::round_trip(*c, p, src);
    CHECK(r.enc >= 0, "%s bin edges eb=%g encode %ld", name, eb, r.enc);
    if (r.enc >= 0) test::check_bound<T>(name, src, r.out, eb);
  }
  // Invalid bounds are refused, not guessed.
  Bytes src = test::to_bytes(test::make<T>("smooth", 100));
  for (double eb : {0.0, -1.0, std::nan(""), double(INFINITY)}) {
    p.abs_bound = eb;
    CHECK(test::round_trip(*c, p, src).enc == kCodecUnsupported, "%s accepted eb=%g", name, eb);
  }
}

// Relative error of rounding to `bits` significant bits for values of at
// least normal_min; absolute error tiny_abs below.
template <typename T>
void check_relative(const char* what, const Bytes& src, const Bytes& out, int sig_bits,
                    double normal_min, double tiny_abs) {
  size_t n = src.size() / sizeof(T);
  for (size_t i = 0; i < n; ++i) {
    double a = test::at<T>(src, i), b = test::at<T>(out, i);
    if (std::isnan(a)) {
      CHECK(std::isnan(b), "%s: NaN %zu lost", what, i);
    } else if (std::isinf(a)) {
      CHECK(a == b, "%s: Inf %zu changed", what, i);
    } else if (std::fabs(a) >= normal_min) {
      double rel = std::fabs(a - b) / std::fabs(a);
      CHECK(rel <= std::ldexp(1.0, -sig_bits), "%s: value %zu (%.17g -> %.17g) rel err %g > 2^-%d",
            what, i, a, b, rel, sig_bits);
    } else {
      CHECK(std::fabs(a - b) <= tiny_abs, "%s: subnormal %zu err %g", what, i, std::fabs(a - b));
    }
  }
}

template <typename T>
void truncation() {
  const Codec* c = find_codec("truncate");
  constexpr int kMant = sizeof(T) == 8 ? 52 : 23;
  EncodeParams p;
  p.kind = kind_of<T>();
  for (int bits : {1, 8, 13, kMant / 2, kMant - 1})
    for (CodecId inner :
         {CodecId::stored, CodecId::blosc, CodecId::zstd, CodecId::lz4, CodecId::fpc})
      for (const char* set : kSets)
        for (size_t n : {size_t(0), size_t(1), size_t(7), size_t(1001)}) {
          p.truncate_bits = bits;
          p.lossy_inner = inner;
          Bytes src = test::to_bytes(test::make<T>(set, n));
          auto r = test::round_trip(*c, p, src);
          CHECK(r.enc >= 0, "truncate N=%d inner=%d %s n=%zu: %ld", bits, int(inner), set, n,
                r.enc);
          if (r.enc < 0) continue;
          CHECK(r.dec == static_cast<long>(src.size()), "truncate decode %ld", r.dec);
          // Round to nearest with N bits dropped: rel err <= 2^(N-1-mant).
          std::string what = "truncate/" + std::to_string(bits) + "/" + set;
          check_relative<T>(what.c_str(), src, r.out, kMant + 1 - bits,
                            std::numeric_limits<T>::min(),
                            std::ldexp(std::numeric_limits<T>::denorm_min(), bits - 1));
          if (inner == CodecId::stored && n)
            CHECK(static_cast<size_t>(r.enc) == 2 + (n * (8 * sizeof(T) - bits) + 7) / 8 + 8,
                  "truncate packed size %ld", r.enc);
        }
  Bytes src = test::to_bytes(test::make<T>("smooth", 100));
  for (int bits : {0, -3, kMant, 64}) {
    p.truncate_bits = bits;
    p.lossy_inner = CodecId::stored;
    CHECK(test::round_trip(*c, p, src).enc == kCodecUnsupported, "truncate accepted N=%d", bits);
  }
  p.truncate_bits = 8;
  for (CodecId inner : {CodecId::quant, CodecId::truncate, CodecId::to_f32, CodecId(99)}) {
    p.lossy_inner = inner;
    CHECK(test::round_trip(*c, p, src).enc == kCodecUnsupported, "truncate accepted inner %d",
          int(inner));
  }
}

void to_f32() {
  const Codec* c = find_codec("to_f32");
  EncodeParams p;
  p.kind = ElemKind::f64;
  for (CodecId inner : {CodecId::stored, CodecId::fpc, CodecId::blosc, CodecId::zstd})
    for (const char* set : {"random", "smooth", "constant", "zeros"})
      for (size_t n : kSizes) {
        p.lossy_inner = inner;
        std::vector<double> v = test::make<double>(set, n);
        // Float-range specials: NaN, Inf, -0.0, values that become subnormal.
        if (n > 10) v[1] = NAN, v[2] = -INFINITY, v[3] = -0.0, v[4] = 1e-40, v[5] = FLT_MAX;
        Bytes src = test::to_bytes(v);
        auto r = test::round_trip(*c, p, src);
        CHECK(r.enc >= 0, "to_f32 inner=%d %s n=%zu: %ld", int(inner), set, n, r.enc);
        if (r.enc < 0) continue;
        CHECK(r.dec == static_cast<long>(src.size()), "to_f32 decode %ld", r.dec);
        // Below FLT_MIN floats are subnormal: absolute error <= 2^-150.
        check_relative<double>("to_f32", src, r.out, 24, FLT_MIN, std::ldexp(1.0, -150));
      }
  // Finite values beyond the float range are refused (sent stored).
  std::vector<double> v = test::make<double>("smooth", 50);
  v[7] = 1e39;
  p.lossy_inner = CodecId::stored;
  CHECK(test::round_trip(*c, p, test::to_bytes(v)).enc == kCodecUnsupported,
        "to_f32 accepted 1e39");
  p.kind = ElemKind::f32;
  CHECK(test::round_trip(*c, p, test::to_bytes(test::make<float>("smooth", 8))).enc ==
            kCodecUnsupported,
        "to_f32 accepted f32 input");
}

// truncate and to_f32 under an absolute bound (selected as the lossy
// codec): every element within eb, NaN and Inf bit-exact, or the message
// refused (kCodecUnsupported, sent stored by the frame layer).
template <typename T>
void truncation_bounded(const char* name) {
  const Codec* c = find_codec(name);
  EncodeParams p;
  p.kind = kind_of<T>();
  p.truncate_bits = 3;  // ignored under a bound
  int accepted = 0;
  for (const char* set : kSets)
    for (size_t n : {size_t(1), size_t(33), size_t(1001)})
      for (double eb : {1e-1, 1e-4, 1e-9, 1e-300}) {
        p.abs_bound = eb;
        std::vector<T> v = test::make<T>(set, n);
        if (n > 10)
          v[3] = std::numeric_limits<T>::quiet_NaN(), v[4] = -std::numeric_limits<T>::infinity();
        Bytes src = test::to_bytes(v);
        auto r = test::round_trip(*c, p, src);
        CHECK(r.enc >= 0 || r.enc == kCodecUnsupported, "%s/%s eb=%g: %ld", name, set, eb, r.enc);
        if (r.enc < 0) continue;
        ++accepted;
        CHECK(r.dec == static_cast<long>(src.size()), "%s decode %ld", name, r.dec);
        std::string what = std::string(name) + "/bounded/" + set;
        test::check_bound<T>(what.c_str(), src, r.out, eb);
      }
  CHECK(accepted > 10, "%s accepted only %d bounded messages", name, accepted);
  // Smooth values of magnitude ~100 at eb = 1e-2: the bound allows dropping
  // most of the mantissa, and the bit-packed payload shows it.
  p.abs_bound = 1e-2;
  p.lossy_inner = CodecId::stored;
  Bytes src = test::to_bytes(test::make<T>("smooth", 1000));
  auto r = test::round_trip(*c, p, src);
  CHECK(r.enc > 0 && static_cast<size_t>(r.enc) < src.size() * 3 / 4,
        "%s bounded smooth: %ld of %zu", name, r.enc, src.size());
  // A NaN payload in the bits that would be dropped refuses the message.
  std::vector<T> v = test::make<T>("smooth", 100);
  v[50] = test::from_bits<T>(sizeof(T) == 8 ? 0x7FF8000000000001ull : 0x7FC00001u);
  CHECK(test::round_trip(*c, p, test::to_bytes(v)).enc == kCodecUnsupported,
        "%s dropped a NaN payload under a bound", name);
}

void registry() {
  for (const char* name : {"stored", "zstd", "lz4", "fpc", "blosc", "quant", "zfp", "truncate",
                           "to_f32", "bitplane", "quant_fast", "quant_zstd"}) {
    const Codec* c = find_codec(name);
    CHECK(c != nullptr, "codec %s not registered", name);
    if (c) CHECK(find_codec(c->id) == c, "codec %s id lookup", name);
  }
  // Float codecs refuse byte payloads; decoders refuse them too.
  for (const char* name :
       {"fpc", "quant", "zfp", "truncate", "to_f32", "bitplane", "quant_fast", "quant_zstd"}) {
    const Codec* c = find_codec(name);
    EncodeParams p;
    p.kind = ElemKind::bytes;
    p.abs_bound = 1;
    Bytes src(64, 1), dst(c->max_encoded(64));
    CHECK(c->float_only, "%s not float_only", name);
    CHECK(c->encode(p, src.data(), src.size(), dst.data(), dst.size()) == kCodecUnsupported,
          "%s encoded bytes", name);
  }
}

}  // namespace

int main() {
  registry();
  for (const char* name : {"stored", "zstd", "lz4", "blosc", "fpc", "bitplane"}) {
    lossless<double>(name, 10);
    lossless<float>(name, 10);
  }
  for (int bits : {6, 16, 99, -1}) lossless<double>("fpc", bits);
  bounded<double>("quant");
  bounded<float>("quant");
  bounded<double>("zfp");
  bounded<float>("zfp");
  for (const char* name : {"quant_fast", "quant_zstd"}) {
    bounded<double>(name);
    bounded<float>(name);
  }
  truncation<double>();
  truncation<float>();
  to_f32();
  truncation_bounded<double>("truncate");
  truncation_bounded<float>("truncate");
  truncation_bounded<double>("to_f32");
  return test::finish("codec_roundtrip");
}
