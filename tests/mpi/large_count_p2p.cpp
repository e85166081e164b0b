// Point-to-point past INT_MAX (MPI-4, MPICH), on one rank talking to itself
// (half the memory of two):
//  * replaces of 2 GiB + 4 KB: the copy the library sends must be made and
//    sent whole, its size counted beyond an int (issue 24): Sendrecv_replace
//    of a non-contiguous datatype (packed; Isendrecv_replace packs the same
//    way, copy_to_send) and Isendrecv_replace_c of MPI_BYTE above INT_MAX
//    (wrapped by with_count). Two only: each takes seconds of page faults;
//  * persistent requests with a count above INT_MAX, each started twice: the
//    datatype with_count wraps the count in is freed when Recv_init_c or
//    Bsend_init_c returns, and every MPI_Start and completion must still
//    find the library's own copy of it (a receive of small coded messages
//    into a calloc'd capacity of 2 GiB + 8 KB; a buffered send of a
//    zero-size datatype).
// Each case checks that the library took the call (its statistics).
#include <mpi.h>

#if MPI_VERSION < 4
#error "large_count_p2p.cpp needs an MPI-4 library"
#endif

#include <climits>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "check.h"

namespace {

constexpr int kElem = 4096;              // bytes of one element
constexpr int kCount = (1 << 19) + 1;    // elements: 2 GiB + 4 KB of data
constexpr MPI_Aint kExtent = kElem + 1;  // one byte between elements
constexpr size_t kSpan = size_t{kCount} * kExtent;

// Fills the buffer a word at a time: 2 GiB byte by byte would take seconds.
void fill(uint8_t* p, size_t n) {
  auto* w = reinterpret_cast<uint64_t*>(p);
  for (size_t i = 0; i < n / 8; ++i) w[i] = i * 0x9E3779B97F4A7C15ull;
  for (size_t i = n / 8 * 8; i < n; ++i) p[i] = static_cast<uint8_t>(i);
}

// A checksum fast enough for 2 GiB, sensitive to order and position.
uint64_t sum(const uint8_t* p, size_t n) {
  uint64_t h = 0;
  const auto* w = reinterpret_cast<const uint64_t*>(p);
  for (size_t i = 0; i < n / 8; ++i) h = (h << 7 | h >> 57) ^ (w[i] + i);
  for (size_t i = n / 8 * 8; i < n; ++i) h = (h << 7 | h >> 57) ^ p[i];
  return h;
}

uint64_t recv_calls() { return op_stats("recv").calls; }
uint64_t send_calls() { return op_stats("send").calls; }

// The replaces on `buf` (its sum `want`), to this rank itself.
void replaces(uint8_t* buf, MPI_Comm comm, uint64_t want) {
  MPI_Datatype elem, spaced;
  MPI_Type_contiguous(kElem, MPI_BYTE, &elem);
  MPI_Type_create_resized(elem, 0, kExtent, &spaced);
  MPI_Type_commit(&spaced);
  MPI_Type_free(&elem);
  MPI_Status st;
  uint64_t before = recv_calls();
  int rc = MPI_Sendrecv_replace(buf, kCount, spaced, 0, 1, 0, 1, comm, &st);
  CHECK(rc == MPI_SUCCESS, "Sendrecv_replace of 2 GiB + 4 KB, spaced: rc %d", rc);
  CHECK(recv_calls() > before, "Sendrecv_replace passed through");
  CHECK(sum(buf, kSpan) == want, "Sendrecv_replace changed the data");
  MPI_Type_free(&spaced);

  const MPI_Count bytes = MPI_Count{INT_MAX} + 4097;
  MPI_Request r;
  before = recv_calls();
  rc = MPI_Isendrecv_replace_c(buf, bytes, MPI_BYTE, 0, 3, 0, 3, comm, &r);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, &st);
  MPI_Count got = -1;
  MPI_Get_count_c(&st, MPI_BYTE, &got);
  CHECK(rc == MPI_SUCCESS && got == bytes, "Isendrecv_replace_c of %lld bytes: rc %d, count %lld",
        static_cast<long long>(bytes), rc, static_cast<long long>(got));
  CHECK(recv_calls() > before, "Isendrecv_replace_c passed through");
  CHECK(sum(buf, kSpan) == want, "Isendrecv_replace_c changed the data");
}

// Recv_init_c above INT_MAX bytes, started twice, each a small coded message.
void persistent_receive(MPI_Comm comm) {
  const MPI_Count cap = MPI_Count{INT_MAX} + 8192;
  auto* big = static_cast<uint8_t*>(std::calloc(static_cast<size_t>(cap), 1));
  CHECK(big != nullptr, "cannot allocate %lld bytes", static_cast<long long>(cap));
  if (!big) return;
  MPI_Request r;
  int rc = MPI_Recv_init_c(big, cap, MPI_BYTE, 0, 4, comm, &r);
  CHECK(rc == MPI_SUCCESS, "Recv_init_c: rc %d", rc);
  std::vector<double> m(5000);
  for (int start = 0; start < 2 && rc == MPI_SUCCESS; ++start) {
    for (size_t i = 0; i < m.size(); ++i) m[i] = 0.25 * static_cast<double>(i) + start;
    const uint64_t before = op_stats("send").compressed_calls;
    MPI_Status st;
    rc = MPI_Start(&r);
    if (rc == MPI_SUCCESS) rc = MPI_Send(m.data(), 5000, MPI_DOUBLE, 0, 4, comm);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, &st);
    MPI_Count got = -1;
    MPI_Get_count_c(&st, MPI_BYTE, &got);
    CHECK(rc == MPI_SUCCESS && got == 40000, "persistent start %d: rc %d, %lld bytes", start, rc,
          static_cast<long long>(got));
    CHECK(op_stats("send").compressed_calls > before, "start %d: the message was not coded",
          start);
    CHECK(std::memcmp(big, m.data(), 40000) == 0, "start %d: wrong data", start);
  }
  MPI_Request_free(&r);
  std::free(big);
}

// Bsend_init_c of INT_MAX + 5 elements of a zero-size datatype, started twice.
void persistent_buffered_send(MPI_Comm comm) {
  MPI_Datatype none;
  MPI_Type_contiguous(0, MPI_INT, &none);
  MPI_Type_commit(&none);
  std::vector<char> attached(4 * MPI_BSEND_OVERHEAD);
  MPI_Buffer_attach(attached.data(), static_cast<int>(attached.size()));
  const MPI_Count count = MPI_Count{INT_MAX} + 5;
  char unused = 0;
  MPI_Request r;
  int rc = MPI_Bsend_init_c(&unused, count, none, 0, 5, comm, &r);
  CHECK(rc == MPI_SUCCESS, "Bsend_init_c: rc %d", rc);
  for (int start = 0; start < 2 && rc == MPI_SUCCESS; ++start) {
    const uint64_t before = send_calls();
    rc = MPI_Start(&r);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "buffered start %d: rc %d", start, rc);
    CHECK(send_calls() > before, "buffered start %d passed through", start);
    MPI_Status st;
    rc = MPI_Recv_c(&unused, count, none, 0, 5, comm, &st);
    CHECK(rc == MPI_SUCCESS, "receive of buffered start %d: rc %d", start, rc);
  }
  MPI_Request_free(&r);
  void* b;
  int n;
  MPI_Buffer_detach(&b, &n);
  MPI_Type_free(&none);
}

}  // namespace

int main(int argc, char** argv) {
  int rank, size;
  start_test(&argc, &argv, &rank, &size);
  MPI_Comm comm = error_returning_comm();
  if (size == 1) {
    auto* buf = static_cast<uint8_t*>(std::malloc(kSpan));
    CHECK(buf != nullptr, "cannot allocate %zu bytes", kSpan);
    if (buf) {
      fill(buf, kSpan);
      replaces(buf, comm, sum(buf, kSpan));
      std::free(buf);
    }
    persistent_receive(comm);
    persistent_buffered_send(comm);
  }
  MPI_Comm_free(&comm);
  return finish_test("large_count_p2p");
}
