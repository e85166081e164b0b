/* Built without AdaComp (issue 12, D6): started on some ranks through the
 * adacomp launcher and on the others plain, a point-to-point-only program
 * must fail with a message on the ranks that have the library, not hang in
 * MPI_Init. Run alone on every rank (with or without the library) it passes. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, value = 42;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 1) MPI_Send(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
  if (rank == 0 && size > 1) MPI_Recv(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Finalize();
  return value == 42 ? 0 : 1;
}
