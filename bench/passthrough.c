/* Cost of a call AdaComp passes through: median time of an 8-byte
 * MPI_Allreduce over many calls. Run it with and without the library
 * preloaded (bench/passthrough.sh does both, side by side).
 * usage: adacomp-passthrough [calls] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int compare(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, calls = argc > 1 ? atoi(argv[1]) : 200000;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int batch = 100; /* time batches: one call is below the clock's resolution */
  int batches = calls / batch;
  double* t = malloc(sizeof(double) * batches);
  double in = rank, out = 0;
  for (int i = 0; i < 1000; ++i) MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int b = 0; b < batches; ++b) {
    double t0 = MPI_Wtime();
    for (int i = 0; i < batch; ++i) MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    t[b] = (MPI_Wtime() - t0) / batch;
  }
  qsort(t, batches, sizeof(double), compare);
  if (rank == 0) printf("8-byte MPI_Allreduce: median %.1f ns per call over %d calls\n", t[batches / 2] * 1e9, calls);
  free(t);
  MPI_Finalize();
  return 0;
}
