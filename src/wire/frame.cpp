#include "wire/frame.h"

#include <cstring>

#include "codec/bytes.h"

namespace adacomp {
namespace {

constexpr uint8_t kMagic0 = 0xAD, kMagic1 = 0xC0;

// Fletcher-16 over the header with the checksum field zeroed: catches a
// damaged or misaligned header before any length in it is trusted.
uint16_t header_check(const uint8_t* h) {
  uint32_t a = 0, b = 0;
  for (size_t i = 0; i < kFrameHeaderBytes; ++i) {
    uint8_t byte = (i == 6 || i == 7) ? 0 : h[i];
    a = (a + byte) % 255;
    b = (b + a) % 255;
  }
  return static_cast<uint16_t>((b << 8) | a);
}

}  // namespace

void write_frame_header(const FrameHeader& h, void* dst) {
  auto* p = static_cast<uint8_t*>(dst);
  p[0] = kMagic0;
  p[1] = kMagic1;
  p[2] = kFrameVersion;
  p[3] = static_cast<uint8_t>(h.codec);
  p[4] = static_cast<uint8_t>(h.kind);
  p[5] = h.flags;
  bits::store(p + 8, h.raw_bytes);
  bits::store(p + 16, h.payload_bytes);
  bits::store(p + 6, header_check(p));
}

bool read_frame_header(const void* src, size_t available, FrameHeader* out) {
  if (available < kFrameHeaderBytes) return false;
  const auto* p = static_cast<const uint8_t*>(src);
  if (p[0] != kMagic0 || p[1] != kMagic1 || p[2] != kFrameVersion ||
      (p[5] & ~(kFrameInterstep | kFrameSegmented)) != 0)
    return false;
  if (bits::load<uint16_t>(p + 6) != header_check(p)) return false;
  if (p[4] > static_cast<uint8_t>(ElemKind::f64)) return false;
  FrameHeader h;
  h.codec = static_cast<CodecId>(p[3]);
  h.kind = static_cast<ElemKind>(p[4]);
  h.flags = p[5];
  h.raw_bytes = bits::load<uint64_t>(p + 8);
  h.payload_bytes = bits::load<uint64_t>(p + 16);
  if (!find_codec(h.codec)) return false;
  if (h.payload_bytes > available - kFrameHeaderBytes) return false;
  *out = h;
  return true;
}

size_t frame_capacity(size_t src_bytes) {
  return kFrameHeaderBytes + src_bytes;
}

size_t encode_frame(const Codec& codec, const EncodeParams& p, const void* src,
                    size_t src_bytes, void* dst) {
  auto* out = static_cast<uint8_t*>(dst);
  FrameHeader h;
  h.kind = p.kind;
  h.raw_bytes = src_bytes;
  long n = -1;
  if (codec.id != CodecId::stored && src_bytes > 0)
    // Capacity src_bytes - 1: anything not strictly smaller goes stored.
    n = codec.encode(p, src, src_bytes, out + kFrameHeaderBytes, src_bytes - 1);
  if (n >= 0) {
    h.codec = codec.id;
  } else {
    h.codec = CodecId::stored;
    if (src_bytes) std::memcpy(out + kFrameHeaderBytes, src, src_bytes);
    n = static_cast<long>(src_bytes);
  }
  h.payload_bytes = static_cast<uint64_t>(n);
  write_frame_header(h, out);
  return kFrameHeaderBytes + static_cast<size_t>(n);
}

long decode_body(const FrameHeader& h, const void* body, size_t body_bytes, void* dst,
                 ForEach run) {
  if (h.flags & kFrameSegmented)
    return decode_segmented(h, static_cast<const uint8_t*>(body), body_bytes, dst, run);
  long r = find_codec(h.codec)->decode(h.kind, body, body_bytes, dst, h.raw_bytes);
  return r < 0 ? r : kCodecOk;
}

long decode_frame(const void* frame, size_t frame_bytes, void* dst,
                  size_t expected_raw, ForEach run) {
  FrameHeader h;
  if (!read_frame_header(frame, frame_bytes, &h)) return kCodecCorrupt;
  if (h.raw_bytes != expected_raw || (h.flags & kFrameInterstep) ||
      h.payload_bytes != frame_bytes - kFrameHeaderBytes)
    return kCodecCorrupt;
  return decode_body(h, static_cast<const uint8_t*>(frame) + kFrameHeaderBytes,
                     h.payload_bytes, dst, run);
}

}  // namespace adacomp
