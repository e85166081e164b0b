#include "decision/lossy_scope.h"

namespace adacomp {
namespace {

// Each bound key and the setting whose values and message it shares.
struct BoundKey {
  const char* key;
  const char* setting;
  LossyHint::Kind kind;
};
const BoundKey kBoundKeys[] = {
    {"adacomp_error_bound", "ADACOMP_ERROR_BOUND", LossyHint::Kind::absolute},
    {"adacomp_rel_error_bound", "ADACOMP_REL_ERROR_BOUND", LossyHint::Kind::relative},
};
constexpr const char* kLossyKey = "adacomp_lossy";

}  // namespace

ErrorBound bound_under(const Config& c, const LossyHint& hint) {
  switch (hint.kind) {
    case LossyHint::Kind::none:
      return job_bound(c);
    case LossyHint::Kind::off:
      return {};
    case LossyHint::Kind::absolute:
      return {hint.value, 0, true};
    case LossyHint::Kind::relative:
      return {0, hint.value, true};
  }
  return {};
}

bool is_lossy_hint_key(const std::string& key) {
  if (key == kLossyKey) return true;
  for (const BoundKey& b : kBoundKeys)
    if (key == b.key) return true;
  return false;
}

bool read_lossy_hint(const std::string& key, const std::string& value, LossyHint* hint,
                     std::string* error) {
  if (key == kLossyKey) {
    if (value != "on" && value != "off") {
      *error = key + "='" + value + "' is invalid; accepts on|off (off: never lossy here)";
      return false;
    }
    if (value == "off") *hint = {LossyHint::Kind::off, 0};
    return true;
  }
  for (const BoundKey& b : kBoundKeys) {
    if (key != b.key) continue;
    Config scratch;
    if (!apply_setting(b.setting, value, &scratch, error, key)) return false;
    const double bound =
        b.kind == LossyHint::Kind::absolute ? scratch.abs_error_bound : scratch.rel_error_bound;
    // adacomp_lossy=off wins over a bound given beside it.
    if (hint->kind != LossyHint::Kind::off) *hint = {b.kind, bound};
    return true;
  }
  *error = "unknown info key " + key;
  return false;
}

LossyHint merge_hint(const LossyHint& now, const LossyHint& update) {
  if (update.kind != LossyHint::Kind::none) return update;
  return now.kind == LossyHint::Kind::off ? LossyHint{} : now;
}

void hint_vote(const LossyHint& mine, double vote[kAgreeValues]) {
  const double kind = static_cast<double>(mine.kind);
  vote[0] = kind;
  vote[1] = -kind;
  vote[2] = mine.value;
  vote[3] = -mine.value;
}

LossyHint agreed_hint(const double widest[kAgreeValues]) {
  const double highest_kind = widest[0], lowest_kind = -widest[1];
  if (highest_kind != lowest_kind) return {LossyHint::Kind::off, 0};
  const auto kind = static_cast<LossyHint::Kind>(static_cast<int>(highest_kind));
  if (kind == LossyHint::Kind::none || kind == LossyHint::Kind::off) return {kind, 0};
  return {kind, -widest[3]};  // the smallest bound any rank asked for
}

}  // namespace adacomp
