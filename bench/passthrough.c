/* Cost of a call AdaComp passes through: the median over batches of an
 * 8-byte MPI_Allreduce per call, or of an 8-byte MPI_Send/MPI_Recv
 * ping-pong per message (half a round trip: one MPI_Send and the matching
 * MPI_Recv). Run it with and without the library preloaded
 * (bench/passthrough.sh does both, side by side). Two ranks for pingpong.
 * usage: adacomp-passthrough [allreduce|pingpong] [calls] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* One round trip of 8 bytes between ranks 0 and 1 (other ranks idle). */
static void round_trip(int rank, double* buf) {
  if (rank == 0) {
    MPI_Send(buf, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
    MPI_Recv(buf, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (rank == 1) {
    MPI_Recv(buf, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(buf, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, arg = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int pingpong = argc > arg && !strcmp(argv[arg], "pingpong");
  if (argc > arg && (pingpong || !strcmp(argv[arg], "allreduce"))) ++arg;
  int calls = argc > arg ? atoi(argv[arg]) : 200000;
  if (calls < 100 || (pingpong && size < 2)) {
    if (rank == 0) fprintf(stderr, "usage: adacomp-passthrough [allreduce|pingpong] [calls >= 100] (pingpong: 2 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  const int batch = 100; /* time batches: one call is below the clock's resolution */
  int batches = calls / batch;
  double* t = malloc(sizeof(double) * batches);
  double in = rank, out = 0;
  for (int i = 0; i < 1000; ++i)
    if (pingpong) round_trip(rank, &in);
    else MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int b = 0; b < batches; ++b) {
    double t0 = MPI_Wtime();
    for (int i = 0; i < batch; ++i)
      if (pingpong) round_trip(rank, &in);
      else MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    t[b] = (MPI_Wtime() - t0) / (pingpong ? 2 * batch : batch);
  }
  qsort(t, batches, sizeof(double), compare);
  if (rank == 0 && pingpong)
    printf("8-byte MPI_Send/MPI_Recv ping-pong: median %.1f ns per message (half round trip) over %d round trips\n",
           t[batches / 2] * 1e9, calls);
  else if (rank == 0)
    printf("8-byte MPI_Allreduce: median %.1f ns per call over %d calls\n", t[batches / 2] * 1e9, calls);
  free(t);
  MPI_Finalize();
  return 0;
}
