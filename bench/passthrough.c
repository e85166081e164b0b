/* Cost of a call AdaComp passes through: the median over batches of an
 * MPI_Allreduce per call (8 bytes, or `bytes`), of an MPI_Allgather of 8 bytes per rank
 * (the data-movement calls' gate and aliasing check), or of an 8-byte
 * MPI_Send/MPI_Recv ping-pong per message (half a round trip: one MPI_Send
 * and the matching MPI_Recv). Run it with and without the library preloaded
 * (bench/passthrough.sh does both, side by side). Two ranks for pingpong.
 * usage: adacomp-passthrough [allreduce|allgather|pingpong] [calls] [bytes] */
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

/* One call of operation `op` (0 Allreduce of n doubles, 1 Allgather, 2 ping-pong). */
static void one_call(int op, int rank, int n, double* in, double* out, double* all) {
  if (op == 0)
    MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  else if (op == 1)
    MPI_Allgather(in, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  else
    round_trip(rank, in);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, arg = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* ops[] = {"allreduce", "allgather", "pingpong"};
  int op = 0; /* index in ops */
  for (int k = 0; k < 3; ++k)
    if (argc > arg && !strcmp(argv[arg], ops[k])) op = k, ++arg;
  const int pingpong = op == 2;
  int calls = argc > arg ? atoi(argv[arg++]) : 200000;
  const int n = op == 0 && argc > arg ? atoi(argv[arg]) / (int)sizeof(double) : 1;
  if (calls < 100 || n < 1 || (pingpong && size < 2)) {
    if (rank == 0)
      fprintf(stderr,
              "usage: adacomp-passthrough [allreduce|allgather|pingpong] [calls >= 100] [bytes >= 8, "
              "allreduce] (pingpong: 2 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  const int batch = 100; /* time batches: one call is below the clock's resolution */
  int batches = calls / batch;
  double* t = malloc(sizeof(double) * batches);
  double* in = calloc(n, sizeof(double));
  double* out = calloc(n, sizeof(double));
  double* all = malloc(sizeof(double) * size);
  /* Random mantissas: no codec pays, so a model that times the call settles on plain MPI. */
  unsigned long long x = 88172645463325252ull + (unsigned long long)rank;
  for (int i = 0; i < n; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    in[i] = (double)(x >> 11) / 9007199254740992.0;
  }
  for (int i = 0; i < 1000; ++i) one_call(op, rank, n, in, out, all);
  for (int b = 0; b < batches; ++b) {
    double t0 = MPI_Wtime();
    for (int i = 0; i < batch; ++i) one_call(op, rank, n, in, out, all);
    t[b] = (MPI_Wtime() - t0) / (pingpong ? 2 * batch : batch);
  }
  qsort(t, batches, sizeof(double), compare);
  if (rank == 0 && pingpong)
    printf(
        "8-byte MPI_Send/MPI_Recv ping-pong: median %.1f ns per message (half round trip) over %d "
        "round trips\n",
        t[batches / 2] * 1e9, calls);
  else if (rank == 0)
    printf("%d-byte MPI_%s: median %.1f ns per call over %d calls\n",
           op == 0 ? n * (int)sizeof(double) : 8, op == 0 ? "Allreduce" : "Allgather",
           t[batches / 2] * 1e9, calls);
  free(in);
  free(out);
  free(all);
  free(t);
  MPI_Finalize();
  return 0;
}
