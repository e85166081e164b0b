// Decodes arbitrary bytes as a shared-grid code payload (wire/code_payload.h)
// into an exactly sized heap buffer: added to existing codes (flags bit 2
// clear) or straight to f64 values (bit 2 set, bit 3 f32 instead); bit 1
// picks the portable path. The grid
// exponent is read from the payload itself so that the fuzzer reaches the
// blocks. A refused payload must leave the output untouched.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "codec/quant_grid.h"
#include "fuzz_input.h"
#include "wire/code_payload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < fuzz::kPrefix) return 0;
  const bool values = data[0] & 4;
  const size_t count = data[1] | (size_t(data[2]) << 8);
  std::vector<uint8_t> in(data + fuzz::kPrefix, data + size);
  int16_t exp = 0;
  if (in.size() >= 3) std::memcpy(&exp, in.data() + 1, 2);
  adacomp::codec_force_portable(fuzz::portable_of(data[0]));
  if (values) {
    const auto kind = data[0] & 8 ? adacomp::ElemKind::f32 : adacomp::ElemKind::f64;
    std::vector<uint8_t> out(count * fuzz::elem_size(kind), 0x5A), before(out);
    const long r = adacomp::decode_code_payload(in.data(), in.size(), exp, kind, out.data(), count);
    if (r != adacomp::kCodecOk && out != before) std::abort();
    return 0;
  }
  std::vector<uint32_t> codes(count, 0x5A5A5A5Au), before(codes);
  const long r = adacomp::add_code_payload(in.data(), in.size(), exp, codes.data(), count);
  if (r != adacomp::kCodecOk && codes != before) std::abort();
  return 0;
}
