/* The random-access phase of an application, as a user first runs it: in
 * each round every rank sends one small message (MPI_Isend) to a rank drawn
 * from a sequence all ranks share, and receives the messages drawn for it
 * one at a time with MPI_Irecv(MPI_ANY_SOURCE) and a tight MPI_Test polling
 * loop. Every message is checked (source, count, contents). Prints the
 * phase's time on rank 0 (the slowest rank's). bench/random_access.sh runs
 * it with and without the library, alternating.
 * usage: adacomp-random-access [rounds, default 100000] [bytes, default 8] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The destination of `sender`'s message in round `round`: a hash both
 * sides compute, never the sender itself. */
static int destination(int round, int sender, int size) {
  uint64_t x = (uint64_t)round * 0x9e3779b97f4a7c15ull + (uint64_t)sender * 0xbf58476d1ce4e5b9ull;
  x ^= x >> 31, x *= 0x94d049bb133111ebull, x ^= x >> 29;
  return (sender + 1 + (int)(x % (uint64_t)(size - 1))) % size;
}

static void fill(unsigned char* buf, int n, int round, int sender) {
  for (int i = 0; i < n; ++i) buf[i] = (unsigned char)(round * 31 + sender * 7 + i);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 100000;
  const int bytes = argc > 2 ? atoi(argv[2]) : 8;
  if (rounds < 1 || bytes < 1 || size < 2) {
    if (rank == 0)
      fprintf(stderr, "usage: mpirun -np N (N >= 2) adacomp-random-access [rounds >= 1] [bytes >= 1]\n");
    MPI_Finalize();
    return 2;
  }
  unsigned char* out = malloc((size_t)bytes);
  unsigned char* in = malloc((size_t)bytes);
  unsigned char* want = malloc((size_t)bytes);
  long long polls = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int round = 0; round < rounds; ++round) {
    const int tag = round % 32768;
    MPI_Request send;
    fill(out, bytes, round, rank);
    MPI_Isend(out, bytes, MPI_BYTE, destination(round, rank, size), tag, MPI_COMM_WORLD, &send);
    for (int sender = 0; sender < size; ++sender) {
      if (sender == rank || destination(round, sender, size) != rank) continue;
      MPI_Request recv;
      MPI_Status status;
      int done = 0, count = -1;
      MPI_Irecv(in, bytes, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &recv);
      while (!done) {
        MPI_Test(&recv, &done, &status);
        ++polls;
      }
      MPI_Get_count(&status, MPI_BYTE, &count);
      fill(want, bytes, round, status.MPI_SOURCE);
      int same = count == bytes && status.MPI_SOURCE != rank &&
                 destination(round, status.MPI_SOURCE, size) == rank;
      for (int i = 0; same && i < bytes; ++i) same = in[i] == want[i];
      if (!same) {
        fprintf(stderr, "adacomp-random-access: DATA MISMATCH at rank %d, round %d, from %d\n", rank,
                round, status.MPI_SOURCE);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
    MPI_Wait(&send, MPI_STATUS_IGNORE);
  }
  double t = MPI_Wtime() - t0, slowest = 0;
  long long all_polls = 0;
  MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(&polls, &all_polls, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("random access: %d rounds of %d-byte messages on %d ranks: %.4f s, %lld MPI_Test calls\n",
           rounds, bytes, size, slowest, all_polls);
  free(out);
  free(in);
  free(want);
  MPI_Finalize();
  return 0;
}
