/* A TCP connection's first messages (docs/benchmarks.md, "A connection's
 * first messages"): ping-pong latency of 1-32 KB between ranks 0 and 1,
 * timed twice in one job, plain MPI only. The first pass runs on a fresh
 * connection; between the passes ranks 0 and 1 trade COUNT one-way
 * transfers of BULK bytes (one byte back). On Linux TCP (the emulated
 * links of tools/cluster.sh, shaped or not) the second pass is slower at
 * 2-16 KB even with COUNT 0: the first pass's own 4-32 KB messages move
 * the connection, as AdaComp's link probe does at MPI_Init.
 *   adacomp-connection-state [BULK [COUNT]]   (default 131072 0)
 * Prints: bytes, first pass us, second pass us, first/second. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kRoundTrips = 200, kSamples = 9, kSizes = 6 };

static int compare(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Ranks 0 and 1: `bytes` from 0 to 1 and `back` bytes back, `rounds` times. */
static void round_trips(int rank, char* buf, int bytes, int back, int rounds) {
  for (int i = 0; i < rounds; ++i) {
    if (rank == 0) {
      MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
      MPI_Recv(buf, back, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, back, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
    }
  }
}

/* Median over kSamples of the half round trip of `bytes`, in us. */
static double latency(int rank, char* buf, int bytes) {
  double s[kSamples];
  for (int k = 0; k < kSamples; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    round_trips(rank, buf, bytes, bytes, kRoundTrips);
    s[k] = (MPI_Wtime() - t0) / (2 * kRoundTrips) * 1e6;
  }
  qsort(s, kSamples, sizeof *s, compare);
  return s[kSamples / 2];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int bulk = argc > 1 ? atoi(argv[1]) : 131072, count = argc > 2 ? atoi(argv[2]) : 0;
  if (size < 2 || bulk < 1 || count < 0) {
    if (rank == 0) fprintf(stderr, "usage: adacomp-connection-state [BULK [COUNT]] (2+ ranks)\n");
    MPI_Finalize();
    return 2;
  }
  const int sizes[kSizes] = {1024, 2048, 4096, 8192, 16384, 32768};
  char* buf = calloc(1, bulk > 32768 ? (size_t)bulk : 32768);
  double first[kSizes], second[kSizes];
  for (int j = 0; j < kSizes; ++j) first[j] = latency(rank, buf, sizes[j]);
  round_trips(rank, buf, bulk, 1, count);
  for (int j = 0; j < kSizes; ++j) second[j] = latency(rank, buf, sizes[j]);
  if (rank == 0)
    for (int j = 0; j < kSizes; ++j)
      printf("%d\t%.2f\t%.2f\t%.3f\n", sizes[j], first[j], second[j], first[j] / second[j]);
  free(buf);
  MPI_Finalize();
  return 0;
}
