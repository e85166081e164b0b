// What the implementation of an intercepted MPI call returns.
#pragma once

#include <climits>
#include <type_traits>

namespace adacomp {

struct CommState;

// An MPI return code, or declined: the library does not take this call.
// An implementation declines before it has touched any user buffer or sent
// anything, so the generated entry point (tools/gen_entries.py) can call
// PMPI with the very same arguments. A declined call may ask for that PMPI
// call to be timed for a slot of the adaptive model (coll/plan.h decline,
// run_declined); the request travels here, with the result. Two words, so
// it is returned in registers like the plain code.
class CallResult {
 public:
  constexpr CallResult(int rc) : rc_(rc) {}  // NOLINT: a return code is a result
  static constexpr CallResult declined(CommState* timed = nullptr, int slot = -1) {
    CallResult r(kDeclinedCode);
    r.timed_ = timed;
    r.slot_ = slot;
    return r;
  }
  // False when declined.
  constexpr explicit operator bool() const { return rc_ != kDeclinedCode; }
  constexpr int operator*() const { return rc_; }
  // A declined call's model slot to time its PMPI form for (null: untimed).
  constexpr CommState* timed() const { return timed_; }
  constexpr int slot() const { return slot_; }

 private:
  static constexpr int kDeclinedCode = INT_MIN;  // no MPI code is negative
  CommState* timed_ = nullptr;
  int slot_ = -1;
  int rc_;
};

static_assert(sizeof(CallResult) <= 2 * sizeof(void*) && std::is_trivially_copyable_v<CallResult>,
              "a CallResult returns in registers");

inline constexpr CallResult kDeclined = CallResult::declined();

}  // namespace adacomp
