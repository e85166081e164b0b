// Every basic datatype, special floats, ordering and wildcards, PROC_NULL, cancel and free (a suite
// of test_p2p: tests/mpi/p2p.cpp).
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "../check.h"
#include "suites.h"

namespace p2p_test {

struct TypeCase {
  MPI_Datatype type;
  const char* name;
};

void basic_types() {
  const TypeCase types[] = {{MPI_CHAR, "char"},
                            {MPI_SIGNED_CHAR, "schar"},
                            {MPI_UNSIGNED_CHAR, "uchar"},
                            {MPI_BYTE, "byte"},
                            {MPI_SHORT, "short"},
                            {MPI_UNSIGNED_SHORT, "ushort"},
                            {MPI_INT, "int"},
                            {MPI_UNSIGNED, "unsigned"},
                            {MPI_LONG, "long"},
                            {MPI_UNSIGNED_LONG, "ulong"},
                            {MPI_LONG_LONG, "llong"},
                            {MPI_UNSIGNED_LONG_LONG, "ullong"},
                            {MPI_FLOAT, "float"},
                            {MPI_DOUBLE, "double"},
                            {MPI_LONG_DOUBLE, "ldouble"},
                            {MPI_INT8_T, "int8"},
                            {MPI_INT16_T, "int16"},
                            {MPI_INT32_T, "int32"},
                            {MPI_INT64_T, "int64"},
                            {MPI_UINT8_T, "uint8"},
                            {MPI_UINT16_T, "uint16"},
                            {MPI_UINT32_T, "uint32"},
                            {MPI_UINT64_T, "uint64"},
                            {MPI_C_BOOL, "bool"},
                            {MPI_WCHAR, "wchar"},
                            {MPI_C_DOUBLE_COMPLEX, "dcomplex"}};
  for (const TypeCase& t : types) {
    int tsize;
    MPI_Type_size(t.type, &tsize);
    for (int count : {0, 1, 7, 1001, 30011}) {
      size_t bytes = static_cast<size_t>(count) * tsize;
      std::vector<uint8_t> out(bytes + 1), in(bytes + 1, 0xEE), expect(bytes + 1);
      fill(out.data(), bytes, rank_ + count);
      fill(expect.data(), bytes, prev_ + count);
      MPI_Status st;
      MPI_Sendrecv(out.data(), count, t.type, next_, 5, in.data(), count, t.type, prev_, 5,
                   MPI_COMM_WORLD, &st);
      CHECK(same(in.data(), expect.data(), bytes), "sendrecv %s count %d", t.name, count);
      CHECK(in[bytes] == 0xEE, "sendrecv %s count %d wrote past the end", t.name, count);
      int got = -1;
      MPI_Get_count(&st, t.type, &got);
      CHECK(got == count, "%s: Get_count %d, sent %d", t.name, got, count);
      CHECK(st.MPI_SOURCE == prev_ && st.MPI_TAG == 5, "%s: status source/tag", t.name);
      // Blocking Send/Recv the other way round the ring, via Isend.
      std::fill(in.begin(), in.end(), 0xEE);
      MPI_Request r;
      MPI_Isend(out.data(), count, t.type, prev_, 6, MPI_COMM_WORLD, &r);
      MPI_Recv(in.data(), count, t.type, next_, 6, MPI_COMM_WORLD, &st);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      fill(expect.data(), bytes, next_ + count);
      CHECK(same(in.data(), expect.data(), bytes), "isend/recv %s count %d", t.name, count);
    }
  }
}

void special_floats() {
  const int n = 4099;
  std::vector<double> out(n), in(n), expect(n);
  auto gen = [](std::vector<double>& v, int seed) {
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.001 * i + seed);
    v[1] = std::numeric_limits<double>::quiet_NaN();
    v[2] = std::numeric_limits<double>::infinity();
    v[3] = -std::numeric_limits<double>::infinity();
    v[4] = -0.0;
    v[5] = std::numeric_limits<double>::denorm_min();
    uint64_t payload = 0x7FF0000000001234ull;
    std::memcpy(&v[6], &payload, 8);
  };
  gen(out, rank_);
  gen(expect, prev_);
  MPI_Sendrecv(out.data(), n, MPI_DOUBLE, next_, 7, in.data(), n, MPI_DOUBLE, prev_, 7,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(same(in.data(), expect.data(), n * 8), "NaN/Inf doubles not bit-identical");
  std::vector<float> fo(n), fi(n), fe(n);
  for (int i = 0; i < n; ++i)
    fo[i] = static_cast<float>(out[i]), fe[i] = static_cast<float>(expect[i]);
  MPI_Sendrecv(fo.data(), n, MPI_FLOAT, next_, 8, fi.data(), n, MPI_FLOAT, prev_, 8, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  CHECK(same(fi.data(), fe.data(), n * 4), "NaN/Inf floats not bit-identical");
}

// Messages from one sender arrive in order whatever their framing: large
// (compressed), small, zero-length, derived datatype, synchronous, buffered.
void ordering_and_wildcards() {
  const int n_msgs = 12;
  std::vector<std::vector<int>> bufs(n_msgs);
  std::vector<MPI_Request> reqs;
  for (int k = 0; k < n_msgs; ++k) {
    int count = (k % 3 == 0) ? 20000 + k : (k % 3 == 1 ? k : 0);
    bufs[k].assign(count + 1, 0);
    bufs[k][0] = k;
    for (int i = 1; i <= count; ++i) bufs[k][i] = (i / 10) + k;
  }
  std::vector<char> bsend_buf(1 << 20);
  MPI_Buffer_attach(bsend_buf.data(), static_cast<int>(bsend_buf.size()));
  for (int k = 0; k < n_msgs; ++k) {
    int cnt = static_cast<int>(bufs[k].size());
    MPI_Request r;
    switch (k % 4) {
      case 0:
        MPI_Isend(bufs[k].data(), cnt, MPI_INT, next_, 100 + k % 2, MPI_COMM_WORLD, &r);
        reqs.push_back(r);
        break;
      case 1:
        MPI_Ibsend(bufs[k].data(), cnt, MPI_INT, next_, 100 + k % 2, MPI_COMM_WORLD, &r);
        reqs.push_back(r);
        break;
      case 2:
        MPI_Issend(bufs[k].data(), cnt, MPI_INT, next_, 100 + k % 2, MPI_COMM_WORLD, &r);
        reqs.push_back(r);
        break;
      case 3:
        MPI_Isend(bufs[k].data(), cnt, MPI_INT, next_, 100 + k % 2, MPI_COMM_WORLD, &r);
        reqs.push_back(r);
        break;
    }
  }
  // Receive all with wildcards into an oversized buffer: order must hold.
  std::vector<int> in(30000);
  for (int k = 0; k < n_msgs; ++k) {
    MPI_Status st;
    MPI_Recv(in.data(), static_cast<int>(in.size()), MPI_INT, size_ == 1 ? MPI_ANY_SOURCE : prev_,
             MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    int got = -1;
    MPI_Get_count(&st, MPI_INT, &got);
    int count = (k % 3 == 0) ? 20000 + k : (k % 3 == 1 ? k : 0);
    CHECK(in[0] == k, "message %d arrived as %d (order broken)", k, in[0]);
    CHECK(got == count + 1, "message %d: count %d, expected %d", k, got, count + 1);
    CHECK(st.MPI_TAG == 100 + k % 2, "message %d: tag %d", k, st.MPI_TAG);
    bool ok = true;
    for (int i = 1; i <= count; ++i) ok = ok && in[i] == (i / 10) + k;
    CHECK(ok, "message %d payload differs", k);
#ifndef SMPI_GAPS
    int elements = -1;
    MPI_Get_elements(&st, MPI_INT, &elements);
    CHECK(elements == count + 1, "message %d: Get_elements %d", k, elements);
#endif
  }
  MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  void* b;
  int bs;
  MPI_Buffer_detach(&b, &bs);
}

void proc_null_cancel_free() {
  int x = 42;
  MPI_Status st;
  MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
  MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
  int got = -1;
  MPI_Get_count(&st, MPI_INT, &got);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && got == 0, "PROC_NULL recv status");
  CHECK(x == 42, "PROC_NULL recv wrote data");
  MPI_Request r;
  MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, &st);
  CHECK(x == 42, "PROC_NULL irecv wrote data");

  // Cancel a receive nobody will match.
  std::vector<double> big(5000);
  MPI_Irecv(big.data(), 5000, MPI_DOUBLE, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &r);
  MPI_Cancel(&r);
  MPI_Wait(&r, &st);
  int cancelled = 0;
  MPI_Test_cancelled(&st, &cancelled);
  CHECK(cancelled, "pending receive not cancelled");

  // Request_free on a send: the message still arrives intact.
  std::vector<double> out(8000), in(8000), expect(8000);
  for (int i = 0; i < 8000; ++i) out[i] = i * 0.5 + rank_, expect[i] = i * 0.5 + prev_;
  MPI_Isend(out.data(), 8000, MPI_DOUBLE, next_, 11, MPI_COMM_WORLD, &r);
  MPI_Request_free(&r);
  CHECK(r == MPI_REQUEST_NULL, "Request_free did not null the handle");
  MPI_Recv(in.data(), 8000, MPI_DOUBLE, prev_, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(in == expect, "message of a freed send request differs");
  MPI_Barrier(MPI_COMM_WORLD);  // our freed send has completed once the peer got it
}

}  // namespace p2p_test
