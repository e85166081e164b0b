// MPI_THREAD_MULTIPLE: several threads exchange compressed point-to-point
// messages at once, each on its own communicator (and one pair of threads
// sharing a communicator with distinct tags), through blocking and
// nonblocking calls; every message is checked. Then every thread receives
// into one shared buffer at once (legal; MPICH's threads/pt2pt/threads does
// it): with identical messages the buffer must end identical to them, and
// no coded frame may be overwritten before it is decoded.
#include <mpi.h>

#include <thread>
#include <vector>

#include "check.h"

namespace {
int rank_, size_;

void worker(MPI_Comm comm, int tag, int id, int* failures) {
  const int n = 6000 + id * 17;
  const int next = (rank_ + 1) % size_, prev = (rank_ - 1 + size_) % size_;
  std::vector<long> out(n), in(n);
  for (int it = 0; it < 40; ++it) {
    for (int i = 0; i < n; ++i) out[i] = (i / 4) + it * 1000 + rank_ * 7 + id;
    MPI_Request r[2];
    if (it % 2) {
      MPI_Irecv(in.data(), n, MPI_LONG, prev, tag, comm, &r[0]);
      MPI_Isend(out.data(), n, MPI_LONG, next, tag, comm, &r[1]);
      MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    } else {
      MPI_Sendrecv(out.data(), n, MPI_LONG, next, tag, in.data(), n, MPI_LONG, prev, tag, comm,
                   MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < n; ++i) {
      if (in[i] != (i / 4) + it * 1000 + prev * 7 + id) {
        ++*failures;
        break;
      }
    }
  }
}
// Every message is the same compressible pattern, so whichever thread's
// write lands last the shared buffer must hold it.
constexpr int kShared = 64 * 1024;
int shared_in[kShared];

void shared_receiver(int tag, int* failures) {
  std::vector<int> out(kShared);
  for (int i = 0; i < kShared; ++i) out[i] = i / 8;
  const int next = (rank_ + 1) % size_, prev = (rank_ - 1 + size_) % size_;
  for (int it = 0; it < 30; ++it) {
    MPI_Request r[2];
    MPI_Irecv(shared_in, kShared, MPI_INT, prev, tag, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(out.data(), kShared, MPI_INT, next, tag, MPI_COMM_WORLD, &r[1]);
    if (MPI_Waitall(2, r, MPI_STATUSES_IGNORE) != MPI_SUCCESS) ++*failures;
  }
}
}  // namespace

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE not provided");
  if (provided == MPI_THREAD_MULTIPLE) {
    const int nthreads = 4;
    std::vector<MPI_Comm> comms(nthreads);
    for (int t = 0; t < nthreads - 1; ++t) MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    comms[nthreads - 1] = comms[0];  // two threads share one communicator, distinct tags
    std::vector<int> failures(nthreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < nthreads; ++t)
      threads.emplace_back(worker, comms[t], 10 + t, t, &failures[t]);
    for (auto& th : threads) th.join();
    for (int t = 0; t < nthreads; ++t)
      CHECK(failures[t] == 0, "thread %d: %d bad messages", t, failures[t]);
    for (int t = 0; t < nthreads - 1; ++t) MPI_Comm_free(&comms[t]);
    threads.clear();
    failures.assign(nthreads, 0);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (int t = 0; t < nthreads; ++t) threads.emplace_back(shared_receiver, 20 + t, &failures[t]);
    for (auto& th : threads) th.join();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    for (int t = 0; t < nthreads; ++t)
      CHECK(failures[t] == 0, "shared buffer, thread %d: %d failed receives", t, failures[t]);
    int wrong = 0;
    for (int i = 0; i < kShared; ++i) wrong += shared_in[i] != i / 8;
    CHECK(wrong == 0, "shared buffer: %d elements differ from the message", wrong);
    adacomp_op_stats s = op_stats("send");
    CHECK(s.compressed_calls >= 160, "only %llu sends compressed",
          (unsigned long long)s.compressed_calls);
  }
  return finish_test("p2p_threads");
}
