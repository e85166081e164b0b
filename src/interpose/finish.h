// An entry point's return code from its implementation's answer: an int as
// it is, a CallResult's code, or, when it declined, the PMPI call with the
// same arguments. (Interim: the generated entry points replace this.)
#pragma once

#include "runtime/call_result.h"

namespace adacomp {
template <typename F>
int finish(int rc, F) { return rc; }
template <typename F>
int finish(CallResult r, F pmpi) { return r ? *r : pmpi(); }
}  // namespace adacomp
