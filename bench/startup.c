/* Start-up cost: an empty MPI program. Each rank prints how long its
 * MPI_Init and MPI_Finalize took, in ms, after MPI_Finalize (so that the
 * printing costs neither call); bench/startup.sh runs it with and without
 * the library and takes the slowest rank of each run.
 * usage: adacomp-startup */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  const double t0 = now();
  MPI_Init(&argc, &argv);
  const double t1 = now();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const double t2 = now();
  MPI_Finalize();
  const double t3 = now();
  printf("startup rank %d init_ms %.3f finalize_ms %.3f\n", rank, (t1 - t0) * 1e3, (t3 - t2) * 1e3);
  return 0;
}
