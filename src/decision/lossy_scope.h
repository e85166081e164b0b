// Where lossy coding applies, and under which bound: the job's default
// (ADACOMP_ERROR_BOUND, ADACOMP_REL_ERROR_BOUND), or a communicator's own
// info hints (adacomp_error_bound, adacomp_rel_error_bound, adacomp_lossy),
// which override it there (docs/lossy-scopes.md). MPI-free: the hints'
// values and their agreement arithmetic; runtime/comm_hints.h keeps them
// per communicator and agrees on them.
#pragma once

#include <string>

#include "decision/config.h"

namespace adacomp {

// The bound one call codes under. `scoped`: it was given for this
// communicator, not by the job's default. Only a scoped bound makes data
// movement and point-to-point lossy: a job-wide bound never silently turns
// new kinds of calls lossy (decision/gate.h).
struct ErrorBound {
  double abs = 0;
  double rel = 0;  // relative to the value range of the data it applies to
  bool scoped = false;
  bool enabled() const { return abs > 0 || rel > 0; }
  // The absolute bound over values in [lo, hi].
  double over(double lo, double hi) const { return abs > 0 ? abs : rel * (hi - lo); }
};

inline ErrorBound job_bound(const Config& c) {
  return {c.abs_error_bound, c.rel_error_bound, false};
}

// A communicator's lossy hint: none (the job's default applies), off (never
// lossy), or a bound of its own.
struct LossyHint {
  enum class Kind : int { none = 0, off = 1, absolute = 2, relative = 3 };
  Kind kind = Kind::none;
  double value = 0;
  bool operator==(const LossyHint& o) const { return kind == o.kind && value == o.value; }
};

// The bound of a call on a communicator with `hint`.
ErrorBound bound_under(const Config& c, const LossyHint& hint);

// Whether `key` is one of the library's info keys (adacomp_...).
bool is_lossy_hint_key(const std::string& key);
// Updates *hint, the hint one info object gives, with one of its entries (a
// key is_lossy_hint_key accepts): adacomp_lossy=off wins over a bound beside
// it, adacomp_lossy=on changes nothing here (merge_hint). On an invalid
// value returns false and fills `error` as an invalid setting's (naming the
// key and what it accepts).
bool read_lossy_hint(const std::string& key, const std::string& value, LossyHint* hint,
                     std::string* error);

// A communicator's hint `now` after an info object that gave `update` with
// some of the library's keys: its bound or off replaces `now`; only
// adacomp_lossy=on (update none) switches an off back to the job's default.
LossyHint merge_hint(const LossyHint& now, const LossyHint& update);

// The agreement on a communicator's hint: each rank's hint as kAgreeValues
// doubles, MAX-reduced over the ranks, and the hint every rank then takes.
// Ranks that gave the same kind take it with the tightest value (each one's
// bound then holds); ranks that disagree on the kind take `off`: exact is
// the one path no rank's hint forbids.
constexpr int kAgreeValues = 4;
void hint_vote(const LossyHint& mine, double vote[kAgreeValues]);
LossyHint agreed_hint(const double widest[kAgreeValues]);

}  // namespace adacomp
