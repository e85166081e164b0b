// A call's walk through the library, for tools/walk/walk.py: the library is
// built with -finstrument-functions (tools/walk/walk.sh), and this program,
// linked with -rdynamic, receives its function entries and exits. It makes
// warm-up calls (the first makes the communicator's state), then records
// one call. Its own PMPI_ send-side functions stand in front of MPI's, so
// the walk shows where the first byte goes to the wire.
//   walk_trace CALL BYTES OUT   (CALL: allreduce | send | iallreduce)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_TRACE __attribute__((no_instrument_function))

// Grown as needed: a coded call makes millions of events (the codecs' per
// element helpers), and a walk cut at a fixed cap lost its end, the
// Iallreduce's MPI_Wait included. Out of memory, the run fails instead.
struct Event {
  char kind;  // 'E' enter, 'X' exit, 'W' a PMPI call that moves bytes
  const void* fn;
  const char* pmpi;
};
static struct Event* g_events;
static size_t g_count, g_capacity;
static int g_recording, g_overflow;

NO_TRACE static void note(char kind, const void* fn, const char* pmpi) {
  if (!g_recording) return;
  if (g_count == g_capacity) {
    const size_t grown = g_capacity ? 2 * g_capacity : (size_t)1 << 20;
    struct Event* e = realloc(g_events, grown * sizeof *e);
    if (!e) {
      g_recording = 0, g_overflow = 1;
      return;
    }
    g_events = e, g_capacity = grown;
  }
  g_events[g_count++] = (struct Event){kind, fn, pmpi};
}
NO_TRACE void __cyg_profile_func_enter(void* fn, void* site) { (void)site; note('E', fn, 0); }
NO_TRACE void __cyg_profile_func_exit(void* fn, void* site) { (void)site; note('X', fn, 0); }

// Each forwards to MPI's own function of the name.
#define WIRE(name, params, args)                                        \
  NO_TRACE int name params {                                            \
    static int(*real) params;                                           \
    if (!real) *(void**)&real = dlsym(RTLD_NEXT, #name);                \
    note('W', 0, #name);                                                \
    return real args;                                                   \
  }
WIRE(PMPI_Send, (const void* b, int c, MPI_Datatype t, int d, int g, MPI_Comm m), (b, c, t, d, g, m))
WIRE(PMPI_Isend, (const void* b, int c, MPI_Datatype t, int d, int g, MPI_Comm m, MPI_Request* r),
     (b, c, t, d, g, m, r))
WIRE(PMPI_Sendrecv, (const void* b, int c, MPI_Datatype t, int d, int g, void* rb, int rc,
                     MPI_Datatype rt, int s, int rg, MPI_Comm m, MPI_Status* st),
     (b, c, t, d, g, rb, rc, rt, s, rg, m, st))
WIRE(PMPI_Allreduce, (const void* b, void* r, int c, MPI_Datatype t, MPI_Op o, MPI_Comm m),
     (b, r, c, t, o, m))
WIRE(PMPI_Bcast, (void* b, int c, MPI_Datatype t, int root, MPI_Comm m), (b, c, t, root, m))
WIRE(PMPI_Start, (MPI_Request * r), (r))

NO_TRACE static void call(const char* what, double* in, double* out, int n, int rank) {
  if (!strcmp(what, "allreduce")) {
    MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  } else if (!strcmp(what, "iallreduce")) {
    MPI_Request r;
    MPI_Iallreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
  } else if (rank == 0) {
    MPI_Send(in, n, MPI_DOUBLE, 1, 7, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Recv(out, n, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

NO_TRACE int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: walk_trace allreduce|iallreduce|send BYTES OUT\n");
    return 2;
  }
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int n = (int)(atol(argv[2]) / sizeof(double));
  double* in = malloc(n * sizeof(double));
  double* out = malloc(n * sizeof(double));
  for (int i = 0; i < n; ++i) in[i] = 1.0 + (i % 1000) * 0.001;  // codes well
  for (int warm = 0; warm < 3; ++warm) call(argv[1], in, out, n, rank);
  MPI_Barrier(MPI_COMM_WORLD);
  g_recording = rank == 0;
  call(argv[1], in, out, n, rank);
  g_recording = 0;
  if (g_overflow) {
    fprintf(stderr, "walk_trace: out of memory after %zu events: no walk written\n", g_count);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) {
    FILE* f = fopen(argv[3], "w");
    for (size_t i = 0; i < g_count; ++i) {
      Dl_info info;
      const struct Event* e = &g_events[i];
      if (e->kind == 'W') fprintf(f, "W %s\n", e->pmpi);
      else if (dladdr(e->fn, &info) && info.dli_fname)
        fprintf(f, "%c %s %#lx\n", e->kind, info.dli_fname,
                (unsigned long)((const char*)e->fn - (const char*)info.dli_fbase));
    }
    fclose(f);
  }
  MPI_Finalize();
  return 0;
}
