// Every codec on the committed data files (data/, from data/gen_data.py):
// lossless bit-exact, quant/zfp within absolute bounds derived from the
// file's value range (relative 1e-2, 1e-4, 1e-6), and the lossless float
// codec at least breaking even on the smooth fields.
#include <algorithm>
#include <fstream>
#include <iterator>

#include "test_util.h"

using namespace adacomp;
using test::Bytes;

namespace {

Bytes read_file(const std::string& name) {
  std::ifstream in(std::string(ADACOMP_DATA_DIR) + "/" + name, std::ios::binary);
  CHECK(in.good(), "cannot open data file %s", name.c_str());
  return Bytes((std::istreambuf_iterator<char>(in)), {});
}

template <typename T>
void run(const std::string& file) {
  Bytes src = read_file(file);
  if (src.empty()) return;
  const ElemKind kind = sizeof(T) == 8 ? ElemKind::f64 : ElemKind::f32;
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < src.size() / sizeof(T); ++i) {
    double x = test::at<T>(src, i);
    lo = std::min(lo, x), hi = std::max(hi, x);
  }
  EncodeParams p;
  p.kind = kind;
  double fpc_ratio = 0;
  for (const char* name : {"zstd", "lz4", "blosc", "fpc", "bitplane"}) {
    auto r = test::round_trip(*find_codec(name), p, src);
    CHECK(r.enc > 0 && r.dec == static_cast<long>(src.size()) && r.out == src,
          "%s on %s: enc %ld dec %ld, not bit-exact", name, file.c_str(), r.enc, r.dec);
    const double ratio = r.enc > 0 ? static_cast<double>(src.size()) / r.enc : 0;
    if ((std::string(name) == "fpc" || std::string(name) == "bitplane") &&
        file.rfind("heat", 0) == 0)
      CHECK(ratio > 1.3, "%s ratio on %s only %.3f", name, file.c_str(), ratio);
    if (std::string(name) == "fpc") fpc_ratio = ratio;
    // bitplane's third-order predictor out-compresses fpc on smooth fields.
    if (std::string(name) == "bitplane" && file.rfind("heat", 0) == 0)
      CHECK(ratio > fpc_ratio, "bitplane %.3f below fpc %.3f on %s", ratio, fpc_ratio,
            file.c_str());
    // Noise: at most 1% larger than the input (before the frame's stored
    // fallback).
    if (std::string(name) == "bitplane" && file == "random.f64")
      CHECK(ratio > 1 / 1.01, "bitplane on noise: ratio %.4f", ratio);
  }
  for (double rel : {1e-2, 1e-4, 1e-6}) {
    long fast = 0;
    for (const char* name : {"quant", "zfp", "quant_fast", "quant_zstd"}) {
      p.abs_bound = rel * (hi - lo);
      auto r = test::round_trip(*find_codec(name), p, src);
      CHECK(r.enc > 0 && r.dec == static_cast<long>(src.size()), "%s on %s rel %g: %ld/%ld", name,
            file.c_str(), rel, r.enc, r.dec);
      if (r.enc > 0)
        test::check_bound<T>((std::string(name) + " " + file).c_str(), src, r.out, p.abs_bound);
      if (std::string(name) == "quant_fast") fast = r.enc;
      // The entropy stage never loses to fixed-length packing (it falls
      // back to it), and wins clearly on the smooth fields.
      if (std::string(name) == "quant_zstd" && r.enc > 0) {
        CHECK(r.enc <= fast + 1, "quant_zstd %ld > quant_fast %ld on %s", r.enc, fast,
              file.c_str());
        if (file.rfind("heat", 0) == 0 && rel == 1e-4)
          CHECK(1.3 * r.enc < fast, "quant_zstd %ld vs quant_fast %ld on %s", r.enc, fast,
                file.c_str());
      }
    }
  }
}

}  // namespace

int main() {
  for (const char* f : {"heat_t00100.f64", "heat_t01000.f64", "heat_t10000.f64", "md_pos.f64",
                        "random.f64", "sparse.f64"})
    run<double>(f);
  run<float>("heat_t01000.f32");
  return test::finish("codec_datafiles");
}
