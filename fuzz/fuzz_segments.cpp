// Reads arbitrary bytes as a segmented frame (wire/segments.h): the segment
// table's parser must refuse any length it cannot vouch for, and what it
// accepts must hold (raw sizes adding up to the header's, coded sizes to the
// payload, whole elements, the frame's codec or stored); the frame then
// decodes into an exactly sized buffer (ASan catches any overrun).
#include <cstdlib>
#include <vector>

#include "codec/bits.h"
#include "wire/frame.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace adacomp;
  std::vector<uint8_t> in(data, data + size);  // exactly sized: over-reads hit a redzone
  FrameHeader h;
  if (!read_frame_header(in.data(), in.size(), &h) || !(h.flags & kFrameSegmented)) return 0;
  const uint8_t* body = in.data() + kFrameHeaderBytes;
  Segment segs[kMaxSegments];
  size_t n = 0, table = 0;
  if (!read_segment_table(h, body, h.payload_bytes, segs, &n, &table)) {
    uint64_t raw = 0, coded = table;
    for (size_t i = 0; i < n; ++i) {
      if (segs[i].raw_bytes % bits::elem_size(h.kind) ||
          (segs[i].codec != h.codec && segs[i].codec != CodecId::stored))
        std::abort();
      raw += segs[i].raw_bytes;
      coded += segs[i].coded_bytes;
    }
    if (n < 2 || n > kMaxSegments || raw != h.raw_bytes || coded != h.payload_bytes) std::abort();
  }
  if (h.raw_bytes > (1u << 20)) return 0;  // a claimed size is allocated only when small
  std::vector<uint8_t> out(h.raw_bytes);
  const long r = decode_frame(in.data(), in.size(), out.data(), out.size());
  if (r > 0) std::abort();  // kCodecOk or a CodecStatus
  return 0;
}
