/* A deliberate 1 us of CPU work at the start of every PMPI_Send and
 * PMPI_Recv the library makes: linked only into adacomp-osu-spin (the
 * linker's --wrap sends the library's references to these functions), never
 * into the library or the benchmarks compared. bench/scale/p2p_sweep.sh
 * --calibrate checks that the simulated latency grows by about 1 us, i.e.
 * that SMPI charges work done inside the library's calls (docs/scale.md,
 * "Codec time"). The spin reads the monotonic clock (a vDSO read of tens
 * of ns): the thread's CPU clock, the one SMPI charges by, is a system call
 * of about 0.4 us on this machine, and a spin on it overshoots by as much.
 * Running, the thread's CPU time and the wall clock advance alike. */
#include <mpi.h>
#undef clock_gettime /* smpicc maps it to the simulated clock */
#include <time.h>

enum { kSpinNs = 1000 };

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void spin(void) {
  const long long until = now_ns() + kSpinNs;
  while (now_ns() < until) {
  }
}

int __real_PMPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                     MPI_Comm comm);
int __real_PMPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                     MPI_Status* status);

int __wrap_PMPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                     MPI_Comm comm) {
  spin();
  return __real_PMPI_Send(buf, count, type, dest, tag, comm);
}

int __wrap_PMPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                     MPI_Status* status) {
  spin();
  return __real_PMPI_Recv(buf, count, type, source, tag, comm, status);
}
