// Shared-grid quantisation for reductions on codes (codec/quant_grid.h) and
// its code payload (wire/code_payload.h), without MPI: P inputs quantised
// once, their payloads added as codes, the sum decoded once, must stay
// within the bound of the exact sum; the grid refuses what could overflow
// the int32 codes; portable and AVX2 payloads are identical; malformed
// payloads are refused untouched.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "codec/quant_grid.h"
#include "test_util.h"
#include "wire/code_payload.h"

namespace {

using adacomp::add_code_payload;
using adacomp::decode_code_payload;
using test::Bytes;

template <typename T>
constexpr adacomp::ElemKind kind_of() {
  return sizeof(T) == 8 ? adacomp::ElemKind::f64 : adacomp::ElemKind::f32;
}

Bytes payload(const std::vector<uint32_t>& q, int exp, bool entropy = false) {
  Bytes b(adacomp::code_payload_capacity(q.size()));
  b.resize(adacomp::write_code_payload(q.data(), q.size(), exp, entropy, b.data()));
  return b;
}

// P inputs reduced as the ring does: codes of input 0, then each other
// input's payload added; the sum travels as one more payload and is decoded.
template <typename T>
void reduce_case(const char* what, const std::vector<std::vector<T>>& in, double bound) {
  namespace qg = adacomp::qgrid;
  const size_t n = in[0].size();
  const int p = static_cast<int>(in.size());
  double max_abs = 0;
  for (const auto& v : in)
    for (T x : v) max_abs = std::fmax(max_abs, std::fabs(static_cast<double>(x)));
  int exp;
  if (!qg::choose_grid(bound, max_abs, p, kind_of<T>(), &exp)) {
    CHECK(false, "%s: no grid for bound %g, max %g, P %d", what, bound, max_abs, p);
    return;
  }
  std::vector<uint32_t> acc(n), q(n), direct(n, 0);
  for (int r = 0; r < p; ++r) {
    qg::quantize(kind_of<T>(), in[r].data(), n, exp, q.data());
    for (size_t i = 0; i < n; ++i) direct[i] += q[i];
    if (r == 0) {
      acc = q;
      continue;
    }
    const Bytes b = payload(q, exp, r % 2);  // both forms
    CHECK(add_code_payload(b.data(), b.size(), exp, acc.data(), n) == adacomp::kCodecOk, "%s: add",
          what);
  }
  CHECK(acc == direct, "%s: payload addition differs from integer addition", what);
  const Bytes sum = payload(acc, exp, true);
  std::vector<uint32_t> back(n, 0);  // the codes: the payload added to zeros
  CHECK(add_code_payload(sum.data(), sum.size(), exp, back.data(), n) == adacomp::kCodecOk,
        "%s: decode", what);
  CHECK(back == acc, "%s: codes do not round-trip", what);
  std::vector<T> out(n);
  qg::reconstruct(kind_of<T>(), back.data(), n, exp, out.data());
  size_t bad = 0;
  double worst = 0;
  for (size_t i = 0; i < n; ++i) {
    long double exact = 0;
    for (int r = 0; r < p; ++r) exact += in[r][i];
    const double err = static_cast<double>(std::fabs(static_cast<long double>(out[i]) - exact));
    worst = std::fmax(worst, err);
    bad += !(err <= bound);
  }
  CHECK(bad == 0, "%s: %zu of %zu beyond %g (worst %g)", what, bad, n, bound, worst);
}

template <typename T>
std::vector<std::vector<T>> inputs(int p, size_t n, int pattern, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<std::vector<T>> in(p, std::vector<T>(n));
  for (int r = 0; r < p; ++r)
    for (size_t i = 0; i < n; ++i) {
      const double x = 1e-3 * static_cast<double>(i);
      double v;
      switch (pattern) {
        case 0:
          v = 300 + 40 * std::sin(3 * x + r) + 0.01 * u(rng);
          break;  // smooth
        case 1:
          v = 1e3 * u(rng);
          break;  // noise
        case 2:
          v = (i % 3 ? -0.0 : std::numeric_limits<T>::denorm_min() * (r + 1));
          break;
        default:
          v = ((i + r) % 2 ? 1 : -1) * (sizeof(T) == 8 ? 1e4 : 1e3);  // extremes
      }
      in[r][i] = static_cast<T>(v);
    }
  return in;
}

template <typename T>
void bounds() {
  const char* t = sizeof(T) == 8 ? "f64" : "f32";
  for (int p : {1, 2, 3, 5, 8})
    for (size_t n : {size_t(0), size_t(1), size_t(31), size_t(32), size_t(33), size_t(1001)})
      for (int pattern = 0; pattern < 4; ++pattern)
        for (double bound : {1e-1, 1e-3}) {
          std::string what = std::string(t) + " P" + std::to_string(p) + " n" + std::to_string(n) +
                             " pattern" + std::to_string(pattern);
          reduce_case<T>(what.c_str(), inputs<T>(p, n, pattern, 7 * p + n), bound);
        }
}

void grid_choice() {
  namespace qg = adacomp::qgrid;
  using adacomp::ElemKind;
  int e = 0;
  CHECK(qg::choose_grid(1e-3, 100, 4, ElemKind::f64, &e), "plain case");
  CHECK(4 * std::ldexp(1.0, e) / 2 <= 1e-3 && 4 * std::ldexp(1.0, e + 1) / 2 > 1e-3,
        "step is the largest power of two within the budget (exp %d)", e);
  CHECK(!qg::choose_grid(0, 100, 4, ElemKind::f64, &e), "zero bound");
  CHECK(!qg::choose_grid(NAN, 100, 4, ElemKind::f64, &e), "NaN bound");
  CHECK(!qg::choose_grid(INFINITY, 100, 4, ElemKind::f64, &e), "infinite bound");
  CHECK(!qg::choose_grid(1e-3, INFINITY, 4, ElemKind::f64, &e), "infinite range");
  CHECK(!qg::choose_grid(1e-3, 100, 4, ElemKind::bytes, &e), "bytes");
  // Overflow: P (max/s + 1) must stay below 2^31.
  CHECK(!qg::choose_grid(1e-6, 1e9, 8, ElemKind::f64, &e), "codes would overflow int32");
  CHECK(qg::choose_grid(1e-6, 1e-1, 8, ElemKind::f64, &e), "small values fit");
  // Float: the result's own rounding (2^-24 of P max) must leave room.
  CHECK(!qg::choose_grid(1e-3, 1e5, 8, ElemKind::f32, &e), "float rounding exceeds the bound");
  CHECK(!qg::choose_grid(1e30, FLT_MAX, 8, ElemKind::f32, &e), "float sum out of range");
  CHECK(!qg::choose_grid(1e-310, 0, 2, ElemKind::f64, &e), "grid below the normal range");
  // At the edge of the code range every input at +-max: no wraparound.
  for (int p : {2, 8}) {
    const double max_abs = 1e6;
    double bound = 1.0;
    while (qg::choose_grid(bound / 2, max_abs, p, ElemKind::f64, &e)) bound /= 2;
    CHECK(qg::choose_grid(bound, max_abs, p, ElemKind::f64, &e), "edge grid");
    CHECK(p * (max_abs / std::ldexp(1.0, e) + 1) > std::ldexp(1.0, 29),
          "edge grid uses the code range (exp %d)", e);
    for (double sign : {1.0, -1.0}) {
      std::vector<std::vector<double>> in(p, std::vector<double>(100, sign * max_abs));
      reduce_case<double>("code range edge", in, bound);
    }
  }
}

void portable_same_bytes() {
#if defined(__x86_64__)
  namespace qg = adacomp::qgrid;
  auto in = inputs<double>(1, 1001, 0, 3)[0];
  in[500] = 1e3;  // a wide block
  int e;
  CHECK(qg::choose_grid(1e-4, 1e3, 4, adacomp::ElemKind::f64, &e), "grid");
  std::vector<uint32_t> q(in.size());
  qg::quantize(adacomp::ElemKind::f64, in.data(), in.size(), e, q.data());
  adacomp::codec_force_portable(true);
  const Bytes a = payload(q, e);
  std::vector<uint32_t> back(q.size());
  CHECK(add_code_payload(a.data(), a.size(), e, back.data(), q.size()) == adacomp::kCodecOk &&
            back == q,
        "portable decode");
  adacomp::codec_force_portable(false);
  const Bytes b = payload(q, e);
  CHECK(a == b, "portable and SIMD payloads differ");
  std::fill(back.begin(), back.end(), 0);
  CHECK(add_code_payload(a.data(), a.size(), e, back.data(), q.size()) == adacomp::kCodecOk &&
            back == q,
        "SIMD decode of a portable payload");
#endif
}

// The range scan for the call's agreement: every length's tail, NaN and Inf
// anywhere, no finite value at all; the AVX2 and portable scans, quantize
// and reconstruct agree.
template <typename T>
void finite_range_case() {
  namespace qg = adacomp::qgrid;
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  for (size_t n : {0, 1, 3, 7, 8, 9, 17, 1000}) {
    std::vector<T> x(n);
    for (size_t i = 0; i < n; ++i) x[i] = static_cast<T>((i % 7) - 3.25 + 0.01 * i);
    for (size_t special = 0; special <= n + 1; special += n / 4 + 1) {
      for (T odd : {T(0), inf, -inf, nan}) {
        std::vector<T> v(x);
        if (special < n && odd != 0) v[special] = odd;
        T lo = std::numeric_limits<T>::max(), hi = std::numeric_limits<T>::lowest();
        bool bad = false;
        for (T e : v) {
          if (!std::isfinite(e)) {
            bad = true;
            continue;
          }
          lo = std::min(lo, e), hi = std::max(hi, e);
        }
        for (bool portable : {true, false}) {
          adacomp::codec_force_portable(portable);
          double l, h;
          const bool got = qg::finite_range(kind_of<T>(), v.data(), n, &l, &h);
          CHECK(got == bad && l == lo && h == hi,
                "finite_range n %zu at %zu (%g) portable %d: %d [%g, %g], want %d [%g, %g]", n,
                special, double(odd), portable, got, l, h, bad, double(lo), double(hi));
        }
      }
    }
  }
  auto in = inputs<T>(1, 1003, 0, 5)[0];
  std::vector<uint32_t> q[2];
  std::vector<T> back[2];
  for (int portable : {0, 1}) {
    adacomp::codec_force_portable(portable);
    q[portable].resize(in.size());
    back[portable].resize(in.size());
    qg::quantize(kind_of<T>(), in.data(), in.size(), -12, q[portable].data());
    qg::reconstruct(kind_of<T>(), q[portable].data(), in.size(), -12, back[portable].data());
  }
  CHECK(q[0] == q[1] && back[0] == back[1], "portable and SIMD quantize/reconstruct differ");
  // Decoding a payload straight to values gives reconstruct's values.
  const Bytes b = payload(q[0], -12);
  for (int portable : {0, 1}) {
    adacomp::codec_force_portable(portable);
    std::vector<T> direct(in.size(), T(7));
    CHECK(decode_code_payload(b.data(), b.size(), -12, kind_of<T>(), direct.data(), in.size()) ==
                  adacomp::kCodecOk &&
              direct == back[0],
          "decode_values differs from reconstruct (portable %d)", portable);
    std::vector<T> untouched(direct);
    CHECK(decode_code_payload(b.data(), b.size() - 1, -12, kind_of<T>(), direct.data(),
                              in.size()) == adacomp::kCodecCorrupt &&
              direct == untouched,
          "decode_values accepted a cut payload or wrote its output");
  }
  adacomp::codec_force_portable(false);
}

// The entropy form: smaller than the planes on a smooth field, the same
// codes back; the planes where zstd cannot win (random codes).
void entropy_form() {
  namespace qg = adacomp::qgrid;
  std::vector<uint32_t> smooth(5000), noise(5000);
  for (size_t i = 0; i < smooth.size(); ++i) {
    smooth[i] = static_cast<uint32_t>(static_cast<int32_t>(3000 * std::sin(i * 0.003)));
    noise[i] = static_cast<uint32_t>(i * 2654435761u);
  }
  for (const auto* q : {&smooth, &noise}) {
    const Bytes planes = payload(*q, -9), packed = payload(*q, -9, true);
    CHECK(packed.size() <= planes.size(), "entropy form larger: %zu > %zu", packed.size(),
          planes.size());
    std::vector<uint32_t> back(q->size());
    CHECK(add_code_payload(packed.data(), packed.size(), -9, back.data(), q->size()) ==
                  adacomp::kCodecOk &&
              back == *q,
          "entropy form does not round-trip");
  }
  const Bytes planes = payload(smooth, -9), packed = payload(smooth, -9, true);
  CHECK(packed.size() * 5 < planes.size() * 4,
        "entropy form gains < 20%% on a smooth field "
        "(%zu against %zu bytes)",
        packed.size(), planes.size());
  CHECK(packed[0] == 2 && planes[0] == 1, "forms %d and %d", packed[0], planes[0]);
  std::vector<uint32_t> acc(smooth.size(), 3), same(acc);
  for (size_t cut = 0; cut < packed.size(); cut += 1 + cut / 16)
    CHECK(
        add_code_payload(packed.data(), cut, -9, acc.data(), acc.size()) == adacomp::kCodecCorrupt,
        "entropy prefix %zu accepted", cut);
  Bytes flipped(packed);
  flipped[flipped.size() / 2] ^= 0x10;
  const long rc = add_code_payload(flipped.data(), flipped.size(), -9, acc.data(), acc.size());
  CHECK(rc == adacomp::kCodecCorrupt || rc == adacomp::kCodecOk, "flipped frame: %ld", rc);
  if (rc == adacomp::kCodecCorrupt) CHECK(acc == same, "a refused entropy payload changed codes");
}

void corrupt() {
  namespace qg = adacomp::qgrid;
  std::vector<uint32_t> q(100);
  for (size_t i = 0; i < q.size(); ++i) q[i] = static_cast<uint32_t>(i * i);
  const Bytes b = payload(q, -10);
  std::vector<uint32_t> acc(q.size(), 7), same(acc);
  for (size_t cut = 0; cut < b.size(); ++cut)
    CHECK(add_code_payload(b.data(), cut, -10, acc.data(), q.size()) == adacomp::kCodecCorrupt,
          "prefix %zu accepted", cut);
  Bytes longer(b);
  longer.push_back(0);
  CHECK(add_code_payload(longer.data(), longer.size(), -10, acc.data(), q.size()) ==
            adacomp::kCodecCorrupt,
        "trailing byte accepted");
  CHECK(add_code_payload(b.data(), b.size(), -9, acc.data(), q.size()) == adacomp::kCodecCorrupt,
        "other grid accepted");
  CHECK(
      add_code_payload(b.data(), b.size(), -10, acc.data(), q.size() - 1) == adacomp::kCodecCorrupt,
      "other count accepted");
  Bytes wide(b);
  wide[4] = 33;  // first head byte (after u8, i16, varint 100): width 33
  CHECK(add_code_payload(wide.data(), wide.size(), -10, acc.data(), q.size()) ==
            adacomp::kCodecCorrupt,
        "width 33 accepted");
  CHECK(acc == same, "a refused payload changed the codes");
}

}  // namespace

int main() {
  grid_choice();
  bounds<double>();
  bounds<float>();
  portable_same_bytes();
  finite_range_case<double>();
  finite_range_case<float>();
  entropy_form();
  corrupt();
  return test::finish("codec_quant_grid");
}
