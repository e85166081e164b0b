#include "runtime/args.h"

#include <climits>
#include <mutex>

#include "runtime/datatype.h"

namespace adacomp {
namespace {

int g_tag_ub = INT_MAX;
// MPI_COMM_SELF's duplicate with MPI_ERRORS_RETURN: MPI is asked there
// whether it accepts a derived datatype (no MPI call tells whether one is
// committed).
MPI_Comm g_self = MPI_COMM_NULL;

// A send of one element (none for count 0: MPICH checks the commit only for
// data) to MPI_PROC_NULL moves nothing but checks the datatype as a real
// send does.
int type_error(MPI_Datatype type, bool has_data) {
  if (type == MPI_DATATYPE_NULL) return MPI_ERR_TYPE;
  if (is_named(type) || g_self == MPI_COMM_NULL) return MPI_SUCCESS;
  static char dummy;
#ifdef ADACOMP_STATIC_IN_EVERY_RANK  // SMPI 3.32 reads a send's data even to MPI_PROC_NULL
  has_data = false;
#endif
  int rc = PMPI_Send(&dummy, has_data ? 1 : 0, type, MPI_PROC_NULL, 0, g_self);
  if (rc == MPI_SUCCESS) return MPI_SUCCESS;
  int cls = MPI_ERR_TYPE;
  PMPI_Error_class(rc, &cls);
  return cls;
}

}  // namespace

void args_init() {
  int* ub = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &found);
  if (found && ub) g_tag_ub = *ub;
  if (PMPI_Comm_dup(MPI_COMM_SELF, &g_self) == MPI_SUCCESS)
    PMPI_Comm_set_errhandler(g_self, MPI_ERRORS_RETURN);
}

MPI_Comm private_self() { return g_self; }

void args_finalize() {
  if (g_self != MPI_COMM_NULL) PMPI_Comm_free(&g_self);
}

bool alias_probe_applies(MPI_Comm comm, int root, int* rank) {
  int inter = 1;
  if (g_self == MPI_COMM_NULL || comm == MPI_COMM_NULL ||
      PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
    return false;
  PMPI_Comm_rank(comm, rank);
  return root == kNoRoot || root == *rank;
}

int run_alias_probe(int (*probe)(void*, MPI_Comm, int), void* context, int rank) {
  static std::mutex one_at_a_time;
  std::lock_guard<std::mutex> hold(one_at_a_time);
  return probe(context, g_self, rank);
}

int arg_error(MPI_Comm comm, MPI_Count count, MPI_Datatype type, int peer, Peer role, int tag) {
  if (count < 0) return MPI_ERR_COUNT;
  if (int e = type_error(type, count > 0)) return e;
  if (role == Peer::none) return MPI_SUCCESS;
  const bool source = role == Peer::source;
  if (tag < 0 ? !(source && tag == MPI_ANY_TAG) : tag > g_tag_ub) return MPI_ERR_TAG;
  if (peer == MPI_PROC_NULL || (source && peer == MPI_ANY_SOURCE)) return MPI_SUCCESS;
  int size = 0;
  PMPI_Comm_size(comm, &size);
  return peer < 0 || peer >= size ? MPI_ERR_RANK : MPI_SUCCESS;
}

bool collective_args_ok(MPI_Comm comm, MPI_Count count, MPI_Datatype type, MPI_Op op,
                        bool reduction, TypeInfo* info) {
  if (arg_error(comm, count, type, MPI_PROC_NULL, Peer::none, 0)) return false;
  *info = type_info(type);
  return !reduction || (reducible(*info) && op_commutative(op) && op_defined_for(op, type));
}

}  // namespace adacomp
