#include "policy/tier.h"

namespace adacomp {

const Codec& lossless_codec_for(const Config& c, ElemKind) {
  return *find_codec(c.lossless_codec);
}

}  // namespace adacomp
