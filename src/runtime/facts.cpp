#include "runtime/facts.h"

#include "runtime/datatype.h"
#include "runtime/runtime.h"
#include "runtime/stats.h"

namespace adacomp {
namespace {

bool active(MPI_Comm comm) { return runtime_active() && comm != MPI_COMM_NULL; }

CallFacts facts(size_t bytes, ElemKind kind, GateScope scope, Decider who) {
  CallFacts f;
  f.active = true;
  f.bytes = bytes;
  f.kind = kind;
  f.scope = scope;
  f.who = who;
  f.override = tier_override();
  f.coding_on = who == Decider::sender ? coding_on() : true;
  f.job_spans_nodes = job_spans_nodes();
  return f;
}

}  // namespace

CallFacts call_facts(MPI_Comm comm, MPI_Count count, MPI_Datatype type, GateScope scope,
                     Decider who) {
  if (count <= 0 || type == MPI_DATATYPE_NULL || !active(comm)) return {};
  return facts(data_size(count, type), elem_kind(type), scope, who);
}

CallFacts call_facts(MPI_Comm comm, size_t bytes, ElemKind kind, GateScope scope, Decider who) {
  return active(comm) ? facts(bytes, kind, scope, who) : CallFacts{};
}

CallVerdict admit(const CallFacts& f) {
  const CallVerdict v = verdict(config(), f);
  if (v.counted) note_pass(v.reason);
  return v;
}

bool model_passes(int arm) {
  if (arm != 0) return false;
  note_pass(PassReason::model_no_gain);
  return true;
}

}  // namespace adacomp
