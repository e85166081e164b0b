/* OSU-style point-to-point benchmarks, plain C against MPI only,
 * so that the same binary runs with and without AdaComp preloaded
 * (bench/osu.sh runs both side by side). Modelled on the OSU
 * Micro-Benchmarks' osu_latency, osu_bw, osu_bibw and osu_mbw_mr, plus a
 * wildcard message rate (MPI_ANY_SOURCE receives polled with MPI_Test).
 *
 * Ranks come in two halves, node A (ranks 0..H-1) and node B (H..2H-1);
 * pair i is rank i with rank i+H, so with block placement every pair
 * crosses the link. latency, bw and bibw run on pair 0 alone; the other
 * ranks wait in a sleeping poll so that they leave the cores to it.
 * mbw_mr runs every pair at once, wildcard every rank.
 *
 * Data: every message is a pseudo-random, incompressible pattern of its
 * sender and sequence number (in the timed runs one of a few slots, so
 * that consecutive messages differ), which is what a coder cannot win on:
 * the benchmark measures the cost of a path, not a codec's gain. After the
 * timed samples of each size, two more iterations give every message a
 * pattern of its own and the receiver checks each (source, count, bytes,
 * and per-sender order); a mismatch prints and exits nonzero.
 *
 * Output: one tab-separated line per (test, size), the median over
 * --samples samples of: latency in us (half round trip), bw and bibw in
 * MB/s (1e6 bytes/s, bibw both directions), mbw_mr and wildcard in
 * messages/s over all ranks. Iteration counts adapt so that a sample takes
 * about --sample-time seconds.
 *
 * --settle: before any test, each pair trades a few untimed 64 KB round
 * trips. A TCP connection that has carried messages of some KB is slower
 * for 2-16 KB messages from then on (the kernel's, plain MPI's too:
 * docs/benchmarks.md, "A connection's first messages"); the ascending sizes
 * of the latency test would otherwise time plain MPI's 2-16 KB on a fresh
 * connection, and the library's, whose link probe at MPI_Init already
 * moved it, on a settled one.
 * usage: adacomp-osu [--tests LIST] [--min BYTES] [--max BYTES] [--sizes LIST]
 *        [--samples N] [--sample-time S] [--window N] [--window-bytes BYTES]
 *        [--yield] [--settle] [--self-check-fail]  (sizes take K and M suffixes) */
#define _POSIX_C_SOURCE 200809L /* nanosleep, sched_yield */
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

enum { kTagData = 1, kTagAck = 2, kTagWild = 3, kMaxSizes = 128, kCheckIters = 2 };

static struct {
  const char* tests;
  size_t sizes[kMaxSizes];
  int n_sizes;
  int samples;
  double sample_time;
  int window;
  size_t window_bytes;
  int yield;   /* poll with sched_yield: more busy ranks than cores */
  int settle;  /* --settle: untimed 64 KB round trips first */
  int corrupt; /* --self-check-fail: spoil one checked message */
} opt = {"latency,bw,bibw,mbw_mr,wildcard", {0}, 0, 5, 0.02, 64, 16u << 20, 0, 0, 0};

/* One (test, size) being run: the kernels read it, the driver sets it. */
typedef struct {
  int rank, n, half;
  size_t bytes;
  int window;   /* messages a sender has in flight per iteration */
  int per_peer; /* wildcard: messages to each other rank per iteration */
  int slots;    /* send buffers; timed message j goes from slot j % slots */
  unsigned char *send, *recv;
  int check; /* every message gets its own pattern and is verified */
  const char* test;
} Run;

static uint64_t mix(uint64_t x) { /* splitmix64 */
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static uint64_t pattern_word(int sender, uint64_t seq, size_t word) {
  return mix(mix(((uint64_t)sender << 40) ^ seq) + word);
}

static void fill(unsigned char* buf, size_t bytes, int sender, uint64_t seq) {
  for (size_t i = 0; i < bytes; i += 8) {
    uint64_t w = pattern_word(sender, seq, i / 8);
    memcpy(buf + i, &w, bytes - i < 8 ? bytes - i : 8);
  }
}

static unsigned char* send_slot(Run* r, int slot) { return r->send + (size_t)slot * r->bytes; }

/* The buffer message seq goes from: in a check run refilled with its own
 * pattern (the first one spoilt under --self-check-fail). */
static void* outgoing(Run* r, int slot, uint64_t seq) {
  unsigned char* buf = send_slot(r, slot);
  if (r->check) {
    fill(buf, r->bytes, r->rank, seq);
    if (opt.corrupt && r->rank == 0 && seq == 0) buf[r->bytes / 2] ^= 1;
  }
  return buf;
}

/* A check run's received message: from `sender`, sequence number seq. */
static void verify(const Run* r, const void* buf, const MPI_Status* st, int sender, uint64_t seq) {
  if (!r->check) return;
  int count = -1;
  MPI_Get_count(st, MPI_BYTE, &count);
  size_t bad = r->bytes;
  for (size_t i = 0; i < r->bytes && bad == r->bytes; i += 8) {
    uint64_t want = pattern_word(sender, seq, i / 8), got = 0;
    size_t len = r->bytes - i < 8 ? r->bytes - i : 8;
    memcpy(&got, (const unsigned char*)buf + i, len);
    if (memcmp(&got, &want, len) != 0) bad = i;
  }
  if (st->MPI_SOURCE == sender && (size_t)count == r->bytes && bad == r->bytes) return;
  fprintf(stderr,
          "adacomp-osu: DATA MISMATCH in %s, %zu B: rank %d expected message %llu from rank %d, "
          "got source %d, %d bytes, first wrong word at byte %zd\n",
          r->test, r->bytes, r->rank, (unsigned long long)seq, sender, st->MPI_SOURCE, count,
          bad == r->bytes ? (ssize_t)-1 : (ssize_t)bad);
  /* Time for the launcher to forward the line before the abort kills its
   * forwarding (MPICH's hydra lost it once in about 30 runs). */
  struct timespec pause = {0, 200000000};
  nanosleep(&pause, NULL);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

static void wait_all(int n, MPI_Request* req, MPI_Status* st) {
  if (!opt.yield) {
    MPI_Waitall(n, req, st);
    return;
  }
  int done = 0;
  while (MPI_Testall(n, req, &done, st), !done) sched_yield();
}

/* Ping-pong on pair 0, blocking calls as osu_latency. */
static void latency(Run* r, int iters) {
  int peer = r->rank == 0 ? r->half : 0;
  MPI_Status st;
  for (int i = 0; i < iters; ++i) {
    void* out = outgoing(r, i % r->slots, i);
    if (r->rank == 0) {
      MPI_Send(out, (int)r->bytes, MPI_BYTE, peer, kTagData, MPI_COMM_WORLD);
      MPI_Recv(r->recv, (int)r->bytes, MPI_BYTE, peer, kTagData, MPI_COMM_WORLD, &st);
    } else {
      MPI_Recv(r->recv, (int)r->bytes, MPI_BYTE, peer, kTagData, MPI_COMM_WORLD, &st);
      MPI_Send(out, (int)r->bytes, MPI_BYTE, peer, kTagData, MPI_COMM_WORLD);
    }
    verify(r, r->recv, &st, peer, i);
  }
}

/* A window of nonblocking sends from node A to its pair on node B, then
 * an acknowledgement (osu_bw; osu_mbw_mr with every pair running). */
static void stream(Run* r, int iters) {
  int sender = r->rank < r->half, peer = sender ? r->rank + r->half : r->rank - r->half, ack = 0;
  MPI_Request req[r->window];
  MPI_Status st[r->window];
  for (int i = 0; i < iters; ++i) {
    for (int k = 0; k < r->window; ++k) {
      uint64_t seq = (uint64_t)i * r->window + k;
      if (sender)
        MPI_Isend(outgoing(r, k % r->slots, seq), (int)r->bytes, MPI_BYTE, peer, kTagData,
                  MPI_COMM_WORLD, &req[k]);
      else
        MPI_Irecv(r->recv + (size_t)k * r->bytes, (int)r->bytes, MPI_BYTE, peer, kTagData,
                  MPI_COMM_WORLD, &req[k]);
    }
    wait_all(r->window, req, st);
    if (sender) { /* not MPI_Recv: under --yield every wait here yields */
      MPI_Irecv(&ack, 1, MPI_INT, peer, kTagAck, MPI_COMM_WORLD, &req[0]);
      wait_all(1, req, st);
    } else {
      for (int k = 0; k < r->window; ++k)
        verify(r, r->recv + (size_t)k * r->bytes, &st[k], peer, (uint64_t)i * r->window + k);
      MPI_Send(&ack, 1, MPI_INT, peer, kTagAck, MPI_COMM_WORLD);
    }
  }
}

/* Both ranks of pair 0 receive and send a window at once (osu_bibw). */
static void bidirectional(Run* r, int iters) {
  int peer = r->rank == 0 ? r->half : 0, w = r->window;
  MPI_Request req[2 * w];
  MPI_Status st[2 * w];
  for (int i = 0; i < iters; ++i) {
    for (int k = 0; k < w; ++k)
      MPI_Irecv(r->recv + (size_t)k * r->bytes, (int)r->bytes, MPI_BYTE, peer, kTagData,
                MPI_COMM_WORLD, &req[k]);
    for (int k = 0; k < w; ++k)
      MPI_Isend(outgoing(r, k % r->slots, (uint64_t)i * w + k), (int)r->bytes, MPI_BYTE, peer,
                kTagData, MPI_COMM_WORLD, &req[w + k]);
    wait_all(2 * w, req, st);
    for (int k = 0; k < w; ++k)
      verify(r, r->recv + (size_t)k * r->bytes, &st[k], peer, (uint64_t)i * w + k);
  }
}

/* Every rank sends per_peer messages to every other rank, then receives
 * as many with MPI_Irecv(MPI_ANY_SOURCE), one at a time, polling MPI_Test:
 * the receive loop of a wildcard-heavy application. MPI's non-overtaking rule
 * makes each sender's messages arrive in order, which a check run checks. */
static void wildcard(Run* r, int iters) {
  int sends = r->per_peer * (r->n - 1);
  MPI_Request req[sends];
  MPI_Status st[sends];
  uint64_t next[r->n]; /* check runs: sequence number expected from each rank */
  memset(next, 0, sizeof next);
  for (int i = 0; i < iters; ++i) {
    for (int d = 1, k = 0; d < r->n; ++d)
      for (int m = 0; m < r->per_peer; ++m, ++k)
        MPI_Isend(outgoing(r, k % r->slots, (uint64_t)i * r->per_peer + m), (int)r->bytes, MPI_BYTE,
                  (r->rank + d) % r->n, kTagWild, MPI_COMM_WORLD, &req[k]);
    for (int k = 0; k < sends; ++k) {
      MPI_Request recv;
      int done = 0;
      MPI_Irecv(r->recv, (int)r->bytes, MPI_BYTE, MPI_ANY_SOURCE, kTagWild, MPI_COMM_WORLD, &recv);
      while (MPI_Test(&recv, &done, &st[0]), !done)
        if (opt.yield) sched_yield();
      int src = st[0].MPI_SOURCE, known = src >= 0 && src < r->n && src != r->rank;
      if (r->check) verify(r, r->recv, &st[0], known ? src : -1, known ? next[src]++ : 0);
    }
    wait_all(sends, req, st);
  }
}

typedef struct {
  const char* name;
  void (*kernel)(Run*, int);
  int all_ranks; /* else pair 0 only */
  const char* unit;
} Test;

static const Test kTests[] = {
    {"latency", latency, 0, "us"},      {"bw", stream, 0, "MB/s"},
    {"bibw", bidirectional, 0, "MB/s"}, {"mbw_mr", stream, 1, "msg/s"},
    {"wildcard", wildcard, 1, "msg/s"},
};

/* Waits for every rank without spinning, so that ranks not in a test
 * leave the cores to those that are (MPI's own waits busy-poll). */
static void park(void) {
  MPI_Request req;
  int done = 0;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  struct timespec nap = {0, 100000};
  while (MPI_Test(&req, &done, MPI_STATUS_IGNORE), !done) nanosleep(&nap, NULL);
}

/* Longest time any rank spent in `iters` iterations of the test. */
static double measure(Run* r, const Test* t, int iters) {
  MPI_Barrier(MPI_COMM_WORLD);
  double elapsed = 0;
  if (t->all_ranks || r->rank == 0 || r->rank == r->half) {
    double t0 = MPI_Wtime();
    t->kernel(r, iters);
    elapsed = MPI_Wtime() - t0;
  }
  park();
  double longest = 0;
  MPI_Allreduce(&elapsed, &longest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return longest;
}

static double metric(const Run* r, const Test* t, int iters, double seconds) {
  double bytes = (double)r->bytes * r->window * iters;
  if (t->kernel == latency) return seconds / (2.0 * iters) * 1e6;
  if (t->kernel == bidirectional) return 2 * bytes / seconds / 1e6;
  if (t->kernel == wildcard) return (double)r->n * r->per_peer * (r->n - 1) * iters / seconds;
  if (t->all_ranks) return (double)r->half * r->window * iters / seconds;
  return bytes / seconds / 1e6;
}

static int compare(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static void run_test(Run* r, const Test* t) {
  r->test = t->name;
  r->window = t->kernel == latency ? 1 : opt.window;
  if (r->window > 1 && r->bytes * r->window > opt.window_bytes)
    r->window = opt.window_bytes / r->bytes > 1 ? (int)(opt.window_bytes / r->bytes) : 1;
  r->per_peer = r->window / (r->n - 1) > 1 ? r->window / (r->n - 1) : 1;
  int in_flight = r->per_peer * (r->n - 1) > r->window ? r->per_peer * (r->n - 1) : r->window;
  r->slots = in_flight > 3 ? in_flight : 3;
  r->send = malloc((size_t)r->slots * r->bytes);
  r->recv = malloc((size_t)r->window * r->bytes);
  if (!r->send || !r->recv) {
    fprintf(stderr, "adacomp-osu: out of memory at %zu B\n", r->bytes);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  for (int s = 0; s < r->slots; ++s) fill(send_slot(r, s), r->bytes, r->rank, s);
  memset(r->recv, 0, (size_t)r->window * r->bytes);
  r->check = 0;
  /* Warm-up, then grow the count (4x a step at most) towards what the
   * fastest rate seen so far says a sample needs, until two measurements
   * agree that the count is reached: one stall of a loaded machine slows
   * the growth but cannot end it. */
  measure(r, t, 1);
  const int most = 1 << 28;
  int iters = 1, reached = 0;
  double per_iter = 1e9;
  for (int step = 0; step < 40; ++step) {
    double seconds = measure(r, t, iters);
    if (seconds / iters < per_iter) per_iter = seconds / iters;
    double wanted = opt.sample_time / per_iter;
    int next = wanted < 1 ? 1 : wanted < most ? (int)wanted : most;
    if (next > iters) {
      iters = next < 4 * iters ? next : 4 * iters;
      reached = 0;
    } else if (reached++) {
      break;
    }
  }
  double values[opt.samples];
  for (int s = 0; s < opt.samples; ++s) values[s] = metric(r, t, iters, measure(r, t, iters));
  qsort(values, opt.samples, sizeof(double), compare);
  r->check = 1;
  measure(r, t, kCheckIters);
  if (r->rank == 0) {
    printf("%s\t%zu\t%.6g\t%s\t%d\t%d\n", t->name, r->bytes, values[opt.samples / 2], t->unit,
           iters, t->kernel == latency ? 1 : r->window);
    fflush(stdout);
  }
  free(r->send);
  free(r->recv);
}

static size_t parse_bytes(const char* text) {
  char* end;
  double v = strtod(text, &end);
  if (*end == 'K' || *end == 'k')
    v *= 1024, ++end;
  else if (*end == 'M' || *end == 'm')
    v *= 1024 * 1024, ++end;
  if (end == text || *end || v < 1 || v > 1 << 30) {
    fprintf(stderr, "adacomp-osu: '%s' is not a size in bytes (1 to 1G, K and M suffixes)\n", text);
    exit(2);
  }
  return (size_t)v;
}

static void add_size(size_t bytes) {
  for (int i = 0; i < opt.n_sizes; ++i)
    if (opt.sizes[i] == bytes) return;
  if (opt.n_sizes == kMaxSizes) {
    fprintf(stderr, "adacomp-osu: more than %d sizes\n", kMaxSizes);
    exit(2);
  }
  opt.sizes[opt.n_sizes++] = bytes;
}

static int compare_size(const void* a, const void* b) {
  size_t x = *(const size_t*)a, y = *(const size_t*)b;
  return (x > y) - (x < y);
}

static void parse(int argc, char** argv) {
  size_t min = 1, max = 4u << 20;
  const char* extra = "";
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (!strcmp(a, "--yield")) {
      opt.yield = 1;
      continue;
    }
    if (!strcmp(a, "--settle")) {
      opt.settle = 1;
      continue;
    }
    if (!strcmp(a, "--self-check-fail")) {
      opt.corrupt = 1;
      continue;
    }
    if (i + 1 == argc) goto usage;
    const char* v = argv[++i];
    if (!strcmp(a, "--tests"))
      opt.tests = v;
    else if (!strcmp(a, "--min"))
      min = parse_bytes(v);
    else if (!strcmp(a, "--max"))
      max = parse_bytes(v);
    else if (!strcmp(a, "--sizes"))
      extra = v;
    else if (!strcmp(a, "--samples"))
      opt.samples = atoi(v);
    else if (!strcmp(a, "--sample-time"))
      opt.sample_time = atof(v);
    else if (!strcmp(a, "--window"))
      opt.window = atoi(v);
    else if (!strcmp(a, "--window-bytes"))
      opt.window_bytes = parse_bytes(v);
    else
      goto usage;
  }
  if (opt.samples < 1 || opt.sample_time <= 0 || opt.window < 1 || min > max) goto usage;
  for (size_t b = 1; b <= max; b *= 2)
    if (b >= min) add_size(b);
  char list[1024];
  snprintf(list, sizeof list, "%s", extra);
  for (char* s = strtok(list, ","); s; s = strtok(NULL, ",")) add_size(parse_bytes(s));
  qsort(opt.sizes, opt.n_sizes, sizeof(size_t), compare_size);
  snprintf(list, sizeof list, "%s", opt.tests);
  for (char* name = strtok(list, ","); name; name = strtok(NULL, ",")) {
    int known = 0;
    for (size_t t = 0; t < sizeof kTests / sizeof *kTests; ++t)
      known |= !strcmp(name, kTests[t].name);
    if (!known) {
      fprintf(stderr, "adacomp-osu: unknown test '%s' (latency,bw,bibw,mbw_mr,wildcard)\n", name);
      exit(2);
    }
  }
  return;
usage:
  fprintf(
      stderr,
      "usage: adacomp-osu [--tests latency,bw,bibw,mbw_mr,wildcard] [--min BYTES] [--max BYTES]\n"
      "       [--sizes EXTRA,...] [--samples N] [--sample-time S] [--window N]\n"
      "       [--window-bytes BYTES] [--yield] [--settle] [--self-check-fail]\n");
  exit(2);
}

/* --settle: a few 64 KB round trips within each pair, untimed. */
static void settle(const Run* r) {
  enum { kBytes = 64 << 10, kRounds = 4 };
  unsigned char* buf = calloc(1, kBytes);
  const int peer = r->rank < r->half ? r->rank + r->half : r->rank - r->half;
  for (int i = 0; i < kRounds; ++i) {
    if (r->rank < r->half) {
      MPI_Send(buf, kBytes, MPI_BYTE, peer, kTagData, MPI_COMM_WORLD);
      MPI_Recv(buf, kBytes, MPI_BYTE, peer, kTagData, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, kBytes, MPI_BYTE, peer, kTagData, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, kBytes, MPI_BYTE, peer, kTagData, MPI_COMM_WORLD);
    }
  }
  free(buf);
  MPI_Barrier(MPI_COMM_WORLD);
}

static int selected(const char* name) {
  size_t len = strlen(name);
  for (const char* p = opt.tests; (p = strstr(p, name)); p += len)
    if ((p == opt.tests || p[-1] == ',') && (p[len] == ',' || !p[len])) return 1;
  return 0;
}

int main(int argc, char** argv) {
  parse(argc, argv); /* before MPI_Init: a bad option ends every rank alike */
  MPI_Init(&argc, &argv);
  Run r = {0};
  MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &r.n);
  if (r.n < 2 || r.n % 2) {
    if (r.rank == 0) fprintf(stderr, "adacomp-osu: needs an even number of ranks (two nodes)\n");
    MPI_Finalize();
    return 2;
  }
  r.half = r.n / 2;
  /* Where the halves are: pairs are meant to cross nodes. */
  char host[MPI_MAX_PROCESSOR_NAME] = {0}, *hosts = r.rank ? NULL : malloc(sizeof host * r.n);
  int len;
  MPI_Get_processor_name(host, &len);
  MPI_Gather(host, sizeof host, MPI_CHAR, hosts, sizeof host, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (r.rank == 0) {
    printf("# adacomp-osu: %d ranks, %d pair(s); rank 0 on %s, rank %d on %s%s\n", r.n, r.half,
           hosts, r.half, hosts + sizeof host * r.half,
           strcmp(hosts, hosts + sizeof host * r.half) ? ""
                                                       : " (same host: pairs do not cross nodes)");
    printf("# window %d (at most %zu bytes), %d samples of ~%g s, median; poll%s\n", opt.window,
           opt.window_bytes, opt.samples, opt.sample_time, opt.yield ? " with sched_yield" : "");
    if (opt.settle) printf("# settled: 4 untimed 64 KB round trips per pair first\n");
    printf("# test\tbytes\tvalue\tunit\titerations\twindow\n");
    free(hosts);
  }
  if (opt.settle) settle(&r);
  for (size_t t = 0; t < sizeof kTests / sizeof *kTests; ++t) {
    if (!selected(kTests[t].name)) continue;
    for (int s = 0; s < opt.n_sizes; ++s) {
      r.bytes = opt.sizes[s];
      run_test(&r, &kTests[t]);
    }
  }
  MPI_Finalize();
  return 0;
}
