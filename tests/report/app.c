/* A small MPI program for report tests: each step allreduces, broadcasts,
 * exchanges with its ring neighbours (MPI_Sendrecv) and all-to-alls a smooth
 * field of doubles, and checks what it got.
 * usage: report-app [steps] [kilobytes per message]; prints "report-app ok". */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void field(double* u, int n, int rank, int step) {
  for (int i = 0; i < n; ++i) u[i] = 300.0 + 20.0 * sin(1e-3 * i + rank) + 1e-2 * step;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int steps = argc > 1 ? atoi(argv[1]) : 4;
  int n = (argc > 2 ? atoi(argv[2]) : 512) * 1024 / (int)sizeof(double);
  n -= n % size; /* all-to-all blocks of n / size */
  double *mine = malloc(sizeof(double) * n), *got = malloc(sizeof(double) * n);
  double* want = malloc(sizeof(double) * n);
  int bad = 0;
  for (int step = 0; step < steps; ++step) {
    field(mine, n, rank, step);
    MPI_Allreduce(mine, got, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (int r = 0; r < size; ++r) sum += 300.0 + 20.0 * sin(1e-3 * i + r) + 1e-2 * step;
      bad += fabs(got[i] - sum) > 1e-9 * fabs(sum);
    }
    field(got, n, 0, step);
    if (rank != 0) for (int i = 0; i < n; ++i) got[i] = 0;
    MPI_Bcast(got, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    field(want, n, 0, step);
    for (int i = 0; i < n; ++i) bad += got[i] != want[i];
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Sendrecv(mine, n, MPI_DOUBLE, right, 7, got, n, MPI_DOUBLE, left, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    field(want, n, left, step);
    for (int i = 0; i < n; ++i) bad += got[i] != want[i];
    MPI_Alltoall(mine, n / size, MPI_DOUBLE, got, n / size, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r) {
      field(want, n, r, step);
      for (int i = 0; i < n / size; ++i) bad += got[r * (n / size) + i] != want[rank * (n / size) + i];
    }
  }
  int all_bad = 0;
  MPI_Reduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf(all_bad ? "report-app: %d wrong values\n" : "report-app ok\n", all_bad);
  free(mine);
  free(got);
  free(want);
  MPI_Finalize();
  return all_bad != 0;
}
