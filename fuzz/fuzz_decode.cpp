// Decodes arbitrary bytes with one codec (FUZZ_CODEC) into an exactly
// sized heap buffer: ASan catches any out-of-bounds access, UBSan any
// undefined arithmetic. A decode that claims success must report exactly
// the requested size.
#include <cstdlib>
#include <vector>

#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const adacomp::Codec* codec = adacomp::find_codec(FUZZ_CODEC);
  if (!codec) std::abort();
  if (size < fuzz::kPrefix) return 0;
  const adacomp::ElemKind kind = fuzz::kind_of(data[0]);
  const size_t count = data[1] | (size_t(data[2]) << 8);
  const size_t out_bytes = count * fuzz::elem_size(kind);
  // Exactly sized copies so that over-reads hit ASan redzones.
  std::vector<uint8_t> in(data + fuzz::kPrefix, data + size);
  std::vector<uint8_t> out(out_bytes);
  adacomp::codec_force_portable(fuzz::portable_of(data[0]));
  long r = codec->decode(kind, in.data(), in.size(), out.data(), out.size());
  if (r >= 0 && static_cast<size_t>(r) != out_bytes) std::abort();
  return 0;
}
