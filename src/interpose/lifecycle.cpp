#include "interpose/lifecycle.h"

#include <mpi.h>

#include "coll/schedule.h"
#include "interpose/start.h"
#include "observe/op_stats.h"
#include "p2p/p2p.h"
#include "services/runtime.h"
#include "transfer/threads.h"

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

// Level 0 switches coding off, any other level on again; the statistics of
// each level are kept apart (observe/op_stats.h regions).
CallResult pcontrol(int level) {
  set_coding_on(level != 0);
  set_stats_region(level != 0 ? 1 : 0);
  return kDeclined;
}

}  // namespace adacomp
