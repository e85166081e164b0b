#include "runtime/comm_state.h"

#include <atomic>
#include <initializer_list>

namespace adacomp {
namespace {

int g_keyval = MPI_KEYVAL_INVALID;

// Each thread's last lookup, valid while no state was made or deleted
// since (a handle may be reused once its communicator is freed): most
// calls in a row use one communicator, and an attribute lookup costs
// about 160 instructions per call (Open MPI).
std::atomic<uint64_t> g_states_changed{1};
// Zero-initialized, with no constructor to run (an initial handle would
// need a guard variable); generation 0 matches no lookup.
struct LastLookup {
  MPI_Comm comm;
  CommState* state;
  uint64_t generation;
};
// Initial-exec: in a shared library the default model reaches it through
// __tls_get_addr, about 50 instructions per look-up; this takes 24 bytes
// of the static TLS that glibc keeps for libraries loaded after start-up.
// Not for SMPI: its privatization dlopens a copy of the program per rank,
// which exhausts that static TLS.
#ifdef ADACOMP_STATIC_IN_EVERY_RANK
thread_local LastLookup t_last;
#else
thread_local LastLookup t_last __attribute__((tls_model("initial-exec")));
#endif

void free_group(Group* g) {
  if (g->comm != MPI_COMM_NULL) PMPI_Comm_free(&g->comm);
}

int delete_state(MPI_Comm, int, void* value, void*) {
  auto* s = static_cast<CommState*>(value);
  g_states_changed.fetch_add(1, std::memory_order_acq_rel);
  for (Group* g : {&s->rail, &s->leaders, &s->node, &s->coll}) free_group(g);
  delete s;  // and p2p's part, through its own deleter
  return MPI_SUCCESS;
}

// Our own errors are reported on the application's communicator; a
// private one just returns codes to us.
void describe(Group* g) {
  PMPI_Comm_set_errhandler(g->comm, MPI_ERRORS_RETURN);
  PMPI_Comm_rank(g->comm, &g->rank);
  PMPI_Comm_size(g->comm, &g->size);
}

Group split(MPI_Comm from, int color, int key) {
  Group g;
  PMPI_Comm_split(from, color, key, &g.comm);
  if (g.comm != MPI_COMM_NULL) describe(&g);
  return g;
}

// A private communicator over all of `comm`, ranks in the same order.
// Split, not dup: a duplicate would copy the application's attributes,
// running their copy callbacks now and their delete callbacks when ours
// is freed (MPICH's attr tests count them).
Group private_group(MPI_Comm comm) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  return split(comm, 0, rank);
}

}  // namespace

void comm_state_init() {
  // Null copy: a duplicate of an application communicator gets its own
  // private duplicate on first use rather than sharing ours.
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &g_keyval, nullptr);
}

void comm_state_finalize() {
  // Predefined communicators outlive MPI_Finalize's attribute sweep in some
  // implementations; free ours explicitly while MPI is fully usable.
  for (MPI_Comm comm : {MPI_COMM_WORLD, MPI_COMM_SELF}) {
    void* value = nullptr;
    int found = 0;
    PMPI_Comm_get_attr(comm, g_keyval, &value, &found);
    if (found) PMPI_Comm_delete_attr(comm, g_keyval);
  }
  PMPI_Comm_free_keyval(&g_keyval);  // sets it to MPI_KEYVAL_INVALID
  g_states_changed.fetch_add(1, std::memory_order_acq_rel);
}

CommState* find_comm_state(MPI_Comm comm) {
  const uint64_t generation = g_states_changed.load(std::memory_order_acquire);
  if (t_last.comm == comm && t_last.generation == generation) return t_last.state;
  void* value = nullptr;
  int found = 0;
  if (g_keyval == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL ||
      PMPI_Comm_get_attr(comm, g_keyval, &value, &found) != MPI_SUCCESS || !found)
    value = nullptr;
  t_last = {comm, static_cast<CommState*>(value), generation};
  return t_last.state;
}

CommState* comm_state(MPI_Comm comm, StatePart part) {
  CommState* s = find_comm_state(comm);
  if (!s) {
    s = new CommState;
    s->loc = learn_locality(comm);
    PMPI_Comm_set_attr(comm, g_keyval, s);
    g_states_changed.fetch_add(1, std::memory_order_acq_rel);
  }
  if (part == StatePart::collectives && s->coll.comm == MPI_COMM_NULL) {
    s->coll = private_group(comm);
    if (s->coll.comm == MPI_COMM_NULL) return nullptr;
  }
  return s;
}

void ensure_node_groups(CommState* s) {
  if (s->node.comm != MPI_COMM_NULL) return;
  const Locality& loc = s->loc;
  s->node = split(s->coll.comm, loc.node, s->coll.rank);
  s->leaders = split(s->coll.comm, loc.local_rank == 0 ? 0 : MPI_UNDEFINED, s->coll.rank);
  s->rail = split(s->coll.comm, loc.local_rank, s->coll.rank);
}

}  // namespace adacomp
