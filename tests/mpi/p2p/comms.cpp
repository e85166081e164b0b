// Derived datatypes, truncation, communicators from every constructor, the remaining send modes (a
// suite of test_p2p: tests/mpi/p2p.cpp).
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "../check.h"
#include "suites.h"

namespace p2p_test {

void derived_and_replace() {
  // A strided vector of doubles received as contiguous doubles, and back.
  const int n = 3000;
  std::vector<double> strided(2 * n), flat(n), expect(n);
  for (int i = 0; i < 2 * n; ++i) strided[i] = (i % 2) ? -1.0 : (i / 2) * 0.25 + rank_;
  for (int i = 0; i < n; ++i) expect[i] = i * 0.25 + prev_;
  MPI_Datatype vec;
  MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &vec);
  MPI_Type_commit(&vec);
  MPI_Sendrecv(strided.data(), 1, vec, next_, 600, flat.data(), n, MPI_DOUBLE, prev_, 600,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(flat == expect, "vector type -> contiguous");
  std::vector<double> back(2 * n, -1.0);
  for (int i = 0; i < n; ++i) flat[i] = i * 0.5 + rank_;
  MPI_Status st;
  MPI_Sendrecv(flat.data(), n, MPI_DOUBLE, next_, 601, back.data(), 1, vec, prev_, 601,
               MPI_COMM_WORLD, &st);
  bool ok = true;
  for (int i = 0; i < 2 * n; ++i) ok = ok && back[i] == ((i % 2) ? -1.0 : (i / 2) * 0.5 + prev_);
  CHECK(ok, "contiguous -> vector type");
#ifndef SMPI_GAPS
  int elems = -1;
  MPI_Get_elements(&st, vec, &elems);
  CHECK(elems == n, "Get_elements on vector type: %d", elems);
#endif
  // Sendrecv_replace, contiguous and strided.
  std::vector<int> rep(4000);
  for (int i = 0; i < 4000; ++i) rep[i] = i / 4 + rank_ * 1000;
  MPI_Sendrecv_replace(rep.data(), 4000, MPI_INT, next_, 602, prev_, 602, MPI_COMM_WORLD, &st);
  ok = true;
  for (int i = 0; i < 4000; ++i) ok = ok && rep[i] == i / 4 + prev_ * 1000;
  CHECK(ok, "Sendrecv_replace contiguous");
  for (int i = 0; i < 2 * n; ++i) strided[i] = (i % 2) ? -3.0 : i * 1.5 + rank_;
  MPI_Sendrecv_replace(strided.data(), 1, vec, next_, 603, prev_, 603, MPI_COMM_WORLD, &st);
  ok = true;
  for (int i = 0; i < 2 * n; ++i) ok = ok && strided[i] == ((i % 2) ? -3.0 : i * 1.5 + prev_);
  CHECK(ok, "Sendrecv_replace strided");
  MPI_Type_free(&vec);
}

void truncation() {
  // A compressed message larger than the receive buffer: MPI_ERR_TRUNCATE
  // through the communicator's error handler, never a silent partial copy.
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  std::vector<int> out(20000, 3),
      in(20000);  // slack: Open MPI over btl self writes past a truncated buffer
  MPI_Request s;
  MPI_Isend(out.data(), 20000, MPI_INT, next_, 700, c, &s);
  int rc = MPI_Recv(in.data(), 1000, MPI_INT, prev_, 700, c, MPI_STATUS_IGNORE);
  int cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_TRUNCATE, "truncated receive: error class %d", cls);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  MPI_Comm_free(&c);
}

void split_comms() {
  MPI_Comm half, cart;
  MPI_Comm_split(MPI_COMM_WORLD, rank_ % 2, -rank_, &half);
  int hr, hs;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hs);
  std::vector<float> out(6000), in(6000);
  for (int i = 0; i < 6000; ++i) out[i] = i * 0.125f + hr;
  MPI_Sendrecv(out.data(), 6000, MPI_FLOAT, (hr + 1) % hs, 1, in.data(), 6000, MPI_FLOAT,
               (hr - 1 + hs) % hs, 1, half, MPI_STATUS_IGNORE);
  bool ok = true;
  for (int i = 0; i < 6000; ++i) ok = ok && in[i] == i * 0.125f + (hr - 1 + hs) % hs;
  CHECK(ok, "split communicator");
  int dims[1] = {size_}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
  int src, dst;
  MPI_Cart_shift(cart, 0, 1, &src, &dst);
  MPI_Sendrecv(out.data(), 6000, MPI_FLOAT, dst, 2, in.data(), 6000, MPI_FLOAT, src, 2, cart,
               MPI_STATUS_IGNORE);
  // reorder = 0: cart ranks are world ranks; `out` holds the half rank.
  for (int i = 0; i < 6000; ++i) out[i] = i * 0.25f + rank_;
  MPI_Sendrecv(out.data(), 6000, MPI_FLOAT, dst, 3, in.data(), 6000, MPI_FLOAT, src, 3, cart,
               MPI_STATUS_IGNORE);
  ok = true;
  for (int i = 0; i < 6000; ++i) ok = ok && in[i] == i * 0.25f + src;
  CHECK(ok, "cartesian communicator");
  MPI_Comm_free(&half);
  MPI_Comm_free(&cart);
}

// The remaining send modes, and a compressed ring exchange on a communicator
// from every intercepted constructor.
void ring_on(MPI_Comm c, const char* what) {
  int r, p;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &p);
  const int n = 4097;
  std::vector<int> out(n), in(n, -1);
  for (int i = 0; i < n; ++i) out[i] = i / 8 + r * 3;
  MPI_Status st;
  MPI_Sendrecv(out.data(), n, MPI_INT, (r + 1) % p, 9, in.data(), n, MPI_INT, (r - 1 + p) % p, 9, c,
               &st);
  bool ok = true;
  for (int i = 0; i < n; ++i) ok = ok && in[i] == i / 8 + ((r - 1 + p) % p) * 3;
  CHECK(ok, "ring on a communicator from %s", what);
}

void more_modes_and_comms() {
  const int n = 3001;
  std::vector<float> out(n), in(n);
  for (int i = 0; i < n; ++i) out[i] = i * 0.5f + rank_;
  auto ok_in = [&] {
    for (int i = 0; i < n; ++i)
      if (in[i] != i * 0.5f + prev_) return false;
    return true;
  };
  MPI_Request r, s;
  MPI_Irecv(in.data(), n, MPI_FLOAT, prev_, 900, MPI_COMM_WORLD, &r);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Irsend(out.data(), n, MPI_FLOAT, next_, 900, MPI_COMM_WORLD, &s);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  CHECK(ok_in(), "Irsend");
  int (*inits[3])(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*) = {
      MPI_Ssend_init, MPI_Rsend_init, MPI_Bsend_init};
  std::vector<char> att(1 << 16);
  MPI_Buffer_attach(att.data(), static_cast<int>(att.size()));
  for (int k = 0; k < 3; ++k) {
    std::fill(in.begin(), in.end(), -1.f);
    MPI_Recv_init(in.data(), n, MPI_FLOAT, prev_, 901 + k, MPI_COMM_WORLD, &r);
    inits[k](out.data(), n, MPI_FLOAT, next_, 901 + k, MPI_COMM_WORLD, &s);
    MPI_Start(&r);
    MPI_Barrier(MPI_COMM_WORLD);  // the receive is posted before the ready send
    MPI_Start(&s);
    MPI_Request both[2] = {r, s};
    MPI_Waitall(2, both, MPI_STATUSES_IGNORE);
    CHECK(ok_in(), "persistent send mode %d", k);
    MPI_Request_free(&both[0]);
    MPI_Request_free(&both[1]);
  }
  void* b;
  int bs;
  MPI_Buffer_detach(&b, &bs);

  MPI_Comm c;
  MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &c);
  ring_on(c, "Comm_dup_with_info");
  MPI_Comm_free(&c);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c);
  ring_on(c, "Comm_split_type");
  MPI_Comm_free(&c);
  MPI_Group g;
  MPI_Comm_group(MPI_COMM_WORLD, &g);
  MPI_Comm_create(MPI_COMM_WORLD, g, &c);
  ring_on(c, "Comm_create");
  MPI_Comm_free(&c);
  MPI_Comm_create_group(MPI_COMM_WORLD, g, 5, &c);
  ring_on(c, "Comm_create_group");
  MPI_Comm_free(&c);
  MPI_Group_free(&g);
  int dims[2] = {size_, 1}, periods[2] = {1, 1}, remain[2] = {1, 0};
  MPI_Comm cart, sub;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Cart_sub(cart, remain, &sub);
  ring_on(sub, "Cart_sub");
  MPI_Comm_free(&sub);
  MPI_Comm_free(&cart);
  std::vector<int> index(size_), edges(size_);
  for (int i = 0; i < size_; ++i) index[i] = i + 1, edges[i] = (i + 1) % size_;
  MPI_Graph_create(MPI_COMM_WORLD, size_, index.data(), edges.data(), 0, &c);
  ring_on(c, "Graph_create");
  MPI_Comm_free(&c);
  int src = prev_, dst = next_;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED, 1, &dst, MPI_UNWEIGHTED,
                                 MPI_INFO_NULL, 0, &c);
  ring_on(c, "Dist_graph_create_adjacent");
  MPI_Comm_free(&c);
  int me = rank_, deg = 1;
  MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &me, &deg, &dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c);
  ring_on(c, "Dist_graph_create");
  MPI_Comm_free(&c);
  if (size_ >= 2) {
    // An intercommunicator passes through; merging it gives a compressed one.
    MPI_Comm half, inter, merged;
    MPI_Comm_split(MPI_COMM_WORLD, rank_ % 2, rank_, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank_ % 2 ? 0 : 1, 77, &inter);
    int hr;
    MPI_Comm_rank(half, &hr);
    if (hr == 0) {  // the two leaders exchange over the intercommunicator
      std::vector<int> x(5000, rank_), y(5000, -1);
      MPI_Sendrecv(x.data(), 5000, MPI_INT, 0, 1, y.data(), 5000, MPI_INT, 0, 1, inter,
                   MPI_STATUS_IGNORE);
      CHECK(y[4999] == (rank_ == 0 ? 1 : 0), "intercommunicator exchange got %d", y[4999]);
    }
    MPI_Intercomm_merge(inter, rank_ % 2, &merged);
    ring_on(merged, "Intercomm_merge");
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
  }
}

}  // namespace p2p_test
