// Which path a call takes. Decided only from values that are identical on
// every rank of the communicator (sizes, datatype, op, configuration, and
// model decisions that the ranks agreed on), never from one rank's data, so
// all ranks always take the same collective path.
#pragma once

#include <cstddef>

#include "codec/codec.h"
#include "decision/config.h"
#include "decision/lossy_scope.h"

namespace adacomp {

enum class Tier { raw, lossless, lossy };

struct TierChoice {
  Tier tier = Tier::raw;
  bool pipelined = false;
};

// The static four-tier choice of `mode` with the configured thresholds for a
// message of `bytes` whose elements are of `kind` (lossy only for floating
// point, and only under a `bound`: the job's or the communicator's).
TierChoice choose_tier(const Config& c, const ErrorBound& bound, Mode mode, size_t bytes,
                       ElemKind kind);

// What adacomp_override_tier() set: the configured policy, a policy mode, or
// one tier forced at every size (for calibration and benchmarks).
enum class Override : int { none, raw, lossless, lossy, pipelined, adaptive, adaptive_pipelined };
bool parse_override(const char* name, Override* out);

// Number of pipeline chunks (1 to 1024) for a unit of `bytes` of `tier`
// that moves as a whole, where MPI sends messages up to `eager_limit` bytes
// eagerly.
int pipeline_chunks(const Config& c, Tier tier, size_t bytes, size_t eager_limit);

// Raw bytes of a chunk whose frame, the largest a chunk of any element size
// can take, still goes eagerly (at least 4K).
size_t eager_chunk_bytes(size_t eager_limit);

// The lossy codecs shrink a chunk at least this much at the bounds they are
// used with (quant at 1e-4 of the range: about 30x), so a lossy chunk of
// this many eager chunks still travels eagerly. Smaller lossy chunks only
// add per-chunk costs: measured at 1 Gbit/s, 64K lossy chunks were slower
// than 512K ones (docs/collectives.md).
constexpr size_t kLossyChunkFactor = 8;

// The codecs a compressed call of a tier on an element kind may use,
// highest ratio first. The adaptive model times each on the call itself and
// keeps the one that takes least time on the link at hand (decision/model.h);
// outside the model the first one codes.
//
// With `pipelined_forms` (the adaptive model on a call that may be cut into
// chunks) each codec is an arm twice: arms 1..count code the call whole,
// arms count+1..2 count the same codecs cut into chunks. Pipelining is not
// always faster (MPICH's 1 MB Allreduce at 10 Gbit/s: 1.41x plain whole,
// 1.23x in chunks; docs/benchmarks.md), so the model measures both.
struct Candidates {
  static constexpr int kMax = 2;
  const Codec* codec[kMax] = {};
  int count = 0;
  bool pipelined_forms = false;
  // The model's codec arms.
  int arms() const { return pipelined_forms ? 2 * count : count; }
  // Whether arm `arm` (1..) cuts the call into chunks.
  bool pipelined(int arm) const { return pipelined_forms && arm > count; }
  // The codec of model arm `arm` (1..): an arm past this call's candidates
  // (a slot whose exploration began with more) takes the last one.
  const Codec& arm(int arm) const {
    if (pipelined(arm)) arm -= count;
    return *codec[(arm < count ? arm : count) - 1];
  }
};
Candidates candidates(const Config& c, Tier tier, ElemKind kind);

// candidates(), the last one repeated up to the most candidates of any tier
// and element kind under `c` and `bound`: as many on every rank of a call
// whose ranks may pass different datatypes (Bcast), which must still
// explore alike.
Candidates padded_candidates(const Config& c, const ErrorBound& bound, Tier tier, ElemKind kind);

// The first candidate: the codec outside the adaptive model.
const Codec& codec_for(const Config& c, Tier tier, ElemKind kind);

}  // namespace adacomp
