/* Conjugate gradients on K independent systems at once (an ensemble of
 * N-point implicit diffusion steps, (I - dt Laplacian) x = b in 1-D, rows
 * split over the ranks, as a batched solver keeps them): why a solver needs lossy scopes
 * (docs/lossy-scopes.md). Each iteration exchanges the direction's
 * boundary rows with the neighbours (MPI_Sendrecv of K doubles, the
 * "vector exchange") and sums the K systems' dot products with
 * MPI_Allreduce (two a step). The dot products steer the iteration and
 * decide convergence: an error there changes the iteration count; the
 * exchange only perturbs the operator's input, within the bound.
 *   adacomp-cg [N=64] [K=8192] [MAXIT=1000] [TOL=1e-8] [HALO_BOUND]
 * HALO_BOUND (e.g. 1e-6): the exchange runs on a duplicate of
 * MPI_COMM_WORLD hinted adacomp_rel_error_bound=HALO_BOUND; the dot
 * products always run on a plain duplicate. Prints the iterations, the
 * largest final residual norm, a checksum of the residual history (hex,
 * to compare runs bit for bit) and "time S" (the slowest rank's loop). */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double max_of(const double* v, int k) {
  double m = 0;
  for (int j = 0; j < k; ++j) m = v[j] > m ? v[j] : m;
  return m;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 64;
  const int k = argc > 2 ? atoi(argv[2]) : 8192;
  const int maxit = argc > 3 ? atoi(argv[3]) : 1000;
  const double tol = argc > 4 ? atof(argv[4]) : 1e-8;
  MPI_Comm halo, dots;
  if (argc > 5) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "adacomp_rel_error_bound", argv[5]);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &halo);
    MPI_Info_free(&info);
  } else {
    MPI_Comm_dup(MPI_COMM_WORLD, &halo);
  }
  MPI_Comm_dup(MPI_COMM_WORLD, &dots);
  /* Rows [first, first + rows), each K values (one per system), plus a halo
   * row each side. */
  const int rows = n / size + (rank < n % size),
            first = rank * (n / size) + (rank < n % size ? rank : n % size);
  const size_t row = (size_t)k, all = (size_t)(rows + 2) * row;
  double* x = calloc(all, sizeof *x);
  double* r = calloc(all, sizeof *r);
  double* p = calloc(all, sizeof *p);
  double* q = calloc(all, sizeof *q);
  double *rr = malloc(row * sizeof *rr), *rr_new = malloc(row * sizeof *rr),
         *pq = malloc(row * sizeof *pq), *part = malloc(row * sizeof *part);
  if (!x || !r || !p || !q || !rr || !rr_new || !pq || !part) MPI_Abort(MPI_COMM_WORLD, 1);
  /* Right-hand sides that vary smoothly from system to system; x0 = 0, so
   * r = p = b. */
  for (int i = 1; i <= rows; ++i)
    for (int j = 0; j < k; ++j) {
      const double s = (first + i) / (double)(n + 1), t = j / (double)k;
      r[i * row + j] = p[i * row + j] = sin(3.14159265358979 * s * (1 + 2 * t)) + 0.5 * t;
    }
  const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL,
            down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  /* The K dot products u.v over every rank's rows, on `dots`. */
#define DOTS(u, v, out)                                                      \
  do {                                                                       \
    for (int j = 0; j < k; ++j) part[j] = 0;                                 \
    for (int i = 1; i <= rows; ++i)                                          \
      for (int j = 0; j < k; ++j) part[j] += (u)[i * row + j] * (v)[i * row + j]; \
    MPI_Allreduce(part, out, k, MPI_DOUBLE, MPI_SUM, dots);                  \
  } while (0)
  DOTS(r, r, rr);
  const double start_norm = sqrt(max_of(rr, k));
  uint64_t history = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  int it = 0;
  for (; it < maxit && sqrt(max_of(rr, k)) > tol * start_norm; ++it) {
    /* The exchange: p's boundary rows to the neighbours, theirs into the halo. */
    MPI_Sendrecv(p + 1 * row, k, MPI_DOUBLE, up, 1, p + (size_t)(rows + 1) * row, k, MPI_DOUBLE,
                 down, 1, halo, MPI_STATUS_IGNORE);
    MPI_Sendrecv(p + (size_t)rows * row, k, MPI_DOUBLE, down, 2, p, k, MPI_DOUBLE, up, 2, halo,
                 MPI_STATUS_IGNORE);
    /* q = A p, A = tridiag(-1, 4, -1) (zero boundary values): an implicit
     * step's operator, well conditioned, so CG converges steadily. */
    for (int i = 1; i <= rows; ++i)
      for (int j = 0; j < k; ++j)
        q[i * row + j] = 4 * p[i * row + j] - p[(i - 1) * row + j] - p[(i + 1) * row + j];
    DOTS(p, q, pq);
    for (int i = 1; i <= rows; ++i)
      for (int j = 0; j < k; ++j) {
        const double alpha = pq[j] != 0 ? rr[j] / pq[j] : 0;
        x[i * row + j] += alpha * p[i * row + j];
        r[i * row + j] -= alpha * q[i * row + j];
      }
    DOTS(r, r, rr_new);
    for (int i = 1; i <= rows; ++i)
      for (int j = 0; j < k; ++j) {
        const double beta = rr[j] != 0 ? rr_new[j] / rr[j] : 0;
        p[i * row + j] = r[i * row + j] + beta * p[i * row + j];
      }
    memcpy(rr, rr_new, row * sizeof *rr);
    const double norm = sqrt(max_of(rr, k));
    uint64_t bits;
    memcpy(&bits, &norm, sizeof bits);
    history = history * 1099511628211ull ^ bits;
  }
  double seconds = MPI_Wtime() - t0, slowest = 0;
  MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("iterations %d\nresidual %.6e\nhistory %016llx\ntime %.4f\n", it,
           sqrt(max_of(rr, k)) / start_norm, (unsigned long long)history, slowest);
  MPI_Comm_free(&halo);
  MPI_Comm_free(&dots);
  free(x), free(r), free(p), free(q), free(rr), free(rr_new), free(pq), free(part);
  MPI_Finalize();
  return 0;
}
