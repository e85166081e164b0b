/* Overlap of a nonblocking collective with independent computation: an
 * MPI_Iallreduce of --bytes is started, then computation of about
 * its plain transfer time runs, then MPI_Wait. Reports, per repetition and
 * as medians, the total time, the computation's own time against the same
 * computation alone (its slowdown), and the Wait time.
 *
 * The plain transfer time is the median of blocking PMPI_Allreduce calls on
 * the same data (PMPI: never the library's), so the computation is sized
 * alike with and without the library. --polls N splits the computation into
 * N slices with an MPI_Test between them, as overlap codes do to let MPI
 * (and AdaComp's progress engine) move the call on. --thread initialises
 * MPI_THREAD_MULTIPLE, which AdaComp's progress thread needs
 * (ADACOMP_PROGRESS=thread in the environment).
 *
 * The data is a smooth field with short mantissas (coded well by the
 * lossless codecs), identical with and without the library.
 *   adacomp-overlap [--bytes 8M] [--reps 10] [--polls 0] [--compute-scale 1.0]
 *                   [--thread] */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int compare(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  qsort(v, n, sizeof(double), compare);
  return v[n / 2];
}

static long long parse_bytes(const char* s) {
  char* end = NULL;
  long long v = strtoll(s, &end, 10);
  if (*end == 'K' || *end == 'k') v <<= 10;
  if (*end == 'M' || *end == 'm') v <<= 20;
  if (*end == 'G' || *end == 'g') v <<= 30;
  return v;
}

/* Independent work on its own array: a dependent chain per element, so it
 * is compute bound and not optimised away. */
static double g_sink;
static void compute(double* work, int n, long long iters) {
  for (long long it = 0; it < iters; ++it) {
    double* w = work + (it % n);
    *w = *w * 0.999999 + 1e-7;
  }
  g_sink += work[0];
}

/* Computation in `polls` slices with an MPI_Test after each (0: one slice). */
static double timed_compute(double* work, int n, long long iters, int polls, MPI_Request* req) {
  double t0 = MPI_Wtime();
  if (polls <= 0 || !req) {
    compute(work, n, iters);
  } else {
    for (int s = 0; s < polls; ++s) {
      compute(work, n, iters / polls);
      int flag = 0;
      MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    }
  }
  return MPI_Wtime() - t0;
}

int main(int argc, char** argv) {
  int thread = 0, provided = MPI_THREAD_SINGLE;
  for (int i = 1; i < argc; ++i) thread |= !strcmp(argv[i], "--thread");
  if (thread)
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  else
    MPI_Init(&argc, &argv);
  long long bytes = 8 << 20;
  int reps = 10, polls = 0;
  double scale = 1.0;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--thread"))
      --i; /* no value */
    else if (!strcmp(argv[i], "--bytes"))
      bytes = parse_bytes(argv[i + 1]);
    else if (!strcmp(argv[i], "--reps"))
      reps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--polls"))
      polls = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--compute-scale"))
      scale = atof(argv[i + 1]);
  }
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = (int)(bytes / sizeof(double));
  double* in = malloc(sizeof(double) * n);
  double* out = malloc(sizeof(double) * n);
  const int wn = 4096;
  double* work = calloc(wn, sizeof(double));
  for (int i = 0; i < n; ++i) in[i] = floor(1024.0 * sin(i * 1e-4) + rank) / 64.0;

  /* A blocking collective first: AdaComp compresses a communicator's
   * nonblocking collectives once a blocking one has set it up. */
  MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);

  /* Plain transfer time: PMPI, agreed as the slowest rank's median. */
  double* t = malloc(sizeof(double) * (reps > 5 ? reps : 5));
  for (int r = 0; r < 5; ++r) {
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    PMPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    t[r] = MPI_Wtime() - t0;
  }
  double transfer = median(t, 5);
  PMPI_Allreduce(MPI_IN_PLACE, &transfer, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

  /* Size the computation to transfer * scale. */
  long long iters = 1 << 20;
  double c = 0;
  for (;;) {
    c = timed_compute(work, wn, iters, 0, NULL);
    if (c > 0.15) break; /* long enough that plain and library runs size it alike */
    iters *= 2;
  }
  iters = (long long)(iters * transfer * scale / c);
  PMPI_Allreduce(MPI_IN_PLACE, &iters, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);

  double* alone = malloc(sizeof(double) * reps);
  double* total = malloc(sizeof(double) * reps);
  double* overlapped = malloc(sizeof(double) * reps);
  double* wait = malloc(sizeof(double) * reps);
  for (int r = 0; r < reps; ++r) {
    PMPI_Barrier(MPI_COMM_WORLD);
    alone[r] = timed_compute(work, wn, iters, 0, NULL);
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Request req;
    MPI_Iallreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
    overlapped[r] = timed_compute(work, wn, iters, polls, &req);
    double w0 = MPI_Wtime();
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    wait[r] = MPI_Wtime() - w0;
    total[r] = MPI_Wtime() - t0;
    if (rank == 0)
      printf("rep %d: total %.4f s, computation %.4f s (alone %.4f s), wait %.4f s\n", r, total[r],
             overlapped[r], alone[r], wait[r]);
  }
  /* The result must be right: against PMPI on the same data (the sum of
   * multiples of 1/64 is exact). */
  double* check = malloc(sizeof(double) * n);
  PMPI_Allreduce(in, check, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int bad = memcmp(check, out, sizeof(double) * n) != 0;
  PMPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);

  double m_alone = median(alone, reps), m_over = median(overlapped, reps);
  double m_total = median(total, reps), m_wait = median(wait, reps);
  if (rank == 0) {
    printf("%lld-byte MPI_Iallreduce, %d ranks, plain transfer %.4f s, %d polls%s\n", bytes, size,
           transfer, polls,
           !thread                           ? ""
           : provided == MPI_THREAD_MULTIPLE ? ", MPI_THREAD_MULTIPLE"
                                             : ", MPI_THREAD_MULTIPLE not provided");
    printf(
        "median: total %.4f s, computation %.4f s (alone %.4f s, slowdown %.1f%%), wait %.4f s\n",
        m_total, m_over, m_alone, 100.0 * (m_over / m_alone - 1.0), m_wait);
    if (bad) printf("ERROR: the Iallreduce result differs from PMPI_Allreduce\n");
  }
  free(in), free(out), free(work), free(t), free(alone), free(total), free(overlapped), free(wait),
      free(check);
  MPI_Finalize();
  return bad;
}
