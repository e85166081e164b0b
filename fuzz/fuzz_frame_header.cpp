// Reads arbitrary bytes as a frame as a receiver does: read_frame_header
// must refuse anything it cannot vouch for, and what it accepts must hold
// (payload within the bytes that arrived, a known codec and kind, and the
// same header when written back); read_whole_frame and frame_raw_bytes must
// agree with it; an accepted frame then goes through decode_frame into an
// exactly sized buffer (ASan catches any overrun).
#include <cstdlib>
#include <cstring>
#include <vector>

#include "wire/frame.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace adacomp;
  std::vector<uint8_t> in(data, data + size);  // exactly sized: over-reads hit a redzone
  FrameHeader h, whole;
  const uint8_t* payload = nullptr;
  const FrameFault fault = read_whole_frame(in.data(), in.size(), &whole, &payload);
  const size_t raw = frame_raw_bytes(in.data(), in.size());
  if (!read_frame_header(in.data(), in.size(), &h)) {
    if (fault != (size < kFrameHeaderBytes ? FrameFault::truncated : FrameFault::bad_header) ||
        raw != (size < kFrameHeaderBytes ? 0 : size - kFrameHeaderBytes))
      std::abort();
    return 0;
  }
  if (raw != h.raw_bytes) std::abort();
  const bool exact = h.payload_bytes == size - kFrameHeaderBytes;
  if (fault != (exact ? FrameFault::ok : FrameFault::bad_size) ||
      (exact && payload != in.data() + kFrameHeaderBytes))
    std::abort();
  if (size < kFrameHeaderBytes || h.payload_bytes > size - kFrameHeaderBytes) std::abort();
  if (!find_codec(h.codec) || static_cast<uint8_t>(h.kind) > static_cast<uint8_t>(ElemKind::f64))
    std::abort();
  uint8_t again[kFrameHeaderBytes];
  write_frame_header(h, again);
  if (std::memcmp(again, in.data(), kFrameHeaderBytes) != 0) std::abort();
  if (h.raw_bytes > (1u << 20)) return 0;  // a claimed size is allocated only when small
  std::vector<uint8_t> out(h.raw_bytes);
  const long r = decode_frame(in.data(), in.size(), out.data(), out.size());
  if (r > 0) std::abort();  // kCodecOk or a CodecStatus
  return 0;
}
