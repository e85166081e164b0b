#include "interpose/lifecycle.h"

#include <mpi.h>

#include "coll/schedule.h"
#include "p2p/p2p.h"
#include "runtime/runtime.h"
#include "runtime/threads.h"

namespace adacomp {

int init(int* argc, char*** argv) {
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) {
    runtime_start();
    p2p_init();
    progress_thread_start();
  }
  return rc;
}

int init_thread(int* argc, char*** argv, int required, int* provided) {
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) {
    runtime_start();
    p2p_init();
    progress_thread_start();
  }
  return rc;
}

int finalize() {
  progress_thread_stop();
  drain_collectives();
  p2p_finalize();
  stop_threads();
  runtime_stop();
  return PMPI_Finalize();
}

CallResult pcontrol(int level) {
  set_coding_level(level);
  return kDeclined;
}

}  // namespace adacomp
