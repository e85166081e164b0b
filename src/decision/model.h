// Runtime model of the adaptive policy (the default).
//
// Collectives: for each communicator, operation and message size class
// (power of two) the ranks measure what they would otherwise assume. A slot
// starts by exploring: its calls go through the arms, plain MPI and each
// candidate codec (decision/tier.h: quant_zstd and quant_fast for lossy
// floats, say), kSamples rounds, every other one backwards, every rank
// timing its own part; then the ranks agree (one small MAX-allreduce on the
// private communicator, the slowest rank being what the application waits
// for) and the slot settles
// on the fastest codec only if it beat plain MPI by kMargin. The call time
// holds what decides it, wire bytes over the link's bandwidth plus coding
// time, so a fast link picks the fast codec and a slow one the high-ratio
// one. An arm whose first call took more than kDropFactor times the fastest
// arm's first call is dropped from the rest of that exploration (one more
// small MAX-allreduce agrees on which), so a clearly losing codec is timed
// once, not kSamples times. A settled slot explores again after `interval`
// calls, an interval that doubles while the answer stays the same, so a
// change in the data or the network is seen and a wrong guess costs a few
// calls in thousands.
// Every input to a decision is identical on all ranks, so all ranks take
// the same path and codec.
//
// Point-to-point: the sender alone decides (receivers read the frame
// header), by the cMPI break-even from the link estimate and the ratio and
// codec time it measured on earlier messages of the same size class:
//   (1 - 1/R) / bandwidth  >  codec seconds per byte (encode + decode),
// and among candidate codecs that pay (bytes: zstd, lz4) the one of least
// wire plus codec time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "decision/config.h"
#include "decision/size_class.h"
#include "decision/tier.h"

namespace adacomp {

class PathChoice {
 public:
  // Arm 0 is plain MPI, arm a > 0 the call's candidate codec a
  // (Candidates::arm, decision/tier.h).
  static constexpr int kMaxArms = 1 + 2 * Candidates::kMax;
  static constexpr int kSamples = 2;       // timed calls of each arm per exploration
  static constexpr double kMargin = 0.03;  // a codec must be this much faster than raw
  // Why 2: a codec's first call in a job also pays cold costs (its buffers'
  // first touch, the thread pool's start), up to about a fifth of a call at
  // 10 Gbit/s; twice the fastest is clearly losing, not cold. Plain MPI is
  // never dropped: it is what the margin is measured against.
  static constexpr double kDropFactor = 2.0;
  static constexpr uint32_t kFirstInterval = 32;
  static constexpr uint32_t kMaxInterval = 4096;

  // True when the coming call passes through untimed: the slot has settled
  // on plain MPI and is not due to explore again. Counts the call towards
  // that; false (and nothing counted) where next() decides the call. Why
  // untimed: a settled slot's times decide nothing until it explores, and
  // the clock reads and checks of a decided call had doubled what the
  // library costs such a call (docs/benchmarks.md, "Settled calls").
  bool passes_settled();
  // The arm of the coming call: the settled one (counted), or the
  // exploration's next. An exploration takes its arms (plain MPI and each
  // of `codecs`) from the call that starts it; `codecs` must hold as many
  // candidates on every rank.
  int next(const Candidates& codecs);
  bool exploring() const { return exploring_; }
  // Records this rank's time for an exploring call (a settled one's is not
  // needed). True when the ranks
  // must agree: after each arm's first call (where there is an arm to drop)
  // and at the end of an exploration. The caller then MAX-reduces best()
  // (kMaxArms values) over the communicator and passes the result to
  // agree(), on every rank; agree() returns true when the slot has settled.
  bool record(double seconds);
  const double* best() const { return best_; }
  bool agree(const double slowest[kMaxArms]);
  // The settled arm, 0 (raw) while exploring.
  int settled() const { return exploring_ ? 0 : settled_; }
  // The arms of the last exploration: 1 + codecs().arms().
  int arms() const { return 1 + codecs_.arms(); }
  const Candidates& codecs() const { return codecs_; }
  // Whether the last exploration timed arm a once only (kDropFactor).
  bool dropped(int a) const { return !(kept_ >> a & 1); }

 private:
  // The exploration's calls: each arm once, in order (step_ < arms()), then
  // the kept arms (kept_, a bit per arm) until each has kSamples, every
  // other round backwards: an arm's calls then follow different calls (on a
  // link with memory, a token bucket or TCP's window, the call before
  // shapes a call's time; in one order the arm after raw always paid for it).
  int arm_at(int step) const;
  int calls() const;  // of the whole exploration
  // Whether the agreement due now is the one on the arms to keep: after the
  // first round (calls() > arms(), so never the last one), where there is
  // an arm to drop (not with plain MPI and one codec alone).
  bool dropping_agreement() const { return step_ == arms() && arms() > 2; }
  // Counts a settled slot's call: true while it rests, false from the call
  // that explores again (after `interval_` calls) and while exploring.
  bool rests();
  bool exploring_ = true;
  bool agreed_ = false;  // settled at least once
  int step_ = 0;         // calls of this exploration so far
  uint32_t kept_ = 0;
  int settled_ = 0;
  Candidates codecs_;
  uint32_t since_ = 0, interval_ = kFirstInterval;
  double best_[kMaxArms] = {};  // this rank's fastest call of each arm
};

class RuntimeModel {
 public:
  static constexpr int kMaxOps = 16;
  // The slot of op's calls of `bytes` (op * kSizeClasses + size class), as
  // an index that fits a CallResult (decision/call_result.h), and the slot itself.
  int slot(int op, size_t bytes);
  PathChoice& at(int slot) { return slots_[static_cast<size_t>(slot)]; }
  // PathChoice::passes_settled of that slot, which need not exist yet.
  bool passes_settled(int op, size_t bytes) {
    return !slots_.empty() && at(slot(op, bytes)).passes_settled();
  }

 private:
  std::vector<PathChoice> slots_;  // allocated on first use
};

// Below this ratio coding never pays, whatever the link and codec speed.
constexpr double kIncompressibleRatio = 1.02;
// The cMPI break-even for a sender's own decision.
bool coding_pays(double ratio, double codec_seconds_per_byte, const LinkModel& link);

// Whether point-to-point between nodes travels direct (unframed, at plain
// MPI's cost) rather than framed. Forced modes frame it (they code every
// eligible message); ADACOMP_P2P_ROUTE forces either. The adaptive policy
// frames it only where the best lossless candidate, at its typical ratio
// and speed (bitplane on float fields: 1.57x at 6.0 GB/s encode, 6.1 GB/s
// decode, docs/codecs.md), would save at least kFramedRouteGain of the wire
// time, which covers what framing costs a message that is not coded; an
// unknown link (no probe reading) routes it direct:
// senders never code on one, so framing would only cost. With those figures
// the break-even is about 0.8 GB/s (6.4 Gbit/s). Every input is agreed, so every rank of a pair of
// nodes routes alike.
constexpr double kFramedRouteGain = 0.10;
bool inter_node_direct(const Config& c, const LinkModel& link);
// Whether `link` is slow enough for the typical lossless candidate to save
// kFramedRouteGain of its wire time (the formula above; unknown: not slow).
bool slow_link(const LinkModel& link);

// T1 when the user left it unset: kSlowLinkThreshold across a slow link,
// else the configured default. Why lower there: collectives of 8-32 KB
// coded at 1.2-6.6x plain at 1 Gbit/s, and below T1 the runtime model,
// which times plain MPI against coding, never saw them. Why not on fast
// links: there they gained nothing (0.95-1.06x plain at 10 Gbit/s), while
// every exploration codes two calls that lose (docs/benchmarks.md, "T1 on
// slow links"). The link is agreed at MPI_Init, so every rank's T1 is the
// same.
constexpr size_t kSlowLinkThreshold = 8 * 1024;
size_t auto_threshold_lossless(const Config& c, const LinkModel& link);

// A sender's measurements per element kind, size class and candidate codec
// (decision/tier.h), for coding_pays. Not thread-safe by itself: the caller
// serialises.
class CodingEstimate {
 public:
  // Messages without a candidate before its next trial: 1, then doubling up
  // to kRetryAfter. Why not kRetryAfter at once: a first trial pays cold
  // costs (first touch of the frame buffers, the thread pool's start), and a
  // codec that seemed to lose on them would be left out for 64 messages.
  static constexpr uint32_t kRetryAfter = 64;
  // The same once a candidate's last trial found the data incompressible
  // (ratio below coding_pays' floor): such a trial is a whole coding for
  // nothing (zstd on random bytes: about 370 us per 256 KiB, where plain MPI
  // takes 20 us on one node), and compressibility is the data's, which
  // changes slowly. Their distance grows eightfold to 4096, which keeps what
  // trials cost within about 1% soon after a size is first sent.
  static constexpr uint32_t kRetryAfterIncompressible = 4096;
  // A codec time slower than the estimate moves it by this share only; a
  // faster one replaces it. Why: the noise in a coding's time is one-sided
  // (the coder preempted, its cache cold), and one slow sample taken whole
  // kept a paying candidate out for kRetryAfter messages: a 64 KB
  // Sendrecv at 1 Gbit/s coded one message in twenty and ran at plain
  // MPI's speed, half forced lossless's (docs/p2p.md). A real slowdown is
  // still followed within a few messages, every one of which is measured.
  // The ratio is the data's and is taken whole.
  static constexpr double kSlowerSampleWeight = 0.25;
  // The candidate (Candidates::arm, of `count`) to code a message of
  // `bytes` with, 0 for none: a trial of a candidate when nothing is known
  // of it or its retry is due; otherwise, of those that pay, the one whose
  // wire plus codec time per byte, 1 / (R bandwidth) + codec seconds, is
  // least.
  // `kind`: an ElemKind, plus kLossyKinds for a lossy message's.
  static constexpr int kLossyKinds = 3;
  int choose(int kind, size_t bytes, int count, const LinkModel& link);
  void record(int kind, size_t bytes, int arm, size_t wire_bytes, double codec_seconds);

 private:
  struct Entry {
    bool measured = false;
    uint32_t skipped = 0, retry_after = 1;
    double ratio = 1, seconds_per_byte = 0;
  };
  Entry& at(int kind, size_t bytes, int arm);
  std::vector<Entry> entries_;
};

}  // namespace adacomp
