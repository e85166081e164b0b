/* A program built against an installed AdaComp (find_package or pkg-config):
 * linked before libmpi, the library intercepts its Allreduce. */
#include <adacomp.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  enum { n = 1 << 16 };
  static double x[n], sum[n];
  for (int i = 0; i < n; ++i) x[i] = 1.0 + i % 7;
  MPI_Allreduce(x, sum, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int ok = 1;
  for (int i = 0; i < n; ++i) ok &= sum[i] == size * (1.0 + i % 7);
  adacomp_op_stats s;
  adacomp_get_stats("allreduce", &s);
  if (rank == 0)
    printf("consumer: adacomp %s, allreduce %s, %llu of %llu calls compressed\n",
           adacomp_version(), ok ? "correct" : "WRONG", s.compressed_calls, s.calls);
  MPI_Finalize();
  return ok ? 0 : 1;
}
