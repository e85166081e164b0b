#include "decision/form_choice.h"

#include <algorithm>

namespace adacomp {
namespace {

// Chunk timings spread (a preempted chunk takes several times its due):
// each measurement moves the estimate a quarter of the way.
constexpr double kWeight = 0.25;

void blend(double* estimate, double sample, bool first) {
  *estimate = first ? sample : *estimate + kWeight * (sample - *estimate);
}

}  // namespace

double FormChoice::estimate(Form form, const LinkModel& link, bool pipelined) const {
  const Arm& a = arms_[form];
  // Before this rank has decoded the form, its encoding stands for both.
  const double coding = quantise_spb_ + a.encode_spb + (a.decoded ? a.decode_spb : a.encode_spb);
  const double wire = a.wire_per_raw / link.bandwidth_Bps;
  return pipelined ? std::max(coding, wire) : coding + wire;
}

FormChoice::Form FormChoice::choose(const LinkModel& link, bool pipelined) {
  if (!link.known()) return entropy;
  if (!arms_[planes].encoded) return planes;
  if (!arms_[entropy].encoded) return entropy;
  const Form best =
      kPlanesMargin * estimate(planes, link, pipelined) < estimate(entropy, link, pipelined)
          ? planes
          : entropy;
  const Form other = best == planes ? entropy : planes;
  Arm& o = arms_[other];
  if (++o.skipped >= o.retry_after) {
    o.skipped = 0;
    o.retry_after = std::min(2 * o.retry_after, kRetryAfter);
    return other;  // trial
  }
  return best;
}

void FormChoice::record_encode(Form form, size_t raw_bytes, size_t wire_bytes, double seconds) {
  if (!raw_bytes) return;
  Arm& a = arms_[form];
  const double raw = static_cast<double>(raw_bytes);
  blend(&a.encode_spb, seconds / raw, !a.encoded);
  blend(&a.wire_per_raw, static_cast<double>(wire_bytes) / raw, !a.encoded);
  a.encoded = true;
}

void FormChoice::record_decode(Form form, size_t raw_bytes, double seconds) {
  if (!raw_bytes) return;
  Arm& a = arms_[form];
  blend(&a.decode_spb, seconds / static_cast<double>(raw_bytes), !a.decoded);
  a.decoded = true;
}

void FormChoice::record_quantise(size_t raw_bytes, double seconds) {
  if (raw_bytes) blend(&quantise_spb_, seconds / static_cast<double>(raw_bytes), quantise_spb_ == 0);
}

}  // namespace adacomp
