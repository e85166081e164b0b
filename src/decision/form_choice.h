// The payload form of a codes ring's chunk (coll/ring_codes.cpp), chosen by
// its sender from measured speeds: plain bit planes, or zstd over the planes
// (the entropy form, about 1.4x smaller on the heat fields at 1e-4, at
// 2-4 ns per plane byte more). Which pays depends on the link and on whether
// coding overlaps the wire:
//   not pipelined: time per raw byte = coding + wire;
//   pipelined:     the slower of the two bounds the call,
// where coding = quantisation + encode + decode of the form (seconds per raw
// byte, measured on this rank's own chunks; decoding as this rank measures
// it on the chunks it receives) and wire = the form's bytes per raw byte over
// the link's bandwidth. At 1 Gbit/s the entropy form wins, at 10 Gbit/s the
// planes (docs/codecs.md, "Reduction on codes").
//
// The form travels in each payload, so a sender needs no agreement: ranks
// may choose differently and still decode each other. Not thread-safe by
// itself: one per thread (ring_codes.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "decision/config.h"

namespace adacomp {

class FormChoice {
 public:
  enum Form : int { planes = 0, entropy = 1 };
  // Chunks of the winning form before the other is tried again: 1, then
  // doubling to this, so a change in data or link is seen within 64 chunks
  // and a losing form costs at most 1 chunk in 64 once settled.
  static constexpr uint32_t kRetryAfter = 64;
  // The planes win only when estimated this much faster. The link figure is
  // one pair's, one direction at a time; a ring sends both ways at once, and
  // other ranks of the node share the link, so the wire is slower than
  // estimated and the smaller form worth more. Measured at 1 Gbit/s on the
  // half-duplex emulated link (2 ranks): the estimates put the planes 5-15%
  // ahead, the entropy form was faster (docs/benchmarks.md, "Lossy at
  // 10 Gbit/s").
  static constexpr double kPlanesMargin = 1.25;

  // The form of the next chunk: each form once while unmeasured (planes
  // first), the other form when its retry is due, else the one of least
  // estimated time. An unknown link (no probe reading, no calibration) gives
  // the entropy form: the ratio first, as a named codec would.
  Form choose(const LinkModel& link, bool pipelined);
  // What a chunk of `raw_bytes` cost: sent in `form` as `wire_bytes` after
  // `seconds` of encoding; received in `form` and decoded in `seconds`;
  // quantised in `seconds` (both forms pay it).
  void record_encode(Form form, size_t raw_bytes, size_t wire_bytes, double seconds);
  void record_decode(Form form, size_t raw_bytes, double seconds);
  void record_quantise(size_t raw_bytes, double seconds);

  // The estimate choose() compares, seconds per raw byte (for tests and the
  // verbose line).
  double estimate(Form form, const LinkModel& link, bool pipelined) const;

 private:
  struct Arm {
    bool encoded = false, decoded = false;
    double encode_spb = 0, decode_spb = 0, wire_per_raw = 1;
    uint32_t skipped = 0, retry_after = 1;
  };
  Arm arms_[2];
  double quantise_spb_ = 0;
};

}  // namespace adacomp
