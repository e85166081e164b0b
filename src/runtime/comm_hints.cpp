#include "runtime/comm_hints.h"

#include <cstdio>
#include <memory>
#include <string>

#include "runtime/comm_state.h"
#include "requests/registry.h"

namespace adacomp {
namespace detail {
std::atomic<bool> g_hints_given{false};
}  // namespace detail

namespace {

int g_keyval = MPI_KEYVAL_INVALID;

int copy_hint(MPI_Comm, int, void*, void* value, void* copy, int* flag) {
  *static_cast<LossyHint**>(copy) = new LossyHint(*static_cast<LossyHint*>(value));
  *flag = 1;
  return MPI_SUCCESS;
}

int delete_hint(MPI_Comm, int, void* value, void*) {
  delete static_cast<LossyHint*>(value);
  return MPI_SUCCESS;
}

LossyHint* stored_hint(MPI_Comm comm) {
  void* value = nullptr;
  int found = 0;
  if (g_keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL ||
      PMPI_Comm_get_attr(comm, g_keyval, &value, &found) != MPI_SUCCESS || !found)
    return nullptr;
  return static_cast<LossyHint*>(value);
}

// This rank's hint after `info`'s keys; the first invalid entry's message
// in *error (the rank then votes `off`).
LossyHint read_info(MPI_Comm comm, MPI_Info info, bool fresh, std::string* error) {
  LossyHint now;
  if (!fresh)
    if (const LossyHint* stored = stored_hint(comm)) now = *stored;
  int keys = 0;
  if (info == MPI_INFO_NULL || PMPI_Info_get_nkeys(info, &keys) != MPI_SUCCESS) return now;
  LossyHint update;
  bool given = false;
  for (int i = 0; i < keys; ++i) {
    char key[MPI_MAX_INFO_KEY + 1] = {}, value[MPI_MAX_INFO_VAL + 1] = {};
    int found = 0;
    if (PMPI_Info_get_nthkey(info, i, key) != MPI_SUCCESS || !is_lossy_hint_key(key)) continue;
    PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &found);
    if (found && !read_lossy_hint(key, value, &update, error)) return {LossyHint::Kind::off, 0};
    given |= found != 0;
  }
  return given ? merge_hint(now, update) : now;
}

}  // namespace

namespace detail {
LossyHint hint_of(MPI_Comm comm) {
  const LossyHint* h = stored_hint(comm);
  return h ? *h : LossyHint{};
}
}  // namespace detail

namespace {

// Calls each rule's other selectors selected, for after= (rules are the
// job's, fixed at MPI_Init).
std::unique_ptr<std::atomic<long long>[]> g_rule_calls;

bool has_hint(MPI_Comm comm) {
  return detail::g_hints_given.load(std::memory_order_relaxed) &&
         detail::hint_of(comm).kind != LossyHint::Kind::none;
}

ErrorBound bound_of_rule(const Config& c, int rule) {
  if (rule < 0) return job_bound(c);
  const LossyRule& r = c.lossy_rules.rules[static_cast<size_t>(rule)];
  if (!r.lossy) return {};
  if (r.abs > 0 || r.rel > 0) return {r.abs, r.rel, true};
  return {c.abs_error_bound, c.rel_error_bound, true};
}

}  // namespace

namespace detail {
int apply_rules(MPI_Comm comm, const char* op, CallFacts* f) {
  if (has_hint(comm)) return -1;
  const Config& c = config();
  char name[MPI_MAX_OBJECT_NAME] = {};
  int length = 0;
  if (c.lossy_rules.names_comm()) PMPI_Comm_get_name(comm, name, &length);
  RuleCall call;
  call.op = op;
  call.bytes = f->bytes;
  call.kind = f->kind;
  call.comm_name = name;
  call.pcontrol_level = pcontrol_level();
  const std::vector<LossyRule>& rules = c.lossy_rules.rules;
  for (size_t i = 0; i < rules.size(); ++i) {
    if (!selects(rules[i], call)) continue;
    if (g_rule_calls[i].fetch_add(1, std::memory_order_relaxed) < rules[i].after) continue;
    f->bound = bound_of_rule(c, static_cast<int>(i));
    return static_cast<int>(i);
  }
  return -1;
}
}  // namespace detail

bool rules_need_agreement(MPI_Comm comm) {
  return config().lossy_rules.rank_local() && !has_hint(comm);
}

ErrorBound agreed_rule_bound(MPI_Comm comm, int rule) {
  double mine[2] = {static_cast<double>(rule), -static_cast<double>(rule)}, widest[2];
  if (PMPI_Allreduce(mine, widest, 2, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS ||
      widest[0] != -widest[1])
    return {};
  return bound_of_rule(config(), rule);
}

void comm_hints_init() {
  PMPI_Comm_create_keyval(copy_hint, delete_hint, &g_keyval, nullptr);
  g_rule_calls.reset(new std::atomic<long long>[config().lossy_rules.rules.size() + 1]());
}

void comm_hints_finalize() {
  for (MPI_Comm comm : {MPI_COMM_WORLD, MPI_COMM_SELF})
    if (stored_hint(comm)) PMPI_Comm_delete_attr(comm, g_keyval);
  PMPI_Comm_free_keyval(&g_keyval);
}

namespace {

// One rank's side of an agreement on a communicator's hint.
struct HintVote {
  LossyHint mine;
  std::string error;  // the first invalid entry's message (the rank votes off)
  double vote[kAgreeValues] = {}, widest[kAgreeValues] = {};
};

bool takes_hints(MPI_Comm comm) {
  int inter = 1;
  return runtime_active() && comm != MPI_COMM_NULL &&
         PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter;
}

void cast_vote(MPI_Comm comm, MPI_Info info, bool fresh, HintVote* v) {
  v->mine = read_info(comm, info, fresh, &v->error);
  hint_vote(v->mine, v->vote);
}

// Stores the agreed hint on `comm` and raises this rank's invalid entry.
int conclude(MPI_Comm comm, const HintVote& v, const char* operation) {
  const LossyHint agreed = agreed_hint(v.widest);
  // What the runtime model measured on `comm` was measured in the tiers of
  // its former bound: a slot settled on plain MPI when lossless did not pay
  // would never try the lossy codecs. Every rank forgets alike.
  if (!(agreed == detail::hint_of(comm)))
    if (CommState* state = find_comm_state(comm)) state->model = RuntimeModel{};
  if (LossyHint* stored = stored_hint(comm)) {
    *stored = agreed;
  } else if (agreed.kind != LossyHint::Kind::none) {
    PMPI_Comm_set_attr(comm, g_keyval, new LossyHint(agreed));
    detail::g_hints_given.store(true, std::memory_order_relaxed);
  }
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  const bool differed = v.widest[0] != -v.widest[1] || v.widest[2] != -v.widest[3];
  if (differed && rank == 0 && config().verbose > 0)
    std::fprintf(stderr,
                 "adacomp: MPI_%s: the ranks gave different lossy hints; the communicator "
                 "takes %s\n",
                 operation, agreed.kind == LossyHint::Kind::off ? "adacomp_lossy=off"
                                                                 : "the tightest bound");
  if (v.error.empty()) return MPI_SUCCESS;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "adacomp: rank %d: MPI_%s: %s\n", rank, operation, v.error.c_str());
  std::fflush(stderr);
  PMPI_Comm_call_errhandler(comm, MPI_ERR_INFO_VALUE);
  return MPI_ERR_INFO_VALUE;
}

// MPI_Comm_idup_with_info's agreement, started beside the duplication on
// the old communicator and concluded on the new one when the application
// completes the duplication's request (the new handle is valid only then).
class HintedDup : public LibraryRequest {
 public:
  explicit HintedDup(MPI_Comm* newcomm) : newcomm_(newcomm) {}
  HintVote vote;
  MPI_Request agreement = MPI_REQUEST_NULL;
  int finish(MPI_Request, MPI_Status*, bool, bool, const char*) override {
    PMPI_Wait(&agreement, MPI_STATUS_IGNORE);
    const int rc = conclude(*newcomm_, vote, "Comm_idup_with_info");
    delete this;
    return rc;
  }

 private:
  MPI_Comm* newcomm_;
};

}  // namespace

int set_comm_hints(MPI_Comm comm, MPI_Info info, bool fresh, const char* operation) {
  if (!takes_hints(comm)) return MPI_SUCCESS;  // intercommunicators pass through, hints and all
  HintVote v;
  cast_vote(comm, info, fresh, &v);
  const int rc = PMPI_Allreduce(v.vote, v.widest, kAgreeValues, MPI_DOUBLE, MPI_MAX, comm);
  return rc == MPI_SUCCESS ? conclude(comm, v, operation) : rc;
}

int idup_with_hints(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
#if MPI_VERSION >= 4
  const int rc = PMPI_Comm_idup_with_info(comm, info, newcomm, request);
  if (rc != MPI_SUCCESS || !takes_hints(comm)) return rc;
  auto* dup = new HintedDup(newcomm);
  cast_vote(comm, info, true, &dup->vote);
  PMPI_Iallreduce(dup->vote.vote, dup->vote.widest, kAgreeValues, MPI_DOUBLE, MPI_MAX, comm,
                  &dup->agreement);
  register_request(*request, dup);
  return rc;
#else
  (void)comm, (void)info, (void)newcomm, (void)request;
  return MPI_ERR_OTHER;  // not reached: MPI 3 has no MPI_Comm_idup_with_info
#endif
}

}  // namespace adacomp
