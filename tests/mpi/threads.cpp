// MPI_THREAD_MULTIPLE: threads run compressed collectives on their own
// communicators at the same time; results must be exact (integer sums).
#include <algorithm>
#include <thread>
#include <vector>

#include "check.h"

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  CHECK(provided == MPI_THREAD_MULTIPLE, "MPI provides thread level %d only", provided);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (provided != MPI_THREAD_MULTIPLE) return finish_test("threads");

  constexpr int kThreads = 3, kIters = 20, kCount = 30011;
  std::vector<MPI_Comm> comms(kThreads);
  for (auto& c : comms) MPI_Comm_dup(MPI_COMM_WORLD, &c);
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::vector<long long> in(kCount), out(kCount);
      std::vector<int> b(kCount);
      for (int it = 0; it < kIters; ++it) {
        for (int i = 0; i < kCount; ++i) in[i] = (long long)(i % 1000) * (rank + 1) + t * it;
        MPI_Allreduce(in.data(), out.data(), kCount, MPI_LONG_LONG, MPI_SUM, comms[t]);
        long long ranks_sum = (long long)size * (size + 1) / 2;
        for (int i = 0; i < kCount; ++i)
          if (out[i] != (long long)(i % 1000) * ranks_sum + (long long)size * t * it) ++failures[t];
        for (int i = 0; i < kCount; ++i) b[i] = rank == it % size ? (i / 10) * (t + 1) : -1;
        MPI_Bcast(b.data(), kCount, MPI_INT, it % size, comms[t]);
        for (int i = 0; i < kCount; ++i)
          if (b[i] != (i / 10) * (t + 1)) ++failures[t];
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t)
    CHECK(failures[t] == 0, "thread %d: %d wrong elements", t, failures[t]);
  CHECK(op_stats("allreduce").compressed_calls == kThreads * kIters,
        "not all allreduces compressed");

  // Compressed nonblocking collectives outstanding on every thread's
  // communicator at once (issue 14): any thread's Wait/Test advances them
  // all; each thread completes its own in its own way.
  std::fill(failures.begin(), failures.end(), 0);
  threads.clear();
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::vector<long long> in(kCount), out(kCount);
      std::vector<int> b(kCount);
      for (int it = 0; it < kIters; ++it) {
        for (int i = 0; i < kCount; ++i) in[i] = (long long)(i % 1000) * (rank + 1) + t * it;
        for (int i = 0; i < kCount; ++i) b[i] = rank == it % size ? (i / 10) * (t + 1) : -1;
        MPI_Request reqs[2];
        MPI_Iallreduce(in.data(), out.data(), kCount, MPI_LONG_LONG, MPI_SUM, comms[t], &reqs[0]);
        MPI_Ibcast(b.data(), kCount, MPI_INT, it % size, comms[t], &reqs[1]);
        if (t == 0) {
          MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
        } else if (t == 1) {
          MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
          MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
        } else {
          for (int done = 0; !done;) MPI_Testall(2, reqs, &done, MPI_STATUSES_IGNORE);
        }
        long long ranks_sum = (long long)size * (size + 1) / 2;
        for (int i = 0; i < kCount; ++i)
          if (out[i] != (long long)(i % 1000) * ranks_sum + (long long)size * t * it) ++failures[t];
        for (int i = 0; i < kCount; ++i)
          if (b[i] != (i / 10) * (t + 1)) ++failures[t];
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t)
    CHECK(failures[t] == 0, "thread %d: %d wrong elements (nonblocking)", t, failures[t]);
  CHECK(op_stats("allreduce").compressed_calls == 2 * kThreads * kIters,
        "not all iallreduces compressed");
  for (auto& c : comms) MPI_Comm_free(&c);
  return finish_test("threads");
}
