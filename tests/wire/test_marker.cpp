// The point-to-point marker without MPI (wire/marker.h): written and read
// back; every single damaged byte of the checked part, a body shorter than a
// frame header or longer than a frame can be are refused.
#include <cstring>
#include <vector>

#include "unit.h"
#include "wire/frame.h"
#include "wire/marker.h"

using namespace adacomp;

int main() {
  Marker m;
  m.sequence = 0xFFFFFFFEu;
  m.body_bytes = 5000;
  m.raw_bytes = 123456;
  std::vector<uint8_t> bytes(kMarkerBytes, 0xAA);
  write_marker(m, bytes.data());
  Marker back;
  EXPECT(read_marker(bytes.data(), &back));
  EXPECT(back.sequence == m.sequence && back.body_bytes == m.body_bytes &&
         back.raw_bytes == m.raw_bytes);
  for (size_t i = 0; i < 28; ++i) {  // magic, fields, checksum
    std::vector<uint8_t> bad = bytes;
    bad[i] ^= 0x10;
    EXPECT(!read_marker(bad.data(), &back));
  }
  for (uint64_t body : {uint64_t{0}, uint64_t{kFrameHeaderBytes - 1},
                        uint64_t{kFrameHeaderBytes + kMaxFramePayload + 1}}) {
    m.body_bytes = body;
    write_marker(m, bytes.data());
    EXPECT(!read_marker(bytes.data(), &back));
  }
  // A plain message of the marker's size that is not one.
  std::vector<uint8_t> data(kMarkerBytes);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 7);
  EXPECT(!read_marker(data.data(), &back));
  EXPECT(kMarkerBytes % 16 == 0);
  return unit::finish("wire marker");
}
