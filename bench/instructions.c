/* The calls whose instructions bench/instructions.sh counts, a fixed number
 * of times each, between ranks 0 and 1 (other ranks only join the
 * collectives). Every round, on rank 0 (rank 1 mirrors it):
 *   MPI_Send, MPI_Recv                      a message each way
 *   MPI_Isend, MPI_Irecv, MPI_Wait x 2      a message each way
 *   MPI_Isend, MPI_Irecv, MPI_Waitall       a message each way
 *   MPI_Test                                of a receive nothing matches
 *   MPI_Iprobe                              for a message nobody sends
 *   MPI_Allreduce (MPI_SUM), MPI_Bcast      of the same bytes
 * The polled receive is posted before the rounds and cancelled after them,
 * so every MPI_Test and MPI_Iprobe is the polling loop's common case: no
 * match, flag false. Payloads are `bytes` of a smooth series of doubles
 * (coded where a route codes). Under callgrind, the counts are zeroed after
 * `warm-up` rounds (first-call set-up: per-communicator state, the link
 * model's first samples) and dumped after `rounds` more, so that the dump
 * holds `rounds` of each call and nothing else.
 * usage: adacomp-instructions [rounds, default 1000] [bytes, default 8] [warm-up, default 100] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h> /* no-ops unless run under callgrind */
#else
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(name)
#endif

enum { kTagBlocking = 1, kTagWait, kTagWaitall, kTagNeverSent };

static void round_of_calls(int rank, int peer, int n, double* out, double* in, MPI_Request* polled) {
  MPI_Request requests[2];
  int flag;
  if (peer >= 0) {
    if (rank == 0) {
      MPI_Send(out, n, MPI_DOUBLE, peer, kTagBlocking, MPI_COMM_WORLD);
      MPI_Recv(in, n, MPI_DOUBLE, peer, kTagBlocking, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(in, n, MPI_DOUBLE, peer, kTagBlocking, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(out, n, MPI_DOUBLE, peer, kTagBlocking, MPI_COMM_WORLD);
    }
    MPI_Isend(out, n, MPI_DOUBLE, peer, kTagWait, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(in, n, MPI_DOUBLE, peer, kTagWait, MPI_COMM_WORLD, &requests[1]);
    MPI_Wait(&requests[0], MPI_STATUS_IGNORE);
    MPI_Wait(&requests[1], MPI_STATUS_IGNORE);
    MPI_Isend(out, n, MPI_DOUBLE, peer, kTagWaitall, MPI_COMM_WORLD, &requests[0]);
    MPI_Irecv(in, n, MPI_DOUBLE, peer, kTagWaitall, MPI_COMM_WORLD, &requests[1]);
    MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    MPI_Test(polled, &flag, MPI_STATUS_IGNORE);
    MPI_Iprobe(peer, kTagNeverSent, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag) {
      fprintf(stderr, "adacomp-instructions: a message nobody sent was probed\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  MPI_Allreduce(out, in, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Bcast(in, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 1000;
  const int n = argc > 2 ? atoi(argv[2]) / (int)sizeof(double) : 1;
  const int warm_up = argc > 3 ? atoi(argv[3]) : 100;
  if (rounds < 1 || n < 1 || warm_up < 0 || size < 2) {
    if (rank == 0)
      fprintf(stderr,
              "usage: mpirun -np N (N >= 2) adacomp-instructions [rounds >= 1] [bytes >= 8] [warm-up "
              "rounds >= 0]\n");
    MPI_Finalize();
    return 2;
  }
  double* out = malloc(sizeof(double) * n);
  double* in = malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) out[i] = 20.0 + 0.001 * i * i / n;
  const int peer = rank < 2 ? 1 - rank : -1;
  MPI_Request polled = MPI_REQUEST_NULL;
  char never;
  if (peer >= 0) MPI_Irecv(&never, 1, MPI_CHAR, peer, kTagNeverSent, MPI_COMM_WORLD, &polled);
  for (int i = 0; i < warm_up; ++i) round_of_calls(rank, peer, n, out, in, &polled);
  CALLGRIND_ZERO_STATS;
  for (int i = 0; i < rounds; ++i) round_of_calls(rank, peer, n, out, in, &polled);
  CALLGRIND_DUMP_STATS_AT("rounds");
  if (peer >= 0) {
    MPI_Cancel(&polled);
    MPI_Wait(&polled, MPI_STATUS_IGNORE);
  }
  if (rank == 0) printf("adacomp-instructions: %d rounds of %d bytes on %d ranks\n", rounds, n * 8, size);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
