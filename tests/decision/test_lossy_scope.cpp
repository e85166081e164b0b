// A communicator's lossy hint without MPI (decision/lossy_scope.h): its
// values and their errors, how one info object updates it, the agreement
// over ranks, and which bound a call takes under it.
#include <string>

#include "decision/gate.h"
#include "decision/lossy_scope.h"
#include "unit.h"

using namespace adacomp;
using Kind = LossyHint::Kind;

namespace {

LossyHint read(std::initializer_list<std::pair<const char*, const char*>> entries,
               std::string* error = nullptr) {
  LossyHint h;
  std::string ignored;
  for (const auto& [key, value] : entries)
    if (!read_lossy_hint(key, value, &h, error ? error : &ignored)) return {Kind::off, -1};
  return h;
}

void values() {
  EXPECT(read({{"adacomp_rel_error_bound", "1e-4"}}) == (LossyHint{Kind::relative, 1e-4}));
  EXPECT(read({{"adacomp_error_bound", "0.5"}}) == (LossyHint{Kind::absolute, 0.5}));
  EXPECT(read({{"adacomp_lossy", "off"}}).kind == Kind::off);
  EXPECT(read({{"adacomp_lossy", "on"}}).kind == Kind::none);
  // off wins over a bound beside it, in either order.
  EXPECT(read({{"adacomp_lossy", "off"}, {"adacomp_error_bound", "1"}}).kind == Kind::off);
  EXPECT(read({{"adacomp_error_bound", "1"}, {"adacomp_lossy", "off"}}).kind == Kind::off);
  // Invalid values: the settings' message, under the key's name.
  for (const char* bad : {"abc", "0", "-1", "1", "nan", ""}) {
    std::string error;
    EXPECT(read({{"adacomp_rel_error_bound", bad}}, &error).value == -1);
    EXPECT(error == std::string("adacomp_rel_error_bound='") + bad +
                        "' is invalid; accepts a bound relative to the value range, in (0, 1)");
  }
  std::string error;
  EXPECT(read({{"adacomp_lossy", "maybe"}}, &error).value == -1);
  EXPECT(error.find("adacomp_lossy='maybe' is invalid; accepts on|off") == 0);
  EXPECT(is_lossy_hint_key("adacomp_lossy") && !is_lossy_hint_key("adacomp_mode"));
}

void merging() {
  const LossyHint rel{Kind::relative, 1e-3}, off{Kind::off, 0};
  EXPECT(merge_hint(rel, off) == off);
  EXPECT(merge_hint(off, rel) == rel);
  EXPECT(merge_hint(off, LossyHint{}).kind == Kind::none);  // adacomp_lossy=on alone
  EXPECT(merge_hint(rel, LossyHint{}) == rel);
}

LossyHint agree(std::initializer_list<LossyHint> ranks) {
  double widest[kAgreeValues];
  bool first = true;
  for (const LossyHint& h : ranks) {
    double vote[kAgreeValues];
    hint_vote(h, vote);
    for (int i = 0; i < kAgreeValues; ++i)
      widest[i] = first || vote[i] > widest[i] ? vote[i] : widest[i];
    first = false;
  }
  return agreed_hint(widest);
}

void agreement() {
  const LossyHint a{Kind::relative, 1e-3}, b{Kind::relative, 1e-4};
  EXPECT(agree({a, a}) == a);
  EXPECT(agree({a, b}) == b);  // the tightest of one kind
  EXPECT(agree({a, LossyHint{}}).kind == Kind::off);  // kinds differ: exact
  EXPECT(agree({a, LossyHint{Kind::absolute, 1e-4}}).kind == Kind::off);
  EXPECT(agree({LossyHint{}, LossyHint{}}).kind == Kind::none);
}

void bounds() {
  Config job;
  job.rel_error_bound = 1e-4;
  EXPECT(!bound_under(job, LossyHint{}).scoped && bound_under(job, LossyHint{}).rel == 1e-4);
  EXPECT(!bound_under(job, LossyHint{Kind::off, 0}).enabled());
  const ErrorBound hinted = bound_under(Config{}, LossyHint{Kind::absolute, 0.5});
  EXPECT(hinted.scoped && hinted.over(-7, 9) == 0.5);
  EXPECT(bound_under(Config{}, LossyHint{Kind::relative, 1e-2}).over(-1, 9) == 0.1);
  // A transfer of doubles is lossy under a scoped bound only; bytes never.
  const auto tier = [&](const ErrorBound& b, ElemKind k) {
    return gate(job, b, Override::none, 1 << 20, k, GateScope::transfer).tier.tier;
  };
  EXPECT(tier(job_bound(job), ElemKind::f64) == Tier::lossless);
  EXPECT(tier(hinted, ElemKind::f64) == Tier::lossy);
  EXPECT(tier(hinted, ElemKind::bytes) == Tier::lossless);
  // A collective takes its communicator's bound: off keeps it lossless.
  const auto coll = [&](const ErrorBound& b) {
    return gate(job, b, Override::none, 8 << 20, ElemKind::f64, GateScope::collective).tier.tier;
  };
  EXPECT(coll(job_bound(job)) == Tier::lossy);
  EXPECT(coll(bound_under(job, LossyHint{Kind::off, 0})) == Tier::lossless);
  EXPECT(coll(hinted) == Tier::lossy);
  EXPECT(coll(bound_under(Config{}, LossyHint{})) == Tier::lossless);
}

}  // namespace

int main() {
  values();
  merging();
  agreement();
  bounds();
  return unit::finish("decision_lossy_scope");
}
