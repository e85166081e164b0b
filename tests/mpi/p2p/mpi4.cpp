// MPI-4 entry points (a suite of test_p2p: tests/mpi/p2p.cpp).
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "../check.h"
#include "suites.h"

namespace p2p_test {

#if MPI_VERSION >= 4
// MPI-4 entry points (MPICH 4): large-count variants and Isendrecv mix with
// the classic calls on one communicator.
void mpi4_calls() {
  const int n = 7000;
  std::vector<double> out(n), in(n), expect(n);
  for (int i = 0; i < n; ++i) out[i] = i * 0.125 + rank_, expect[i] = i * 0.125 + prev_;
  MPI_Request r;
  MPI_Irecv_c(in.data(), n, MPI_DOUBLE, prev_, 800, MPI_COMM_WORLD, &r);
  MPI_Send(out.data(), n, MPI_DOUBLE, next_, 800, MPI_COMM_WORLD);
  MPI_Status st;
  MPI_Wait(&r, &st);
  MPI_Count cnt = -1;
  MPI_Get_count_c(&st, MPI_DOUBLE, &cnt);
  CHECK(in == expect && cnt == n, "Irecv_c / Send");
  std::fill(in.begin(), in.end(), 0);
  MPI_Isendrecv(out.data(), n, MPI_DOUBLE, next_, 801, in.data(), n, MPI_DOUBLE, prev_, 801,
                MPI_COMM_WORLD, &r);
  MPI_Wait(&r, &st);
  CHECK(in == expect, "Isendrecv");
  std::vector<double> rep = out;
  MPI_Isendrecv_replace(rep.data(), n, MPI_DOUBLE, next_, 802, prev_, 802, MPI_COMM_WORLD, &r);
  int flag = 0;
  while (!flag) MPI_Test(&r, &flag, &st);
  CHECK(rep == expect, "Isendrecv_replace");
  std::fill(in.begin(), in.end(), 0);
  MPI_Sendrecv_c(out.data(), n, MPI_DOUBLE, next_, 803, in.data(), n, MPI_DOUBLE, prev_, 803,
                 MPI_COMM_WORLD, &st);
  CHECK(in == expect, "Sendrecv_c");

  // Every large-count send (blocking, nonblocking, persistent; each mode)
  // into the large-count receives.
  std::vector<char> att(4 * n * sizeof(double) + 4 * MPI_BSEND_OVERHEAD);
  MPI_Buffer_attach(att.data(), static_cast<int>(att.size()));
  using Blocking = int (*)(const void*, MPI_Count, MPI_Datatype, int, int, MPI_Comm);
  using Nonblocking =
      int (*)(const void*, MPI_Count, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
  const Blocking blocking[] = {MPI_Send_c, MPI_Ssend_c, MPI_Rsend_c, MPI_Bsend_c};
  const Nonblocking nonblocking[] = {MPI_Isend_c,      MPI_Issend_c,    MPI_Irsend_c,
                                     MPI_Ibsend_c,     MPI_Send_init_c, MPI_Ssend_init_c,
                                     MPI_Rsend_init_c, MPI_Bsend_init_c};
  for (int k = 0; k < 12; ++k) {
    const int tag = 810 + k;
    std::fill(in.begin(), in.end(), 0);
    MPI_Request rr, sr;
    if (k % 2) {
      MPI_Irecv_c(in.data(), n, MPI_DOUBLE, prev_, tag, MPI_COMM_WORLD, &rr);
    } else {
      MPI_Recv_init_c(in.data(), n, MPI_DOUBLE, prev_, tag, MPI_COMM_WORLD, &rr);
      MPI_Start(&rr);
    }
    MPI_Barrier(MPI_COMM_WORLD);  // ready sends need their receive posted
    if (k < 4) {
      blocking[k](out.data(), n, MPI_DOUBLE, next_, tag, MPI_COMM_WORLD);
    } else {
      nonblocking[k - 4](out.data(), n, MPI_DOUBLE, next_, tag, MPI_COMM_WORLD, &sr);
      if (k >= 8) MPI_Start(&sr);
      MPI_Wait(&sr, MPI_STATUS_IGNORE);
      if (k >= 8) MPI_Request_free(&sr);
    }
    MPI_Wait(&rr, MPI_STATUS_IGNORE);
    if (k % 2 == 0) MPI_Request_free(&rr);
    CHECK(in == expect, "large-count send %d", k);
  }
  void* b;
  int bs;
  MPI_Buffer_detach(&b, &bs);
  // Blocking and matched large-count receives, Sendrecv_replace_c and the
  // large-count Isendrecv forms.
  MPI_Request sr830;
  MPI_Isend(out.data(), n, MPI_DOUBLE, next_, 830, MPI_COMM_WORLD, &sr830);
  MPI_Recv_c(in.data(), n, MPI_DOUBLE, prev_, 830, MPI_COMM_WORLD, &st);
  MPI_Wait(&sr830, MPI_STATUS_IGNORE);
  CHECK(in == expect, "Recv_c");
  for (int k = 0; k < 2; ++k) {
    std::fill(in.begin(), in.end(), 0);
    MPI_Request sr;
    MPI_Isend(out.data(), n, MPI_DOUBLE, next_, 831, MPI_COMM_WORLD, &sr);
    MPI_Message msg;
    MPI_Mprobe(prev_, 831, MPI_COMM_WORLD, &msg, &st);
    if (k == 0) {
      MPI_Mrecv_c(in.data(), n, MPI_DOUBLE, &msg, &st);
    } else {
      MPI_Request mr;
      MPI_Imrecv_c(in.data(), n, MPI_DOUBLE, &msg, &mr);
      MPI_Wait(&mr, &st);
    }
    MPI_Wait(&sr, MPI_STATUS_IGNORE);
    CHECK(in == expect, k ? "Imrecv_c" : "Mrecv_c");
  }
  rep = out;
  MPI_Sendrecv_replace_c(rep.data(), n, MPI_DOUBLE, next_, 832, prev_, 832, MPI_COMM_WORLD, &st);
  CHECK(rep == expect, "Sendrecv_replace_c");
  std::fill(in.begin(), in.end(), 0);
  MPI_Isendrecv_c(out.data(), n, MPI_DOUBLE, next_, 833, in.data(), n, MPI_DOUBLE, prev_, 833,
                  MPI_COMM_WORLD, &r);
  MPI_Wait(&r, &st);
  CHECK(in == expect, "Isendrecv_c");
  rep = out;
  MPI_Isendrecv_replace_c(rep.data(), n, MPI_DOUBLE, next_, 834, prev_, 834, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, &st);
  CHECK(rep == expect, "Isendrecv_replace_c");
}
#endif

}  // namespace p2p_test
