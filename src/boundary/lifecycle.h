// MPI_Init*/MPI_Finalize: start and stop the library around the real calls.
#pragma once

#include "decision/call_result.h"

namespace adacomp {

int init(int* argc, char*** argv);
int init_thread(int* argc, char*** argv, int required, int* provided);
int finalize();
// MPI_Pcontrol(level): coding off for level 0, on for the others
// (runtime/runtime.h set_coding_on); then declined, so that PMPI_Pcontrol runs
// too (a profiler underneath sees it).
CallResult pcontrol(int level);

}  // namespace adacomp
