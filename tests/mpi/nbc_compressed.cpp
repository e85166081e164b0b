// Compressed MPI_Iallreduce, MPI_Ibcast, MPI_Ireduce and
// MPI_Ireduce_scatter_block (issue 14), compression forced:
// results bit-identical to the blocking compressed calls (and, for integers,
// to PMPI), for several types and ops, in place, count 0, odd counts, on the
// world and a split communicator; several outstanding at once completed in
// reverse order; mixed arrays with point-to-point requests through Waitall,
// Testsome, Waitany, Testany and Request_get_status; a freed active request;
// a blocking collective while nonblocking ones are outstanding; persistent
// Allreduce_init and Bcast_init (MPI-4: MPICH). The stats
// prove the compressed path ran.
//
// Run with ADACOMP_NONBLOCKING=on; --default runs without it (see
// default_passthrough). A rank blocked in an intercepted Recv keeps
// advancing its schedules (blocked_peer).
// --quick (oversubscribed MPICH): the world communicator only.
// --lossy BOUND (lossy mode, that absolute bound): see lossy_case (lossy.cpp).
// --corrupt (with ADACOMP_FAULT=corrupt-frames): the failure reaches the
// communicator's error handler from Wait, Test and Waitall, never a hang,
// and its message names the call the user made (MPI_Iallreduce, ...).
//
// The suites live in tests/mpi/nbc_compressed/ by feature; this file picks
// and runs them.
#include <mpi.h>

#include <cstdlib>
#include <cstring>

#include "check.h"
#include "nbc_compressed/suites.h"

using namespace nbc_test;

namespace {

void run(MPI_Comm comm, const char* name) {
  // The communicator's first compressed collective is a blocking one: it
  // creates the library's state (plan_call in src/coll/plan.h).
  int one = 1, total = 0;
  MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, comm);
  allreduce_cases(comm, name);
  bcast_cases(comm, name);
  reduce_cases(comm, name);
  outstanding(comm, name);
  wait_orders(comm, name);
  mixed(comm, name);
  free_active(comm, name);
#if MPI_VERSION >= 4
  persistent_cases(comm, name);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1 && std::strcmp(argv[1], "--default") == 0) {
    default_passthrough(MPI_COMM_WORLD);
    return finish_test("nbc_compressed --default");
  }
  if (argc > 2 && std::strcmp(argv[1], "--lossy") == 0) {
    lossy_cases(std::atof(argv[2]));
    return finish_test("nbc_compressed --lossy");
  }
  if (argc > 1 && std::strcmp(argv[1], "--corrupt") == 0) {
    corrupt();
    return finish_test("nbc_compressed --corrupt");
  }
  run(MPI_COMM_WORLD, "world");
  blocked_peer(MPI_COMM_WORLD, false);
  if (argc > 1 && std::strcmp(argv[1], "--quick") == 0) return finish_test("nbc_compressed");
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  run(half, "split");
  MPI_Comm_free(&half);
  return finish_test("nbc_compressed");
}
