// adacomp-bench-codes-hop: one ring hop of the lossy Allreduce SUM on one
// core, decode-add-encode (quant_fast: decode the incoming payload, add the
// floats, encode the sum) against add-on-codes (codec/quant_grid.h: add the
// incoming code payload to the codes, encode the codes), on the same data
// and the same final bound. Also the once-per-call stages of the codes
// path (quantise, decode + reconstruct). No MPI. JSON lines with --json.
//   adacomp-bench-codes-hop [FILE] [--type f64|f32] [--ranks P]
//       [--rel-bound R] [--min-time S] [--json]
// Without FILE: a smooth synthetic field of 1M values.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "codec/quant_grid.h"
#include "wire/code_payload.h"

namespace {

using namespace adacomp;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

template <typename F>
double median_time(F&& f, double min_time) {
  std::vector<double> t;
  const double start = now();
  while (t.size() < 5 || (now() - start < min_time && t.size() < 1001)) {
    const double a = now();
    f();
    t.push_back(now() - a);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <typename T>
int run(std::vector<T> a, int ranks, double rel, double min_time, bool json) {
  const size_t n = a.size(), bytes = n * sizeof(T);
  const ElemKind kind = sizeof(T) == 8 ? ElemKind::f64 : ElemKind::f32;
  std::vector<T> b(a);  // a second rank's input: the same field, shifted
  std::rotate(b.begin(), b.begin() + n / 3, b.end());
  double lo = INFINITY, hi = -INFINITY;
  for (T x : a) lo = std::fmin(lo, x), hi = std::fmax(hi, x);
  const double bound = rel * (hi - lo), max_abs = std::fmax(std::fabs(lo), std::fabs(hi));

  // Today's path: each of the P compressions (P-1 hops + allgather) gets bound/P.
  const Codec* qf = find_codec("quant_fast");
  EncodeParams p;
  p.kind = kind;
  p.abs_bound = bound / ranks;
  std::vector<uint8_t> in(qf->max_encoded(bytes)), out(qf->max_encoded(bytes));
  const long in_n = qf->encode(p, b.data(), bytes, in.data(), in.size());
  std::vector<T> acc(a), tmp(n);
  long out_n = 0;
  const double dae = median_time(
      [&] {
        qf->decode(kind, in.data(), in_n, tmp.data(), bytes);
        for (size_t i = 0; i < n; ++i) acc[i] = a[i] + tmp[i];
        out_n = qf->encode(p, acc.data(), bytes, out.data(), out.size());
      },
      min_time);

  // Codes path.
  int exp;
  if (!qgrid::choose_grid(bound, max_abs, ranks, kind, &exp)) {
    std::fprintf(stderr, "no grid for this bound and range\n");
    return 1;
  }
  std::vector<uint32_t> qa(n), qb(n), qacc(n);
  std::vector<uint8_t> cin(code_payload_capacity(n)), cout(code_payload_capacity(n));
  const double quantize =
      median_time([&] { qgrid::quantize(kind, a.data(), n, exp, qa.data()); }, min_time);
  qgrid::quantize(kind, b.data(), n, exp, qb.data());
  const size_t cin_n = write_code_payload(qb.data(), n, exp, false, cin.data());
  size_t cout_n = 0;
  const double aoc = median_time(
      [&] {
        std::memcpy(qacc.data(), qa.data(), n * 4);  // the hop adds into this rank's codes
        if (add_code_payload(cin.data(), cin_n, exp, qacc.data(), n) != kCodecOk) std::abort();
        cout_n = write_code_payload(qacc.data(), n, exp, false, cout.data());
      },
      min_time);
  const double finish = median_time(
      [&] {
        if (decode_code_payload(cout.data(), cout_n, exp, kind, tmp.data(), n) != kCodecOk)
          std::abort();
      },
      min_time);
  const double gb = bytes / 1e9;
  if (json) {
    std::printf(
        "{\"type\": \"%s\", \"values\": %zu, \"ranks\": %d, \"rel_bound\": %g, "
        "\"decode_add_encode_GBps\": %.3f, \"decode_add_encode_ratio\": %.3f, "
        "\"add_on_codes_GBps\": %.3f, \"add_on_codes_ratio\": %.3f, "
        "\"quantize_GBps\": %.3f, \"decode_reconstruct_GBps\": %.3f}\n",
        sizeof(T) == 8 ? "f64" : "f32", n, ranks, rel, gb / dae, double(bytes) / out_n, gb / aoc,
        double(bytes) / cout_n, gb / quantize, gb / finish);
  } else {
    std::printf("%zu %s values, P = %d, bound %g of the range\n", n, sizeof(T) == 8 ? "f64" : "f32",
                ranks, rel);
    std::printf("  per hop, decode-add-encode (quant_fast): %7.2f GB/s, ratio %.2f\n", gb / dae,
                double(bytes) / out_n);
    std::printf("  per hop, add on codes (quant_grid):      %7.2f GB/s, ratio %.2f (%.1fx)\n",
                gb / aoc, double(bytes) / cout_n, dae / aoc);
    std::printf("  once per call: quantise %.2f GB/s, decode + reconstruct %.2f GB/s\n",
                gb / quantize, gb / finish);
  }
  return 0;
}

template <typename T>
std::vector<T> load(const std::string& path) {
  std::vector<T> v;
  if (path.empty()) {
    v.resize(1 << 20);
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<T>(300 + 40 * std::sin(1e-4 * i) * std::cos(3e-5 * i));
    return v;
  }
  std::ifstream f(path, std::ios::binary);
  std::vector<char> raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  v.resize(raw.size() / sizeof(T));
  std::memcpy(v.data(), raw.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::string file, type = "f64";
  int ranks = 4;
  double rel = 1e-4, min_time = 0.3;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--type" && (v = next()))
      type = v;
    else if (a == "--ranks" && (v = next()))
      ranks = std::atoi(v);
    else if (a == "--rel-bound" && (v = next()))
      rel = std::atof(v);
    else if (a == "--min-time" && (v = next()))
      min_time = std::atof(v);
    else if (a == "--json")
      json = true;
    else if (a[0] != '-' && file.empty())
      file = a;
    else {
      std::fprintf(stderr,
                   "usage: adacomp-bench-codes-hop [FILE] [--type f64|f32] [--ranks P] "
                   "[--rel-bound R] [--min-time S] [--json]\n");
      return 2;
    }
  }
  if (ranks < 2 || !(rel > 0) || (type != "f64" && type != "f32")) {
    std::fprintf(stderr, "need --ranks >= 2, --rel-bound > 0, --type f64|f32\n");
    return 2;
  }
  if (type == "f32") {
    std::vector<float> v = load<float>(file);
    return v.size() < 3 ? 2 : run<float>(v, ranks, rel, min_time, json);
  }
  std::vector<double> v = load<double>(file);
  return v.size() < 3 ? 2 : run<double>(v, ranks, rel, min_time, json);
}
