// Receives posted with a capacity of 2 GiB or more (issue 12, D1): a small
// message into a buffer of 2^28 + 1000 doubles (2 GiB + 8000 bytes) arrives
// whole, through Recv, Irecv + Wait, Recv_init + Start, a probe, and (MPI-4)
// Recv_c with a count above INT_MAX. The buffer is calloc'd: only the pages
// a message touches are ever backed by memory.
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "check.h"

namespace {

constexpr int kMsg = 1000;
constexpr int kCap = (1 << 28) + kMsg;  // doubles: 2^31 + 8000 bytes

double value(int message, int i) { return 0.5 * i + message; }

void check_message(const double* got, const MPI_Status& st, int message, const char* how) {
  int count = -1;
  MPI_Get_count(&st, MPI_DOUBLE, &count);
  CHECK(count == kMsg, "%s: message %d: count %d", how, message, count);
  int bad = 0;
  for (int i = 0; i < kMsg; ++i) bad += got[i] != value(message, i);
  CHECK(bad == 0, "%s: message %d: %d wrong values", how, message, bad);
}

}  // namespace

int main(int argc, char** argv) {
  int rank, size;
  start_test(&argc, &argv, &rank, &size);
  MPI_Comm comm = error_returning_comm();
  const int messages = 8;
  if (size == 2 && rank == 0) {
    std::vector<double> m(kMsg);
    for (int k = 0; k < messages; ++k) {
      for (int i = 0; i < kMsg; ++i) m[i] = value(k, i);
      int rc = MPI_Send(m.data(), kMsg, MPI_DOUBLE, 1, 7, comm);
      CHECK(rc == MPI_SUCCESS, "send %d: rc %d", k, rc);
    }
  } else if (size == 2) {
    auto* big = static_cast<double*>(std::calloc(static_cast<size_t>(kCap), sizeof(double)));
    CHECK(big != nullptr, "cannot allocate %zu bytes", static_cast<size_t>(kCap) * 8);
    if (big) {
      MPI_Status st;
      int k = 0;
      int rc = MPI_Recv(big, kCap, MPI_DOUBLE, 0, 7, comm, &st);
      CHECK(rc == MPI_SUCCESS, "Recv: rc %d", rc);
      check_message(big, st, k++, "Recv");
      MPI_Request r;
      rc = MPI_Irecv(big, kCap, MPI_DOUBLE, 0, 7, comm, &r);
      if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, &st);
      CHECK(rc == MPI_SUCCESS, "Irecv: rc %d", rc);
      check_message(big, st, k++, "Irecv");
      rc = MPI_Recv_init(big, kCap, MPI_DOUBLE, 0, 7, comm, &r);
      CHECK(rc == MPI_SUCCESS, "Recv_init: rc %d", rc);
      for (int i = 0; i < 2 && rc == MPI_SUCCESS; ++i) {
        rc = MPI_Start(&r);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, &st);
        CHECK(rc == MPI_SUCCESS, "persistent: rc %d", rc);
        check_message(big, st, k++, "persistent");
      }
      if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
      rc = MPI_Probe(0, 7, comm, &st);
      if (rc == MPI_SUCCESS) rc = MPI_Recv(big, kCap, MPI_DOUBLE, 0, 7, comm, &st);
      CHECK(rc == MPI_SUCCESS, "Probe + Recv: rc %d", rc);
      check_message(big, st, k++, "Probe + Recv");
      rc = MPI_Sendrecv(nullptr, 0, MPI_DOUBLE, MPI_PROC_NULL, 0, big, kCap, MPI_DOUBLE, 0, 7, comm,
                        &st);
      CHECK(rc == MPI_SUCCESS, "Sendrecv: rc %d", rc);
      check_message(big, st, k++, "Sendrecv");
#if MPI_VERSION >= 4
      // A count above INT_MAX (bytes).
      const MPI_Count bytes = static_cast<MPI_Count>(kCap) * 8;
      rc = MPI_Recv_c(big, bytes, MPI_BYTE, 0, 7, comm, &st);
      CHECK(rc == MPI_SUCCESS, "Recv_c: rc %d", rc);
      check_message(big, st, k++, "Recv_c");
#else
      rc = MPI_Recv(big, kCap, MPI_DOUBLE, 0, 7, comm, &st);
      check_message(big, st, k++, "Recv");
#endif
      rc = MPI_Recv(big, kCap, MPI_DOUBLE, 0, 7, comm, &st);
      CHECK(rc == MPI_SUCCESS, "Recv: rc %d", rc);
      check_message(big, st, k++, "Recv");
      std::free(big);
    }
  }
  MPI_Comm_free(&comm);
  return finish_test("big_recv");
}
