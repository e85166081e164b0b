// Point-to-point past INT_MAX (MPI-4, MPICH), on one rank talking to itself
// (half the memory of two):
//  * replaces of 2 GiB + 4 KB: the copy the library sends must be made and
//    sent whole, its size counted beyond an int (issue 24): Sendrecv_replace
//    of a non-contiguous datatype (packed; Isendrecv_replace packs the same
//    way, copy_to_send) and Isendrecv_replace_c of MPI_BYTE above INT_MAX
//    (wrapped by with_count). Two only: each takes seconds of page faults.
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
  }
  MPI_Comm_free(&comm);
  return finish_test("large_count_p2p");
}
