// ADACOMP_PROGRESS=thread (issue 14, docs/nonblocking.md "Progress thread").
//
//   (no argument) MPI_THREAD_MULTIPLE: a rank that computes without any MPI
//     call between start and wait still sees its compressed Iallreduce and
//     Ibcast finish meanwhile (adacomp_outstanding_collectives, a counter
//     read without MPI, drops to 0, and MPI_Request_get_status then says
//     complete), with exact results; and an idle thread takes no core.
//   --fallback  MPI_Init (no MULTIPLE): the setting falls back to polling,
//     rank 0 (only) warns once at MPI_Init, and the calls still complete
//     through MPI_Wait with exact results.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "check.h"

namespace {

using Clock = std::chrono::steady_clock;

double cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// Independent work with no MPI call: until the library has no schedule
// outstanding, at most `limit` (a hang is then reported, not waited out).
// Returns whether the schedules finished meanwhile.
bool compute_until_done(double limit_s, double* sink) {
  const auto end = Clock::now() + std::chrono::duration<double>(limit_s);
  double x = *sink;
  while (adacomp_outstanding_collectives() != 0) {
    for (int i = 0; i < 20000; ++i) x = std::sin(x) + 1.0;
    if (Clock::now() > end) break;
  }
  *sink = x;
  return adacomp_outstanding_collectives() == 0;
}

// Integer-valued doubles: every sum is exact, so the compressed result must
// equal the arithmetic one whatever the order.
void overlap_case(int n, int iter, bool expect_thread) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> in(n), out(n, -1), b(n);
  for (int i = 0; i < n; ++i) in[i] = (i % 977) * (rank + 1) + iter;
  const int root = iter % size;
  for (int i = 0; i < n; ++i) b[i] = rank == root ? (i % 501) - 250.0 : 0;
  const unsigned long long before = op_stats("allreduce").compressed_calls;
  MPI_Request req[2];
  MPI_Iallreduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req[0]);
  MPI_Ibcast(b.data(), n, MPI_DOUBLE, root, MPI_COMM_WORLD, &req[1]);
  CHECK(op_stats("allreduce").compressed_calls == before + 1, "n=%d: Iallreduce not compressed", n);
  if (rank == 1 % size) {
    double sink = rank;
    const bool done = compute_until_done(expect_thread ? 60.0 : 0.2, &sink);
    if (expect_thread) {
      CHECK(done, "n=%d: no progress while computing (%d outstanding)", n,
            adacomp_outstanding_collectives());
      for (int i = 0; i < 2 && done; ++i) {
        int flag = 0;
        MPI_Request_get_status(req[i], &flag, MPI_STATUS_IGNORE);
        CHECK(flag == 1, "n=%d: request %d not complete after its schedule finished", n, i);
      }
    }
    CHECK(sink != 0.5, "unreachable");  // keeps the computation
  }
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  const double ranks_sum = size * (size + 1) / 2.0;
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    wrong += out[i] != (i % 977) * ranks_sum + static_cast<double>(size) * iter;
    wrong += b[i] != (i % 501) - 250.0;
  }
  CHECK(wrong == 0, "n=%d iter %d: %d wrong elements", n, iter, wrong);
}

// The program that stalls without the thread (docs/nonblocking.md): rank 0
// waits for the Iallreduce before the Barrier, the others enter the Barrier
// first, where only their progress threads advance their parts. Rank 0
// starts late, so nothing has arrived when they enter it.
void barrier_peer() {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 65537;
  std::vector<double> in(n, rank + 1.0), out(n, 0);
  if (rank == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  MPI_Request req;
  MPI_Iallreduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
  if (rank == 0) {
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += out[i] != size * (size + 1) / 2.0;
  CHECK(wrong == 0, "barrier_peer: %d wrong elements", wrong);
}

// With nothing outstanding the thread sleeps: the process takes (almost) no
// CPU time while the application sleeps. A busy thread would take ~100%.
void idle_costs_nothing() {
  const double cpu0 = cpu_seconds();
  const auto t0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  const double cpu = cpu_seconds() - cpu0;
  CHECK(cpu < 0.25 * wall, "idle process took %.3f s of CPU in %.3f s", cpu, wall);
}

// Runs `f` with this process's stderr going to a file; returns what it wrote
// (and passes it on to the real stderr).
template <class F>
std::string capture_stderr(F f) {
  char path[] = "/tmp/adacomp_progress_XXXXXX";
  const int fd = mkstemp(path);
  std::fflush(stderr);
  const int saved = dup(2);
  dup2(fd, 2);
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  close(fd);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  unlink(path);
  std::fputs(text.str().c_str(), stderr);
  return text.str();
}

}  // namespace

int main(int argc, char** argv) {
  const bool fallback = argc > 1 && std::strcmp(argv[1], "--fallback") == 0;
  int provided = MPI_THREAD_SINGLE;
  const std::string init_text = capture_stderr([&] {
    if (fallback)
      MPI_Init(&argc, &argv);
    else
      MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  });
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Query_thread(&provided);
  const bool warned =
      init_text.find("ADACOMP_PROGRESS=thread needs MPI_THREAD_MULTIPLE") != std::string::npos;
  if (fallback) {
    CHECK(provided != MPI_THREAD_MULTIPLE, "MPI_Init gave MPI_THREAD_MULTIPLE: nothing to test");
    CHECK(warned == (rank == 0), "rank %d: warning at MPI_Init %s", rank,
          warned ? "printed off rank 0" : "missing");
  } else {
    CHECK(provided == MPI_THREAD_MULTIPLE, "MPI provides thread level %d only", provided);
    CHECK(!warned, "warning printed although MPI_THREAD_MULTIPLE was provided");
  }
  // The communicator's first compressed collective is a blocking one
  // (docs/nonblocking.md), and it makes the library's state.
  std::vector<double> warm(4096, 1.0), sum(4096);
  MPI_Allreduce(warm.data(), sum.data(), 4096, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const bool thread = !fallback && provided == MPI_THREAD_MULTIPLE;
  if (thread) idle_costs_nothing();
  int iter = 0;
  for (int n : {1000, 65537, 400001})
    for (int rep = 0; rep < 3; ++rep) overlap_case(n, iter++, thread);
  if (thread) barrier_peer();
  if (thread) idle_costs_nothing();
  return finish_test(fallback ? "progress_thread --fallback" : "progress_thread");
}
