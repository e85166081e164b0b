// The call site of the MPI call a thread is in, for the rules that select
// calls by it (ADACOMP_LOSSY_RULES site=, decision/lossy_rules.h). The entry
// point notes its return address (boundary/entry.h CallClock) only when a
// rule names a site, so other jobs pay one load. Each address is named
// once (runtime/site_names.h, a few milliseconds), and whether each rule
// selects it is kept beside it, with the rule's calls there (after=): a
// call then costs a comparison with the thread's last site, else a lookup.
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "decision/lossy_rules.h"

namespace adacomp {

namespace detail {
extern std::atomic<bool> g_site_rules;  // a rule names a site (fixed at MPI_Init)
inline thread_local void* t_call_site = nullptr;
}  // namespace detail

// Makes ready for `rules`, the job's (at MPI_Init, before any call).
void call_site_init(const LossyRules& rules);

// The entry point of an intercepted call notes where it was called from.
inline void note_call_site(void* return_address) {
  if (detail::g_site_rules.load(std::memory_order_relaxed)) detail::t_call_site = return_address;
}

// One call site, as the rules see it.
struct CallSite {
  std::vector<char> selected;                   // per rule: its site= selects this site
  std::unique_ptr<std::atomic<long long>[]> calls;  // per rule: calls it selected here (after=)
};

// The site of the call this thread is in (null: none noted, as for a call
// made before MPI_Init): resolved and matched against every rule the first
// time it calls.
CallSite* current_call_site();

}  // namespace adacomp
