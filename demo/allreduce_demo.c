/* Demo application: an unmodified MPI program that allreduces a smooth
 * physical field (a 2-D temperature field after explicit heat-diffusion
 * steps, as a solver would exchange it) and times the calls.
 * usage: adacomp-demo [megabytes] [iterations] [max relative error] */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Hot spots on a cold plate, relaxed by a few Jacobi sweeps of the heat
 * equation: smooth, but not trivially so. Each rank holds its own field. */
static void heat_field(double* u, int nx, int ny, int rank) {
  double* tmp = malloc(sizeof(double) * nx * ny);
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      double x = (double)i / nx, y = (double)j / ny;
      u[j * nx + i] = 300.0 + 50.0 * exp(-40.0 * ((x - 0.3) * (x - 0.3) + (y - 0.4) * (y - 0.4))) +
                      20.0 * sin(6.0 * x + rank) * cos(4.0 * y);
    }
  for (int step = 0; step < 4; ++step) {
    memcpy(tmp, u, sizeof(double) * nx * ny);
    for (int j = 1; j < ny - 1; ++j)
      for (int i = 1; i < nx - 1; ++i)
        u[j * nx + i] = tmp[j * nx + i] +
                        0.2 * (tmp[j * nx + i - 1] + tmp[j * nx + i + 1] + tmp[(j - 1) * nx + i] +
                               tmp[(j + 1) * nx + i] - 4.0 * tmp[j * nx + i]);
  }
  free(tmp);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double mb = argc > 1 ? atof(argv[1]) : 8.0;
  int iters = argc > 2 ? atoi(argv[2]) : 10;
  double tolerance = argc > 3 ? atof(argv[3]) : 1e-12; /* summation order only */
  int n = (int)(mb * 1024 * 1024 / sizeof(double));
  int nx = 1024, ny = (n + nx - 1) / nx;
  double* field = malloc(sizeof(double) * nx * ny);
  double* sum = malloc(sizeof(double) * n);
  double* times = malloc(sizeof(double) * iters);
  heat_field(field, nx, ny, rank);

  MPI_Allreduce(field, sum, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* warm-up */
  for (int it = 0; it < iters; ++it) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Allreduce(field, sum, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    times[it] = MPI_Wtime() - t0;
  }
  /* Check against a plain reference sum built from every rank's field. */
  double max_err = 0.0;
  {
    double* all = malloc(sizeof(double) * nx * ny);
    double* ref = calloc(n, sizeof(double));
    for (int r = 0; r < size; ++r) {
      heat_field(all, nx, ny, r);
      for (int i = 0; i < n; ++i) ref[i] += all[i];
    }
    for (int i = 0; i < n; ++i) {
      double e = fabs(sum[i] - ref[i]) / fabs(ref[i]);
      if (e > max_err) max_err = e;
    }
    free(all);
    free(ref);
  }
  qsort(times, iters, sizeof(double), compare);
  if (rank == 0)
    printf(
        "allreduce %.1f MB doubles x %d ranks: median %.2f ms, max rel. error vs reference %.2e\n",
        mb, size, times[iters / 2] * 1e3, max_err);
  free(field);
  free(sum);
  free(times);
  MPI_Finalize();
  if (rank == 0 && max_err > tolerance)
    printf("FAILED: error %.2e above the allowed %.2e\n", max_err, tolerance);
  return max_err <= tolerance ? 0 : 1;
}
