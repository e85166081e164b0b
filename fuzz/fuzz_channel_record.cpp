// Reads arbitrary bytes as an inter-step record (bytes from the network,
// wire/channel_record.h) from an exactly sized heap copy: ASan catches any
// out-of-bounds read. A record that reads back must claim no more bytes than
// were there and write back to exactly the bytes it was read from; read as
// a channel frame's payload, its coded bytes must be exactly the rest.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "wire/channel_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> in(data, data + size);
  adacomp::ChannelRecord r;
  size_t n = 0;
  if (!adacomp::read_channel_record(in.data(), in.size(), &r, &n)) return 0;
  if (n > size || n != adacomp::channel_record_bytes(r)) std::abort();
  std::vector<uint8_t> out(n);
  adacomp::write_channel_record(r, out.data());
  if (std::memcmp(out.data(), in.data(), n) != 0) std::abort();
  adacomp::FrameHeader h;
  h.flags = adacomp::kFrameInterstep;
  h.payload_bytes = size;
  const uint8_t* coded = nullptr;
  size_t coded_bytes = 0;
  if (!adacomp::read_channel_payload(h, in.data(), &r, &coded, &coded_bytes) ||
      coded != in.data() + n || coded_bytes != size - n)
    std::abort();
  return 0;
}
