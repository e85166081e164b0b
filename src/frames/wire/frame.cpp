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

uint8_t* begin_stored_frame(size_t bytes, ElemKind kind, void* frame) {
  FrameHeader h;
  h.codec = CodecId::stored;
  h.kind = kind;
  h.raw_bytes = h.payload_bytes = bytes;
  write_frame_header(h, frame);
  return static_cast<uint8_t*>(frame) + kFrameHeaderBytes;
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

size_t write_undecodable_frame(uint64_t raw_bytes, void* frame) {
  FrameHeader h;
  h.raw_bytes = raw_bytes;
  write_frame_header(h, frame);
  return kFrameHeaderBytes;
}

size_t frame_raw_bytes(const void* frame, size_t frame_bytes) {
  FrameHeader h;
  if (read_frame_header(frame, frame_bytes, &h)) return h.raw_bytes;
  return frame_bytes >= kFrameHeaderBytes ? frame_bytes - kFrameHeaderBytes : 0;
}

void damage_frame_header(uint8_t* frame) {
  frame[8] ^= 0x5A;  // breaks raw_bytes and the checksum
}

FrameFault read_whole_frame(const void* frame, size_t frame_bytes, FrameHeader* out,
                            const uint8_t** payload) {
  if (frame_bytes < kFrameHeaderBytes) return FrameFault::truncated;
  if (!read_frame_header(frame, frame_bytes, out)) return FrameFault::bad_header;
  if (out->payload_bytes != frame_bytes - kFrameHeaderBytes) return FrameFault::bad_size;
  *payload = static_cast<const uint8_t*>(frame) + kFrameHeaderBytes;
  return FrameFault::ok;
}

size_t frame_capacity(size_t src_bytes) { return kFrameHeaderBytes + src_bytes; }

size_t encode_frame(const Codec& codec, const EncodeParams& p, const void* src, size_t src_bytes,
                    void* dst) {
  auto* out = static_cast<uint8_t*>(dst);
  long n = -1;
  if (codec.id != CodecId::stored && src_bytes > 0)
    // Capacity src_bytes - 1: anything not strictly smaller goes stored.
    n = codec.encode(p, src, src_bytes, out + kFrameHeaderBytes, src_bytes - 1);
  if (n < 0) {
    uint8_t* payload = begin_stored_frame(src_bytes, p.kind, out);
    if (src_bytes) std::memcpy(payload, src, src_bytes);
    return kFrameHeaderBytes + src_bytes;
  }
  FrameHeader h;
  h.codec = codec.id;
  h.kind = p.kind;
  h.raw_bytes = src_bytes;
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

long decode_frame(const void* frame, size_t frame_bytes, void* dst, size_t expected_raw,
                  ForEach run) {
  FrameHeader h;
  const uint8_t* payload = nullptr;
  if (read_whole_frame(frame, frame_bytes, &h, &payload) != FrameFault::ok ||
      h.raw_bytes != expected_raw || (h.flags & kFrameInterstep))
    return kCodecCorrupt;
  return decode_body(h, payload, h.payload_bytes, dst, run);
}

}  // namespace adacomp
