// A communicator's lossy hints (decision/lossy_scope.h), kept by the library
// itself as an attribute of the application's communicator: MPICH's
// MPI_Comm_get_info returns only the keys it knows. Set by
// MPI_Comm_set_info and MPI_Comm_dup_with_info (p2p/comm_setup.cpp), copied by
// MPI_Comm_dup and MPI_Comm_idup with the attribute (MPI 4.0 section 7.4.2:
// a duplicate has its hints), never by the constructors that make a new
// group (split, create, ...). Every value is agreed over the communicator
// when it is set (a small allreduce: setting is collective), so every rank
// of a collective decides its path from the same bound.
#pragma once

#include <mpi.h>

#include <atomic>

#include "decision/gate.h"
#include "decision/lossy_scope.h"
#include "runtime/runtime.h"

namespace adacomp {

// Creates and frees the attribute key (after MPI is initialised; before
// MPI_Finalize).
void comm_hints_init();
void comm_hints_finalize();

namespace detail {
extern std::atomic<bool> g_hints_given;  // any communicator ever got a hint
LossyHint hint_of(MPI_Comm comm);
}  // namespace detail

// The bound of a call on `comm`: its agreed hint, else the job's default.
// Inline: every active call asks; a job that never set a hint pays a load.
inline ErrorBound comm_bound(MPI_Comm comm) {
  if (!detail::g_hints_given.load(std::memory_order_relaxed)) return job_bound(config());
  return bound_under(config(), detail::hint_of(comm));
}

// Reads the library's keys of `info` (the others are MPI's) into `comm`'s
// hint and agrees on it over `comm` (a blocking collective: every rank of
// an intracommunicator calls it alike). `fresh`: the keys replace the
// communicator's hint (a duplicate with info), else update it (set_info: a
// key not given keeps its value). An invalid value is raised on `comm`
// through its error handler as MPI_ERR_INFO_VALUE, under MPI_<operation>,
// after the agreement (which counts it as `off`), so no rank is left waiting.
int set_comm_hints(MPI_Comm comm, MPI_Info info, bool fresh, const char* operation);

// ---- Rules (ADACOMP_LOSSY_RULES, decision/lossy_rules.h) ----
// A communicator's hint wins over the rules: the program that set it knows
// which of its communicators must stay exact.

namespace detail {
int apply_rules(MPI_Comm comm, const char* op, CallFacts* f);
}  // namespace detail
// Where `comm` has no hint, the first rule that selects the call of `op`
// (`f` its facts) sets f->bound: exact, or lossy under its bound (scoped: a
// rule allows data movement and point-to-point too). Counts the call for
// every rule whose other selectors select it (after=). Returns the rule's
// index, -1 for none.
inline int apply_lossy_rules(MPI_Comm comm, const char* op, CallFacts* f) {
  if (config().lossy_rules.rules.empty() || !f->active) return -1;
  return detail::apply_rules(comm, op, f);
}
// Whether the ranks of a collective on `comm` may have taken different
// rules (LossyRules::rank_local, on a communicator without a hint), and so
// must agree on one before its path is chosen.
bool rules_need_agreement(MPI_Comm comm);
// The bound rule `rule` (-1: none) gives a call on `comm` whose ranks agreed
// on it; ranks that took different rules take `exact`.
ErrorBound agreed_rule_bound(MPI_Comm comm, int rule);

// MPI_Comm_idup_with_info: PMPI, and the same agreement on `info`'s keys,
// started now on `comm` (nonblocking, beside the duplication) and stored on
// *newcomm when the application completes *request (requests/registry.h).
int idup_with_hints(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request);

}  // namespace adacomp
