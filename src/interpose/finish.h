// How an entry point ends: an implementation returns an MPI code, or a
// CallResult that may decline the call (runtime/call_result.h), and then the
// entry point runs the call's own PMPI form with the same arguments, timed
// for the runtime model when the implementation asked (coll/plan.h). The
// generated entry points (tools/gen_entries.py) replace this.
#pragma once

#include "coll/plan.h"
#include "runtime/call_result.h"

namespace adacomp {

template <class F>
int finish(int rc, F) {
  return rc;
}

template <class F>
int finish(CallResult r, F pmpi) {
  return r ? *r : run_declined(pmpi);
}

}  // namespace adacomp
