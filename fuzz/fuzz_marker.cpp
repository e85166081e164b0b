// Reads arbitrary bytes as a receiver reads a message of the marker's size
// (wire/marker.h): read_marker must refuse anything it cannot vouch for, and
// what it accepts must hold (a body of at least a frame header and at most
// the largest frame) and write back to the same bytes.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "wire/frame.h"
#include "wire/marker.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace adacomp;
  // A receive only ever reads a marker of exactly kMarkerBytes.
  if (size != kMarkerBytes) return 0;
  std::vector<uint8_t> in(data, data + size);  // exactly sized: over-reads hit a redzone
  Marker m;
  if (!read_marker(in.data(), &m)) return 0;
  if (m.body_bytes < kFrameHeaderBytes || m.body_bytes > kFrameHeaderBytes + kMaxFramePayload)
    std::abort();
  std::vector<uint8_t> again(kMarkerBytes);
  write_marker(m, again.data());
  Marker back;
  if (!read_marker(again.data(), &back) || back.sequence != m.sequence ||
      back.body_bytes != m.body_bytes || back.raw_bytes != m.raw_bytes)
    std::abort();
  return 0;
}
