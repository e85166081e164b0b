// Writes a seed corpus for each fuzz target: valid payloads of several
// data shapes and sizes, in the fuzz input layout (fuzz_input.h).
// Usage: fuzz_make_seeds OUT_DIR CODEC
#include <cmath>
#include <cstring>
#include <cstdio>
#include <string>
#include <vector>

#include "codec/quant_grid.h"
#include "fuzz_input.h"

namespace {

void put(const char* dir, int n, const std::vector<uint8_t>& bytes) {
  std::string path = std::string(dir) + "/seed_" + std::to_string(n);
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
}

// Shared-grid code payloads (fuzz_quant_grid.cpp): smooth, stepped and wide codes.
int quant_grid_seeds(const char* dir) {
  int written = 0;
  for (int k = 0; k < 4; ++k)
    for (size_t n : {size_t(0), size_t(1), size_t(5), size_t(64), size_t(333), size_t(2000)})
      for (int shape = 0; shape < 3; ++shape) {
        std::vector<uint32_t> q(n);
        for (size_t i = 0; i < n; ++i) {
          const int32_t smooth = static_cast<int32_t>(1000 * std::sin(i * 0.01));
          q[i] = shape == 0   ? static_cast<uint32_t>(smooth)
                 : shape == 1 ? static_cast<uint32_t>(i % 7)
                              : static_cast<uint32_t>(i * 2654435761u);
        }
        std::vector<uint8_t> out(fuzz::kPrefix + adacomp::qgrid::max_payload(n));
        const size_t r =
            adacomp::qgrid::encode(q.data(), n, -12 + shape, out.data() + fuzz::kPrefix);
        out.resize(fuzz::kPrefix + r);
        out[0] = static_cast<uint8_t>(k);
        out[1] = static_cast<uint8_t>(n);
        out[2] = static_cast<uint8_t>(n >> 8);
        put(dir, written++, out);
      }
  std::printf("quant_grid: %d seeds\n", written);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  if (std::string(argv[2]) == "quant_grid") return quant_grid_seeds(argv[1]);
  const adacomp::Codec* c = adacomp::find_codec(argv[2]);
  if (!c) return 2;
  int written = 0;
  for (int k = 0; k < 4; ++k)
    for (size_t n : {size_t(1), size_t(5), size_t(64), size_t(333), size_t(2000)})
      for (int shape = 0; shape < 3; ++shape)
        for (adacomp::CodecId inner : {adacomp::CodecId::stored, adacomp::CodecId::fpc}) {
          adacomp::EncodeParams p;
          p.kind = fuzz::kind_of(static_cast<uint8_t>(k));
          p.abs_bound = 1e-3;
          p.truncate_bits = 20;
          p.lossy_inner = inner;
          std::vector<double> v(n);
          for (size_t i = 0; i < n; ++i)
            v[i] = shape == 0 ? std::sin(i * 0.01) : shape == 1 ? double(i % 7) : (i % 5 ? i * 1e-3 : NAN);
          std::vector<uint8_t> src(n * fuzz::elem_size(p.kind));
          for (size_t i = 0; i < n; ++i) {
            if (k & 1) {
              float f = static_cast<float>(v[i]);
              std::memcpy(&src[4 * i], &f, 4);
            } else {
              std::memcpy(&src[8 * i], &v[i], 8);
            }
          }
          std::vector<uint8_t> out(fuzz::kPrefix + c->max_encoded(src.size()));
          long r = c->encode(p, src.data(), src.size(), out.data() + fuzz::kPrefix,
                             out.size() - fuzz::kPrefix);
          if (r < 0) continue;
          out[0] = static_cast<uint8_t>(k);
          out[1] = static_cast<uint8_t>(n);
          out[2] = static_cast<uint8_t>(n >> 8);
          std::string path = std::string(argv[1]) + "/seed_" + std::to_string(written++);
          if (FILE* f = std::fopen(path.c_str(), "wb")) {
            std::fwrite(out.data(), 1, fuzz::kPrefix + r, f);
            std::fclose(f);
          }
        }
  std::printf("%s: %d seeds\n", argv[2], written);
  return written ? 0 : 1;
}
