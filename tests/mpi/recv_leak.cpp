// Heap growth per call (issue 12, D3): nonblocking receives, Sendrecv and
// nonblocking and persistent sends must not leak. MPICH 4.0 leaks 64 bytes
// for each derived datatype it creates and frees (in about half of the runs,
// with no communication at all: plain MPICH, Type_create_struct or
// Type_vector + commit + free in a loop), and the library framed every
// message with a new struct type: 128-256 bytes per round below. Messages
// now travel as the application sent them (a coded one as a marker and a
// body, docs/p2p.md), with no datatype of the library's. Measured with glibc's mallinfo2
// (bytes in use) after a warm-up, over kCalls rounds.
#include <malloc.h>

#include <vector>

#include "check.h"

namespace {

constexpr int kCalls = 5000;

size_t heap_in_use() { return mallinfo2().uordblks; }

}  // namespace

int main(int argc, char** argv) {
  int rank, size;
  start_test(&argc, &argv, &rank, &size);
  const int peer = (rank + 1) % size, from = (rank - 1 + size) % size;
  std::vector<double> out(64, 1.0 + rank), in(64);
  MPI_Request ps, pr;
  MPI_Send_init(out.data(), 64, MPI_DOUBLE, peer, 3, MPI_COMM_WORLD, &ps);
  MPI_Recv_init(in.data(), 64, MPI_DOUBLE, from, 3, MPI_COMM_WORLD, &pr);
  auto round = [&] {
    MPI_Request r[2];
    MPI_Irecv(in.data(), 64, MPI_DOUBLE, from, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Barrier(MPI_COMM_WORLD);  // the receives are pending when their calls return
    MPI_Isend(out.data(), 64, MPI_DOUBLE, peer, 1, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    MPI_Sendrecv(out.data(), 64, MPI_DOUBLE, peer, 2, in.data(), 64, MPI_DOUBLE, from, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Start(&pr);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Start(&ps);
    MPI_Wait(&ps, MPI_STATUS_IGNORE);
    MPI_Wait(&pr, MPI_STATUS_IGNORE);
  };
  for (int i = 0; i < 500; ++i) round();
  const size_t before = heap_in_use();
  for (int i = 0; i < kCalls; ++i) round();
  const size_t after = heap_in_use();
  const double per_round = (static_cast<double>(after) - static_cast<double>(before)) / kCalls;
  std::printf("rank %d: heap %zu -> %zu bytes, %.1f bytes per round\n", rank, before, after,
              per_round);
  CHECK(per_round < 8, "heap grows by %.1f bytes per round (Irecv, Isend, Sendrecv, persistent)",
        per_round);
  CHECK(in[0] == 1.0 + from, "received %g", in[0]);
  MPI_Request_free(&ps);
  MPI_Request_free(&pr);
  return finish_test("recv_leak");
}
