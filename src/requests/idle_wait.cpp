#include "requests/idle_wait.h"

#include <sched.h>

#include <chrono>
#include <thread>

namespace adacomp {
namespace {

constexpr double kYieldingSeconds = 2e-3;
constexpr auto kNap = std::chrono::microseconds(200);

}  // namespace

// Yielding: with a core of its own a rank gets it straight back, so a
// collective of several rounds (a Comm_idup's context-id agreement, an
// allgather's recursive doubling) runs at polling speed; on a shared core
// the ranks that still have to reach the call run. Napping once the wait
// is long (a rank that starts late, a leader probing the link) frees the
// core for good, but delays the next round by the nap.
bool wait_asleep(MPI_Request* request, double timeout_s) {
#ifdef ADACOMP_STATIC_IN_EVERY_RANK  // SMPI
  (void)timeout_s;
  PMPI_Wait(request, MPI_STATUS_IGNORE);
  return true;
#else
  const double start = PMPI_Wtime();
  for (;;) {
    int done = 0;
    PMPI_Test(request, &done, MPI_STATUS_IGNORE);
    if (done) return true;
    const double waited = PMPI_Wtime() - start;
    if (timeout_s > 0 && waited > timeout_s) return false;
    if (waited < kYieldingSeconds)
      sched_yield();
    else
      std::this_thread::sleep_for(kNap);
  }
#endif
}

int comm_dup_asleep(MPI_Comm comm, MPI_Comm* newcomm) {
#ifdef ADACOMP_STATIC_IN_EVERY_RANK  // SMPI 3.32 has no MPI_Comm_idup
  return PMPI_Comm_dup(comm, newcomm);
#else
  MPI_Request request;
  const int rc = PMPI_Comm_idup(comm, newcomm, &request);
  if (rc == MPI_SUCCESS) wait_asleep(&request);
  return rc;
#endif
}

}  // namespace adacomp
