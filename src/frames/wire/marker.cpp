#include "wire/marker.h"

#include <cstring>

#include "codec/bytes.h"
#include "wire/frame.h"

namespace adacomp {
namespace {
constexpr uint32_t kMarkerMagic = 0x4b4d4441;  // "ADMK"
constexpr size_t kChecked = 24;                // bytes the checksum covers
}  // namespace

void write_marker(const Marker& m, uint8_t* dst) {
  std::memset(dst, 0, kMarkerBytes);
  bits::store<uint32_t>(dst, kMarkerMagic);
  bits::store<uint32_t>(dst + 4, m.sequence);
  bits::store<uint64_t>(dst + 8, m.body_bytes);
  bits::store<uint64_t>(dst + 16, m.raw_bytes);
  bits::store<uint32_t>(dst + kChecked, bits::fnv1a_32(dst, kChecked));
}

bool read_marker(const uint8_t* src, Marker* out) {
  if (bits::load<uint32_t>(src) != kMarkerMagic ||
      bits::load<uint32_t>(src + kChecked) != bits::fnv1a_32(src, kChecked))
    return false;
  Marker m;
  m.sequence = bits::load<uint32_t>(src + 4);
  m.body_bytes = bits::load<uint64_t>(src + 8);
  m.raw_bytes = bits::load<uint64_t>(src + 16);
  if (m.body_bytes < kFrameHeaderBytes || m.body_bytes > kFrameHeaderBytes + kMaxFramePayload)
    return false;
  *out = m;
  return true;
}

}  // namespace adacomp
