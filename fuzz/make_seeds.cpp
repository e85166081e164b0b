// Writes a seed corpus for each fuzz target: valid payloads of several
// data shapes and sizes, in the fuzz input layout (fuzz_input.h); for
// frame_header, whole frames of every kind and codec; for channel_record,
// valid inter-step records (wire/channel_record.h); for quant_grid, the
// reduction-on-codes payloads (codec/quant_grid.h); for segments, segmented
// frames (wire/segments.h); for marker, point-to-point markers (wire/marker.h).
// For capture, capture files (bench/codecs/capture_file.h) of each type.
// Usage: fuzz_make_seeds OUT_DIR CODEC|frame_header|channel_record|quant_grid|segments|marker|capture
#include <cmath>
#include <cstring>
#include <cstdio>
#include <string>
#include <vector>

#include "codec/quant_grid.h"
#include "fuzz_input.h"
#include "wire/channel_record.h"
#include "wire/code_payload.h"
#include "capture_file.h"
#include "wire/marker.h"
#include "wire/frame.h"

namespace {

bool write_seed(const std::string& dir, int n, const uint8_t* bytes, size_t size) {
  FILE* f = std::fopen((dir + "/seed_" + std::to_string(n)).c_str(), "wb");
  if (!f) return false;
  std::fwrite(bytes, 1, size, f);
  return std::fclose(f) == 0;
}

// Frames as the library sends them: each codec on smooth doubles and
// floats (stored where it does not shrink them), and empty messages, with
// and without the inter-step flag.
int frame_seeds(const std::string& dir) {
  int written = 0;
  for (int id = 0; id < 256; ++id) {
    const adacomp::Codec* c = adacomp::find_codec(static_cast<adacomp::CodecId>(id));
    if (!c) continue;
    for (adacomp::ElemKind kind : {adacomp::ElemKind::f64, adacomp::ElemKind::f32})
      for (size_t n : {size_t(0), size_t(7), size_t(500)}) {
        adacomp::EncodeParams p;
        p.kind = kind;
        p.abs_bound = 1e-3;
        std::vector<uint8_t> src(n * fuzz::elem_size(kind));
        for (size_t i = 0; i < n; ++i) {
          const double v = std::sin(i * 0.01);
          const float f = static_cast<float>(v);
          if (kind == adacomp::ElemKind::f32)
            std::memcpy(&src[4 * i], &f, 4);
          else
            std::memcpy(&src[8 * i], &v, 8);
        }
        std::vector<uint8_t> frame(adacomp::frame_capacity(src.size()));
        const size_t size = adacomp::encode_frame(*c, p, src.data(), src.size(), frame.data());
        written += write_seed(dir, written, frame.data(), size);
        adacomp::FrameHeader h;
        if (n == 0 && adacomp::read_frame_header(frame.data(), size, &h)) {
          h.flags = adacomp::kFrameInterstep;
          adacomp::write_frame_header(h, frame.data());
          written += write_seed(dir, written, frame.data(), size);
        }
      }
  }
  std::printf("frame_header: %d seeds\n", written);
  return written ? 0 : 1;
}

// Segmented frames of every codec on smooth and noisy doubles and floats,
// cut in 2 to 5 segments (noise leaves some segments stored).
int segment_seeds(const std::string& dir) {
  int written = 0;
  for (int id = 0; id < 256; ++id) {
    const adacomp::Codec* c = adacomp::find_codec(static_cast<adacomp::CodecId>(id));
    if (!c) continue;
    for (adacomp::ElemKind kind : {adacomp::ElemKind::f64, adacomp::ElemKind::f32})
      for (size_t segments : {size_t(2), size_t(5)}) {
        adacomp::EncodeParams p;
        p.kind = kind;
        p.abs_bound = 1e-3;
        const size_t n = 600;
        std::vector<uint8_t> src(n * fuzz::elem_size(kind));
        for (size_t i = 0; i < n; ++i) {
          const double v = i < n / 2 ? std::sin(i * 0.01) : double((i * 2654435761u) % 1000003);
          const float f = static_cast<float>(v);
          if (kind == adacomp::ElemKind::f32)
            std::memcpy(&src[4 * i], &f, 4);
          else
            std::memcpy(&src[8 * i], &v, 8);
        }
        std::vector<uint8_t> frame(adacomp::frame_capacity(src.size()));
        const size_t size = adacomp::encode_segmented(*c, p, src.data(), src.size(), frame.data(),
                                                      segments, nullptr);
        written += write_seed(dir, written, frame.data(), size);
      }
  }
  std::printf("segments: %d seeds\n", written);
  return written ? 0 : 1;
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
      written += write_seed(dir, written, out.data(), out.size());
    }
  std::printf("channel_record: %d seeds\n", written);
  return written ? 0 : 1;
}

// Markers of small, large and the largest bodies, and of every sequence edge.
int marker_seeds(const std::string& dir) {
  int written = 0;
  for (uint32_t sequence : {0u, 1u, 0x7fffffffu})
    for (uint64_t body : {uint64_t(adacomp::kFrameHeaderBytes), uint64_t(4096),
                          uint64_t(adacomp::kFrameHeaderBytes + adacomp::kMaxFramePayload)}) {
      std::vector<uint8_t> out(adacomp::kMarkerBytes);
      adacomp::write_marker({sequence, body, body * 2}, out.data());
      written += write_seed(dir, written, out.data(), out.size());
    }
  std::printf("marker: %d seeds\n", written);
  return written ? 0 : 1;
}

// Capture files of each type, empty and not, as ADACOMP_CAPTURE writes them.
int capture_seeds(const std::string& dir) {
  int written = 0;
  for (const char* type : {"f64", "f32", "bytes"})
    for (size_t count : {size_t(0), size_t(1), size_t(100)}) {
      const size_t bytes = count * (type[1] == '6' ? 8 : type[1] == '3' ? 4 : 1);
      std::string text = std::string(kCaptureMagic) + "call Send\nsite main (a.c:1)\ntype " +
                         type + "\ncount " + std::to_string(count) + "\ncall_count " +
                         std::to_string(count) + "\nop none\nrank 0\nbytes " +
                         std::to_string(bytes) + "\n\n" + std::string(bytes, '\x3f');
      written += write_seed(dir, written, reinterpret_cast<const uint8_t*>(text.data()), text.size());
    }
  std::printf("capture: %d seeds\n", written);
  return written ? 0 : 1;
}

// Shared-grid code payloads (fuzz_quant_grid.cpp): smooth, stepped and wide
// codes, in both forms, for each of the target's modes (flag bits 1 and 2).
int quant_grid_seeds(const std::string& dir) {
  int written = 0;
  for (int k = 0; k < 8; ++k)
    for (size_t n : {size_t(0), size_t(1), size_t(5), size_t(64), size_t(333), size_t(2000)})
      for (int shape = 0; shape < 3; ++shape) {
        std::vector<uint32_t> q(n);
        for (size_t i = 0; i < n; ++i) {
          const int32_t smooth = static_cast<int32_t>(1000 * std::sin(i * 0.01));
          q[i] = shape == 0   ? static_cast<uint32_t>(smooth)
                 : shape == 1 ? static_cast<uint32_t>(i % 7)
                              : static_cast<uint32_t>(i * 2654435761u);
        }
        std::vector<uint8_t> out(fuzz::kPrefix + adacomp::code_payload_capacity(n));
        const size_t r = adacomp::write_code_payload(q.data(), n, -12 + shape, k & 2,
                                                     out.data() + fuzz::kPrefix);
        out.resize(fuzz::kPrefix + r);
        out[0] = static_cast<uint8_t>(k);
        out[1] = static_cast<uint8_t>(n);
        out[2] = static_cast<uint8_t>(n >> 8);
        written += write_seed(dir, written, out.data(), out.size());
      }
  std::printf("quant_grid: %d seeds\n", written);
  return written ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  if (std::string(argv[2]) == "frame_header") return frame_seeds(argv[1]);
  if (std::string(argv[2]) == "channel_record") return channel_record_seeds(argv[1]);
  if (std::string(argv[2]) == "marker") return marker_seeds(argv[1]);
  if (std::string(argv[2]) == "capture") return capture_seeds(argv[1]);
  if (std::string(argv[2]) == "quant_grid") return quant_grid_seeds(argv[1]);
  if (std::string(argv[2]) == "segments") return segment_seeds(argv[1]);
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
            v[i] = shape == 0   ? std::sin(i * 0.01)
                   : shape == 1 ? double(i % 7)
                                : (i % 5 ? i * 1e-3 : NAN);
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
          write_seed(argv[1], written++, out.data(), fuzz::kPrefix + r);
        }
  std::printf("%s: %d seeds\n", argv[2], written);
  return written ? 0 : 1;
}
