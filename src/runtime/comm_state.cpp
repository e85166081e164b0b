#include "runtime/comm_state.h"

#include <initializer_list>

namespace adacomp {
namespace {

int g_keyval = MPI_KEYVAL_INVALID;

int delete_state(MPI_Comm, int, void* value, void*) {
  auto* s = static_cast<CommState*>(value);
  PMPI_Comm_free(&s->coll);
  delete s;
  return MPI_SUCCESS;
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
  PMPI_Comm_free_keyval(&g_keyval);
}

CommState* comm_state(MPI_Comm comm) {
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, g_keyval, &value, &found);
  if (found) return static_cast<CommState*>(value);
  auto* s = new CommState;
  if (PMPI_Comm_dup(comm, &s->coll) != MPI_SUCCESS) {
    delete s;
    return nullptr;
  }
  // Our own errors are reported on the application's communicator; the
  // private one just returns codes to us.
  PMPI_Comm_set_errhandler(s->coll, MPI_ERRORS_RETURN);
  PMPI_Comm_rank(s->coll, &s->rank);
  PMPI_Comm_size(s->coll, &s->size);
  PMPI_Comm_set_attr(comm, g_keyval, s);
  return s;
}

}  // namespace adacomp
