#include "decision/model.h"

#include <algorithm>

namespace adacomp {

int PathChoice::arm_at(int step) const {
  if (step < arms()) return step;
  const int kept = __builtin_popcount(kept_);
  int k = (step - arms()) % kept;
  if ((step - arms()) / kept % 2 == 0) k = kept - 1 - k;  // rounds 2, 4, ... backwards
  for (int a = 0;; ++a)
    if (kept_ >> a & 1 && k-- == 0) return a;
}

int PathChoice::calls() const { return arms() + __builtin_popcount(kept_) * (kSamples - 1); }

bool PathChoice::rests() {
  if (exploring_) return false;
  if (since_ < interval_) {
    ++since_;
    return true;
  }
  exploring_ = true;  // from this call
  step_ = 0;
  return false;
}

bool PathChoice::passes_settled() { return !exploring_ && settled_ == 0 && rests(); }

int PathChoice::next(const Candidates& codecs) {
  if (rests()) return settled_;
  if (step_ == 0) {
    codecs_ = codecs;
    std::fill(best_, best_ + kMaxArms, 0.0);
    kept_ = (1u << arms()) - 1;
  }
  return arm_at(step_);
}

bool PathChoice::record(double seconds) {
  if (!exploring_) return false;
  double& b = best_[arm_at(step_)];
  if (step_ < arms() || seconds < b) b = seconds;
  ++step_;
  if (dropping_agreement()) return true;
  if (step_ < calls()) return false;
  // An arm that repeats the codec before it (padded_candidates) times the
  // same thing again: both get the slower of their best times, so that
  // padding gives a codec no second chance of a lucky call. (Before the
  // ranks agree: what they agree on stays identical everywhere.)
  for (int a = 2; a < arms(); ++a)
    if (&codecs_.arm(a) == &codecs_.arm(a - 1) && codecs_.pipelined(a) == codecs_.pipelined(a - 1))
      best_[a] = best_[a - 1] = std::max(best_[a], best_[a - 1]);
  return true;
}

bool PathChoice::agree(const double slowest[kMaxArms]) {
  if (dropping_agreement()) {
    // Each arm's first call, agreed: a dropped arm keeps that as its time.
    const double fastest = *std::min_element(slowest, slowest + arms());
    for (int a = 1; a < arms(); ++a)
      if (slowest[a] > kDropFactor * fastest) {
        kept_ &= ~(1u << a);
        best_[a] = slowest[a];
      }
    return false;
  }
  int fastest = 1;  // ties go to the earlier arm: the higher ratio
  for (int a = 2; a < arms(); ++a)
    if (slowest[a] < slowest[fastest]) fastest = a;
  const int winner = slowest[fastest] < slowest[0] * (1 - kMargin) ? fastest : 0;
  // The same answer again earns a longer rest; a new one starts over.
  interval_ =
      agreed_ && winner == settled_ ? std::min(interval_ * 2, kMaxInterval) : kFirstInterval;
  agreed_ = true;
  settled_ = winner;
  exploring_ = false;
  since_ = 0;
  return true;
}

int RuntimeModel::slot(int op, size_t bytes) {
  if (slots_.empty()) slots_.resize(kMaxOps * kSizeClasses);
  return op * kSizeClasses + size_class(bytes);
}

bool coding_pays(double ratio, double codec_seconds_per_byte, const LinkModel& link) {
  if (!link.known() || ratio < kIncompressibleRatio) return false;
  return (1.0 - 1.0 / ratio) / link.bandwidth_Bps > codec_seconds_per_byte;
}

bool inter_node_direct(const Config& c, const LinkModel& link) {
  if (c.p2p_route != P2PRoute::automatic) return c.p2p_route == P2PRoute::direct;
  if (!c.adaptive() || !c.model) return false;
  if (!link.known()) return true;  // senders would never code (CodingEstimate::choose)
  return !slow_link(link);
}

bool slow_link(const LinkModel& link) {
  if (!link.known()) return false;
  constexpr double kTypicalRatio = 1.57;
  constexpr double kTypicalSecondsPerByte = 1 / 6.0e9 + 1 / 6.1e9;
  const double saved = 1 - 1 / kTypicalRatio - kTypicalSecondsPerByte * link.bandwidth_Bps;
  return saved >= kFramedRouteGain;
}

size_t auto_threshold_lossless(const Config& c, const LinkModel& link) {
  if (!c.threshold_lossless_auto || !slow_link(link)) return c.threshold_lossless;
  return std::min(c.threshold_lossless, kSlowLinkThreshold);
}

CodingEstimate::Entry& CodingEstimate::at(int kind, size_t bytes, int arm) {
  constexpr int kArms = Candidates::kMax;
  constexpr int kKinds = 2 * kLossyKinds;
  if (entries_.empty()) entries_.resize(kKinds * kSizeClasses * kArms);
  const size_t cls = static_cast<size_t>(kind % kKinds) * kSizeClasses + size_class(bytes);
  return entries_[cls * kArms + static_cast<size_t>(arm - 1)];
}

int CodingEstimate::choose(int kind, size_t bytes, int count, const LinkModel& link) {
  if (!link.known()) return 0;
  int best = 0;
  double least = 0;
  for (int a = 1; a <= count; ++a) {
    const Entry& e = at(kind, bytes, a);
    const double t = 1 / (e.ratio * link.bandwidth_Bps) + e.seconds_per_byte;
    if (e.measured && coding_pays(e.ratio, e.seconds_per_byte, link) && (!best || t < least))
      best = a, least = t;
  }
  for (int a = 1; a <= count; ++a) {
    if (a == best) continue;
    Entry& e = at(kind, bytes, a);
    if (!e.measured || ++e.skipped >= e.retry_after) {
      e.skipped = 0;
      const bool incompressible = e.measured && e.ratio < kIncompressibleRatio;
      e.retry_after = incompressible ? std::min(8 * e.retry_after, kRetryAfterIncompressible)
                                     : std::min(2 * e.retry_after, kRetryAfter);
      return a;  // trial
    }
  }
  return best;
}

void CodingEstimate::record(int kind, size_t bytes, int arm, size_t wire_bytes,
                            double codec_seconds) {
  Entry& e = at(kind, bytes, arm);
  // Decoding costs about what encoding did for these codecs: count both.
  const double sample = 2 * codec_seconds / static_cast<double>(bytes);
  e.ratio = wire_bytes ? static_cast<double>(bytes) / wire_bytes : 1;
  if (!e.measured || sample <= e.seconds_per_byte)
    e.seconds_per_byte = sample;
  else
    e.seconds_per_byte += kSlowerSampleWeight * (sample - e.seconds_per_byte);
  e.measured = true;
}

}  // namespace adacomp
