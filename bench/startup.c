/* Start-up cost: an empty MPI program. Each rank prints how long its
 * MPI_Init and MPI_Finalize took, in ms, after MPI_Finalize (so that the
 * printing costs neither call); bench/startup.sh runs it with and without
 * the library and takes the slowest rank of each run. With --exchange, the
 * ranks first exchange one int with every other rank (MPI_Alltoall), timed
 * apart: the connections between nodes that any job talking across them
 * makes, which plain MPI makes there and the library's start-up already has.
 * usage: adacomp-startup [--exchange] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double exchange_ms = 0;
  if (argc > 1 && strcmp(argv[1], "--exchange") == 0) {
    int* out = calloc((size_t)size, sizeof *out);
    int* in = calloc((size_t)size, sizeof *in);
    const double e0 = now();
    MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);
    exchange_ms = (now() - e0) * 1e3;
    free(out);
    free(in);
  }
  const double t2 = now();
  MPI_Finalize();
  const double t3 = now();
  printf("startup rank %d init_ms %.3f finalize_ms %.3f exchange_ms %.3f\n", rank,
         (t1 - t0) * 1e3, (t3 - t2) * 1e3, exchange_ms);
  return 0;
}
