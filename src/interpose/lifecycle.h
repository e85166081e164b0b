// MPI_Init*/MPI_Finalize: start and stop the library around the real calls.
#pragma once

namespace adacomp {

int init(int* argc, char*** argv);
int init_thread(int* argc, char*** argv, int required, int* provided);
int finalize();

}  // namespace adacomp
