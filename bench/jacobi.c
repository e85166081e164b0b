/* A plain MPI application, as users write them, for the "real
 * applications" check (bench/apps.sh): Jacobi iteration of the 2-D heat
 * equation on an N x N grid, rows split over the ranks, halo rows swapped
 * every step with MPI_Irecv/MPI_Isend/MPI_Waitall (the point-to-point
 * pattern of most stencil codes), the residual summed with MPI_Allreduce
 * every CHECK steps. Nothing in it knows about AdaComp.
 *   adacomp-jacobi [N=1024] [STEPS=400] [CHECK=50]
 * Prints the residuals and a checksum of the final grid in hexadecimal
 * floating point (so that two runs can be compared bit for bit), then
 * "time S" (the slowest rank's seconds in the loop). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 1024;
  const int steps = argc > 2 ? atoi(argv[2]) : 400;
  const int check = argc > 3 ? atoi(argv[3]) : 50;
  /* Rows [first, first + rows) of the grid, plus one halo row each side. */
  const int rows = n / size + (rank < n % size),
            first = rank * (n / size) + (rank < n % size ? rank : n % size);
  const size_t stride = (size_t)n;
  double* u = calloc((size_t)(rows + 2) * stride, sizeof *u);
  double* v = calloc((size_t)(rows + 2) * stride, sizeof *v);
  if (!u || !v) MPI_Abort(MPI_COMM_WORLD, 1);
  /* A hot spot and a warm left edge: a field that changes smoothly. */
  for (int i = 1; i <= rows; ++i)
    for (int j = 0; j < n; ++j) {
      const int gi = first + i - 1;
      const double di = gi - n / 3.0, dj = j - n / 2.0;
      u[i * stride + j] = (j == 0 ? 1.0 : 0.0) + (di * di + dj * dj < n * n / 64.0 ? 2.0 : 0.0);
    }
  memcpy(v, u, (size_t)(rows + 2) * stride * sizeof *u);
  const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL,
            down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int s = 1; s <= steps; ++s) {
    MPI_Request req[4];
    MPI_Irecv(u, n, MPI_DOUBLE, up, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(u + (size_t)(rows + 1) * stride, n, MPI_DOUBLE, down, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(u + stride, n, MPI_DOUBLE, up, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(u + (size_t)rows * stride, n, MPI_DOUBLE, down, 0, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
    double local = 0;
    for (int i = 1; i <= rows; ++i) {
      const int gi = first + i - 1;
      if (gi == 0 || gi == n - 1) continue; /* fixed boundary rows */
      for (int j = 1; j < n - 1; ++j) {
        const double* c = u + i * stride + j;
        const double next = 0.25 * (c[-1] + c[1] + c[-(long)stride] + c[stride]);
        local += (next - *c) * (next - *c);
        v[i * stride + j] = next;
      }
    }
    double* t = u;
    u = v;
    v = t;
    if (s % check == 0) {
      double global;
      MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      if (rank == 0) printf("step %d residual %a\n", s, global);
    }
  }
  double elapsed = MPI_Wtime() - t0, slowest;
  double sum = 0;
  for (int i = 1; i <= rows; ++i)
    for (int j = 0; j < n; ++j)
      sum += u[i * stride + j] * (1.0 + (first + i - 1) * 1e-3 + j * 1e-6);
  /* Added in rank order on rank 0: the checksum must not depend on the
   * order in which an MPI library reduces. */
  double* parts = rank == 0 ? malloc(sizeof(double) * size) : NULL;
  MPI_Gather(&sum, 1, MPI_DOUBLE, parts, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double checksum = 0;
    for (int r = 0; r < size; ++r) checksum += parts[r];
    printf("checksum %a\ntime %.6f\n", checksum, slowest);
    free(parts);
  }
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
