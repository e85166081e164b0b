#include "boundary/lifecycle.h"

#include <mpi.h>

#include <chrono>

#include "coll/schedule.h"
#include "boundary/start.h"
#include "report/op_stats.h"
#include "p2p/p2p.h"
#include "runtime/runtime.h"
#include "transfer/threads.h"

namespace adacomp {

namespace {

// The library's part of MPI_Init, after PMPI_Init* took `pmpi_s` seconds
// (timed with the C++ clock: PMPI_Wtime needs MPI initialised).
void start_library(double pmpi_s) {
  const double start = PMPI_Wtime();
  runtime_start();
  const double p2p_start = PMPI_Wtime();
  p2p_init();
  const double p2p_s = PMPI_Wtime() - p2p_start;
  progress_thread_start();
  print_startup_times(pmpi_s, p2p_s, PMPI_Wtime() - start);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int init(int* argc, char*** argv) {
  stop_on_wrong_mpi();
  const auto t0 = std::chrono::steady_clock::now();
  int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) start_library(seconds_since(t0));
  return rc;
}

int init_thread(int* argc, char*** argv, int required, int* provided) {
  stop_on_wrong_mpi();
  const auto t0 = std::chrono::steady_clock::now();
  int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) start_library(seconds_since(t0));
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
// each level are kept apart (report/op_stats.h regions).
CallResult pcontrol(int level) {
  set_pcontrol_level(level);
  set_stats_region(level != 0 ? 1 : 0);
  return kDeclined;
}

}  // namespace adacomp
