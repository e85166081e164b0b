// Writes a seed corpus for each fuzz target: valid payloads of several
// data shapes and sizes, in the fuzz input layout (fuzz_input.h).
// Usage: fuzz_make_seeds OUT_DIR CODEC, or OUT_DIR channel_record for
// valid inter-step records (wire/channel_record.h).
#include <cmath>
#include <cstring>
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "wire/channel_record.h"

namespace {

bool write_file(const std::string& path, const uint8_t* data, size_t n) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  std::fwrite(data, 1, n, f);
  std::fclose(f);
  return true;
}

// Records with 0, 1 and the most retired channels, delta or not.
int channel_record_seeds(const std::string& dir) {
  int written = 0;
  for (size_t retired : {size_t(0), size_t(1), adacomp::kMaxRetiredPerFrame})
    for (bool delta : {false, true}) {
      adacomp::ChannelRecord r;
      r.id = 7;
      r.seq = delta ? 3 : 0;
      r.xor_prev = delta;
      for (size_t i = 0; i < retired; ++i)
        r.retired.push_back({static_cast<uint32_t>(100 + i), static_cast<uint32_t>(i)});
      std::vector<uint8_t> out(adacomp::channel_record_bytes(r) + 8, 0xAB);  // + coded bytes
      adacomp::write_channel_record(r, out.data());
      written += write_file(dir + "/seed_" + std::to_string(written), out.data(), out.size());
    }
  std::printf("channel_record: %d seeds\n", written);
  return written ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  if (std::string(argv[2]) == "channel_record") return channel_record_seeds(argv[1]);
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
          write_file(std::string(argv[1]) + "/seed_" + std::to_string(written++), out.data(),
                     fuzz::kPrefix + r);
        }
  std::printf("%s: %d seeds\n", argv[2], written);
  return written ? 0 : 1;
}
