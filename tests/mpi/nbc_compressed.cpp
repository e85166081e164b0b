// Compressed MPI_Iallreduce, MPI_Ibcast, MPI_Ireduce and
// MPI_Ireduce_scatter_block (issue 14), compression forced:
// results bit-identical to the blocking compressed calls (and, for integers,
// to PMPI), for several types and ops, in place, count 0, odd counts, on the
// world and a split communicator; several outstanding at once completed in
// reverse order; mixed arrays with point-to-point requests through Waitall,
// Testsome, Waitany, Testany and Request_get_status; a freed active request;
// a blocking collective while nonblocking ones are outstanding; persistent
// Allreduce_init and Bcast_init (MPI-4: MPICH). The stats
// prove the compressed path ran.
//
// Run with ADACOMP_NONBLOCKING=on; --default runs without it (see
// default_passthrough). A rank blocked in an intercepted Recv keeps
// advancing its schedules (blocked_peer).
// --quick (oversubscribed MPICH): the world communicator only.
// --lossy BOUND (lossy mode, that absolute bound): see lossy_case.
// --corrupt (with ADACOMP_FAULT=corrupt-frames): the failure reaches the
// communicator's error handler from Wait, Test and Waitall, never a hang,
// and its message names the call the user made (MPI_Iallreduce, ...).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "check.h"

namespace {

template <class T>
std::vector<T> input(int rank, int n) {
  std::vector<T> v(n);
  for (int i = 0; i < n; ++i)
    v[i] = static_cast<T>((i % 97) * 0.37 + rank * 1.25 + (i % 5 == 0 ? 100 : 0));
  return v;
}

unsigned long long compressed(const char* op) { return op_stats(op).compressed_calls; }

// Iallreduce against the blocking compressed call (same bits) and, for
// integers, against PMPI.
template <class T>
void allreduce_case(MPI_Comm comm, const char* name, int n, MPI_Op op, bool in_place) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  const MPI_Datatype type = mpi_type<T>();
  std::vector<T> in = input<T>(rank, n), blocking(n), nb(n), plain(n);
  MPI_Allreduce(in.data(), blocking.data(), n, type, op, comm);
  const unsigned long long before = compressed("allreduce");
  MPI_Request req;
  if (in_place) {
    nb = in;
    MPI_Iallreduce(MPI_IN_PLACE, nb.data(), n, type, op, comm, &req);
  } else {
    MPI_Iallreduce(in.data(), nb.data(), n, type, op, comm, &req);
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(req == MPI_REQUEST_NULL, "%s: request not freed by Wait", name);
  CHECK(n == 0 || compressed("allreduce") == before + 1, "%s: n=%d not compressed", name, n);
  CHECK(n == 0 || std::memcmp(nb.data(), blocking.data(), n * sizeof(T)) == 0,
        "%s: n=%d Iallreduce differs from Allreduce", name, n);
  if (std::is_integral<T>::value) {
    PMPI_Allreduce(in.data(), plain.data(), n, type, op, comm);
    CHECK(n == 0 || std::memcmp(nb.data(), plain.data(), n * sizeof(T)) == 0,
          "%s: n=%d Iallreduce differs from PMPI", name, n);
  }
}

void bcast_cases(MPI_Comm comm, const char* name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int n : {1, 7, 4099, 30001}) {
    for (int root = 0; root < size; ++root) {
      std::vector<double> want = input<double>(root, n), buf(n, -1.0);
      if (rank == root) buf = want;
      const unsigned long long before = compressed("bcast");
      MPI_Request req;
      MPI_Ibcast(buf.data(), n, MPI_DOUBLE, root, comm, &req);
      int flag = 0;
      while (!flag) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
      CHECK(compressed("bcast") == before + 1, "%s: Ibcast n=%d not compressed", name, n);
      CHECK(buf == want, "%s: Ibcast n=%d root=%d", name, n, root);
    }
  }
  // A non-contiguous type: packed, coded, unpacked.
  MPI_Datatype every_other;
  MPI_Type_vector(5000, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  std::vector<int> want(10000), buf(10000, -7);
  for (int i = 0; i < 10000; ++i) want[i] = i % 2 ? -7 : i * 3;
  if (rank == size - 1) buf = want;
  MPI_Request req;
  MPI_Ibcast(buf.data(), 1, every_other, size - 1, comm, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(buf == want, "%s: Ibcast of a vector type", name);
  MPI_Type_free(&every_other);
}

// Ireduce at every root and Ireduce_scatter_block against the blocking
// compressed calls (same bits) and the compressed counters.
void reduce_cases(MPI_Comm comm, const char* name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int n : {1, 7, 4099, 30001}) {
    std::vector<double> in = input<double>(rank, n);
    for (int root = 0; root < size; ++root) {
      for (bool in_place : {false, true}) {
        std::vector<double> blocking(n, -1.0), nb(n, -1.0);
        MPI_Reduce(in.data(), blocking.data(), n, MPI_DOUBLE, MPI_SUM, root, comm);
        const unsigned long long before = compressed("reduce");
        MPI_Request req;
        if (in_place && rank == root) {
          nb = in;
          MPI_Ireduce(MPI_IN_PLACE, nb.data(), n, MPI_DOUBLE, MPI_SUM, root, comm, &req);
        } else {
          MPI_Ireduce(in.data(), nb.data(), n, MPI_DOUBLE, MPI_SUM, root, comm, &req);
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(compressed("reduce") == before + 1, "%s: Ireduce n=%d not compressed", name, n);
        CHECK(rank != root || std::memcmp(nb.data(), blocking.data(), n * sizeof(double)) == 0,
              "%s: Ireduce n=%d root=%d in_place=%d differs from Reduce", name, n, root,
              in_place);
      }
    }
    for (bool in_place : {false, true}) {
      std::vector<int> all(static_cast<size_t>(n) * size), blocking(n), nb(n);
      for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i * 3 + rank);
      MPI_Reduce_scatter_block(all.data(), blocking.data(), n, MPI_INT, MPI_SUM, comm);
      const unsigned long long before = compressed("reduce_scatter_block");
      MPI_Request req;
      std::vector<int> inplace = all;
      if (in_place)
        MPI_Ireduce_scatter_block(MPI_IN_PLACE, inplace.data(), n, MPI_INT, MPI_SUM, comm, &req);
      else
        MPI_Ireduce_scatter_block(all.data(), nb.data(), n, MPI_INT, MPI_SUM, comm, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      const int* got = in_place ? inplace.data() : nb.data();
      CHECK(compressed("reduce_scatter_block") == before + 1,
            "%s: Ireduce_scatter_block n=%d not compressed", name, n);
      bool ok = true;
      for (int i = 0; i < n; ++i)
        ok = ok && got[i] == blocking[i] &&
             got[i] == size * (3 * (rank * n + i)) + size * (size - 1) / 2;
      CHECK(ok, "%s: Ireduce_scatter_block n=%d in_place=%d", name, n, in_place);
    }
  }
}

// Several outstanding, completed in reverse order, with a blocking
// compressed Allreduce in between.
void outstanding(MPI_Comm comm, const char* name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = 20001, k = 5;
  std::vector<std::vector<long long>> out(k, std::vector<long long>(n));
  std::vector<long long> in(n), bc(n);
  for (int i = 0; i < n; ++i) in[i] = i * 7 + rank;
  if (rank == 0) bc = in;
  std::vector<MPI_Request> reqs(k + 1);
  for (int j = 0; j < k; ++j)
    MPI_Iallreduce(in.data(), out[j].data(), n - j, MPI_LONG_LONG,
                   j % 2 ? MPI_MAX : MPI_SUM, comm, &reqs[j]);
  MPI_Ibcast(bc.data(), n, MPI_LONG_LONG, 0, comm, &reqs[k]);
  std::vector<long long> mid(n);
  MPI_Allreduce(in.data(), mid.data(), n, MPI_LONG_LONG, MPI_MIN, comm);
  for (int j = k; j >= 0; --j) MPI_Wait(&reqs[j], MPI_STATUS_IGNORE);
  bool ok = true;
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < n - j; ++i) {
      long long want = j % 2 ? i * 7LL + size - 1 : size * (i * 7LL) + size * (size - 1) / 2;
      ok = ok && out[j][i] == want;
    }
  CHECK(ok, "%s: outstanding Iallreduces", name);
  bool ok_bc = true, ok_mid = true;
  for (int i = 0; i < n; ++i) {
    ok_bc = ok_bc && bc[i] == i * 7LL;
    ok_mid = ok_mid && mid[i] == i * 7LL;
  }
  CHECK(ok_bc, "%s: outstanding Ibcast", name);
  CHECK(ok_mid, "%s: blocking Allreduce among outstanding ones", name);
}

// Rank 0 waits for an Iallreduce before a passed-through blocking
// collective, the others enter that collective first: it must advance
// their outstanding schedules, or rank 0 would wait forever.
void wait_orders(MPI_Comm comm, const char* name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<int> in(40000, rank), out(40000);
  struct {
    double value;
    int rank;
  } mine{static_cast<double>(rank), rank}, best{};
  MPI_Request req;
  MPI_Iallreduce(in.data(), out.data(), 40000, MPI_INT, MPI_SUM, comm, &req);
  if (rank == 0) MPI_Wait(&req, MPI_STATUS_IGNORE);
  // MPI_DOUBLE_INT is no type the library codes: PMPI_Allreduce.
  MPI_Allreduce(&mine, &best, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
  if (rank != 0) MPI_Wait(&req, MPI_STATUS_IGNORE);
  CHECK(out[0] == size * (size - 1) / 2 && out[39999] == out[0], "%s: wait orders", name);
  CHECK(best.rank == size - 1, "%s: MAXLOC alongside", name);
}

// Mixed arrays: collectives with point-to-point requests.
void mixed(MPI_Comm comm, const char* name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = 30000;
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  std::vector<double> in(n), sum(n), p2p(n), bc(n);
  for (int i = 0; i < n; ++i) in[i] = i * 0.5 + rank;
  auto check_all = [&](const char* how) {
    bool ok_sum = true, ok_p2p = true, ok_bc = true;
    for (int i = 0; i < n; ++i) {
      ok_sum = ok_sum && sum[i] == size * (i * 0.5) + size * (size - 1) / 2.0;
      ok_p2p = ok_p2p && p2p[i] == i * 0.5 + prev;
      ok_bc = ok_bc && bc[i] == i * 0.5 + 1 % size;
    }
    CHECK(ok_sum && ok_p2p && ok_bc, "%s: %s (sum %d p2p %d bcast %d)", name, how, ok_sum,
          ok_p2p, ok_bc);
  };
  auto start = [&](MPI_Request reqs[4]) {
    std::fill(sum.begin(), sum.end(), 0.0);
    std::fill(p2p.begin(), p2p.end(), 0.0);
    bc = rank == 1 % size ? in : std::vector<double>(n, 0.0);
    MPI_Irecv(p2p.data(), n, MPI_DOUBLE, prev, 9, comm, &reqs[0]);
    MPI_Iallreduce(in.data(), sum.data(), n, MPI_DOUBLE, MPI_SUM, comm, &reqs[1]);
    MPI_Isend(in.data(), n, MPI_DOUBLE, next, 9, comm, &reqs[2]);
    MPI_Ibcast(bc.data(), n, MPI_DOUBLE, 1 % size, comm, &reqs[3]);
  };
  MPI_Request reqs[4];
  MPI_Status st[4];
  start(reqs);
  CHECK(MPI_Waitall(4, reqs, st) == MPI_SUCCESS, "%s: Waitall", name);
  check_all("Waitall");

  start(reqs);
  int flag = 0;
  while (!flag) MPI_Testall(4, reqs, &flag, MPI_STATUSES_IGNORE);
  check_all("Testall");

  start(reqs);
  int left = 4, seen[4] = {0, 0, 0, 0};
  while (left > 0) {
    int outcount = 0, idx[4];
    MPI_Testsome(4, reqs, &outcount, idx, st);
    for (int j = 0; j < outcount; ++j) ++seen[idx[j]];
    left -= outcount;
  }
  CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1 && seen[3] == 1, "%s: Testsome", name);
  check_all("Testsome");

  start(reqs);
  for (int j = 0; j < 4; ++j) {
    int index = -1;
    MPI_Waitany(4, reqs, &index, MPI_STATUS_IGNORE);
    CHECK(index >= 0 && index < 4 && reqs[index] == MPI_REQUEST_NULL, "%s: Waitany", name);
  }
  check_all("Waitany");

  start(reqs);
  for (int done = 0; done < 4;) {
    int index = -1;
    flag = 0;
    MPI_Testany(4, reqs, &index, &flag, MPI_STATUS_IGNORE);
    if (flag) ++done;
  }
  check_all("Testany");

  start(reqs);
  for (flag = 0; !flag;) MPI_Request_get_status(reqs[1], &flag, MPI_STATUS_IGNORE);
  CHECK(reqs[1] != MPI_REQUEST_NULL, "%s: Request_get_status freed the request", name);
  MPI_Waitsome(4, reqs, &left, seen, MPI_STATUSES_IGNORE);
  MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
  check_all("Request_get_status + Waitsome");
}

// Freeing an active collective request (erroneous in MPI): no hang, no
// crash, and the communicator's later collectives are right.
void free_active(MPI_Comm comm, const char* name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  static std::vector<int> in, out;  // outlive the freed request
  in.assign(50000, rank + 1);
  out.assign(50000, 0);
  MPI_Request req;
  MPI_Iallreduce(in.data(), out.data(), 50000, MPI_INT, MPI_SUM, comm, &req);
  MPI_Request_free(&req);
  CHECK(req == MPI_REQUEST_NULL, "%s: Request_free left the handle", name);
  std::vector<int> again(50000);
  MPI_Allreduce(in.data(), again.data(), 50000, MPI_INT, MPI_SUM, comm);
  CHECK(again[0] == size * (size + 1) / 2, "%s: Allreduce after a freed Iallreduce", name);
  MPI_Barrier(comm);
}

#if MPI_VERSION >= 4
// Persistent MPI_Allreduce_init / MPI_Bcast_init (MPICH): started several
// times with new data, by MPI_Start and MPI_Startall, completed by Wait,
// Waitall and a Testsome loop mixed with point-to-point requests; each
// start compressed (passed through where node-aware) and equal to the
// blocking call (the data sums exactly in any order); freed when inactive.
void persistent_cases(MPI_Comm comm, const char* name) {
  const bool staged = node_aware(comm);
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = 30001, root = 1 % size;
  std::vector<double> in(n), out(n), inplace(n), bc(n), blocking(n);
  MPI_Request reqs[4];
  MPI_Allreduce_init(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, comm, MPI_INFO_NULL,
                     &reqs[0]);
  MPI_Allreduce_init(MPI_IN_PLACE, inplace.data(), n, MPI_DOUBLE, MPI_MAX, comm, MPI_INFO_NULL,
                     &reqs[1]);
  MPI_Bcast_init(bc.data(), n, MPI_DOUBLE, root, comm, MPI_INFO_NULL, &reqs[2]);
  // A blocking collective between init and the first start: nothing to settle.
  MPI_Allreduce(in.data(), blocking.data(), n, MPI_DOUBLE, MPI_SUM, comm);
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < n; ++i) in[i] = (i % 101) * 0.25 + rank + round;
    // The buffers stay where init saw them: copied into, never reassigned.
    std::copy(in.begin(), in.end(), inplace.begin());
    if (rank == root) std::copy(in.begin(), in.end(), bc.begin());
    else std::fill(bc.begin(), bc.end(), 0.0);
    const unsigned long long before = compressed("allreduce");
    if (round % 2 == 0) {
      MPI_Startall(3, reqs);
    } else {
      for (int j = 2; j >= 0; --j) MPI_Start(&reqs[j]);
    }
    if (round == 0) {
      MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    } else if (round == 1) {
      for (int j = 2; j >= 0; --j) MPI_Wait(&reqs[j], MPI_STATUS_IGNORE);
    } else if (staged) {
      // MPICH's own persistent collectives: its MPI_Testsome (4.0) reports
      // one of them several times.
      MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE);
    } else {
      // With point-to-point traffic in the same array.
      const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
      std::vector<double> got(n);
      MPI_Irecv(got.data(), n, MPI_DOUBLE, prev, 11, comm, &reqs[3]);
      MPI_Request send;
      MPI_Isend(in.data(), n, MPI_DOUBLE, next, 11, comm, &send);
      int left = 4;
      while (left > 0) {
        int outcount = 0, idx[4];
        MPI_Testsome(4, reqs, &outcount, idx, MPI_STATUSES_IGNORE);
        if (outcount != MPI_UNDEFINED) left -= outcount;
      }
      MPI_Wait(&send, MPI_STATUS_IGNORE);
      CHECK(got[n - 1] == ((n - 1) % 101) * 0.25 + prev + round, "%s: p2p beside persistent",
            name);
    }
    CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[2] != MPI_REQUEST_NULL,
          "%s: a persistent request was freed by its completion", name);
    CHECK(compressed("allreduce") == before + (staged ? 0 : 2),
          "%s: persistent round %d compressed %s", name, round, staged ? "(node-aware)" : "not");
    MPI_Allreduce(in.data(), blocking.data(), n, MPI_DOUBLE, MPI_SUM, comm);
    CHECK(out == blocking, "%s: persistent Allreduce round %d", name, round);
    MPI_Allreduce(in.data(), blocking.data(), n, MPI_DOUBLE, MPI_MAX, comm);
    CHECK(inplace == blocking, "%s: persistent in-place Allreduce round %d", name, round);
    bool ok = true;
    for (int i = 0; i < n; ++i) ok = ok && bc[i] == (i % 101) * 0.25 + root + round;
    CHECK(ok, "%s: persistent Bcast round %d", name, round);
  }
  // Started in a different order on every other rank, as MPI allows (MPICH's
  // coll/p_order), with a persistent collective of MPI's own that the library
  // passes through (MPI_Barrier_init) in the same Waitall.
  MPI_Request barrier;
  MPI_Barrier_init(comm, MPI_INFO_NULL, &barrier);
  for (int i = 0; i < n; ++i) in[i] = i % 7 + rank;
  std::copy(in.begin(), in.end(), inplace.begin());
  if (rank == root) std::copy(in.begin(), in.end(), bc.begin());
  MPI_Request order[4] = {reqs[0], reqs[1], reqs[2], barrier};
  for (int j = 0; j < 4; ++j) MPI_Start(&order[rank % 2 == 0 ? j : 3 - j]);
  MPI_Status st[4];
  const int rc = MPI_Waitall(4, order, st);
  CHECK(rc == MPI_SUCCESS, "%s: Waitall of persistent calls started out of order: %d", name, rc);
  MPI_Allreduce(in.data(), blocking.data(), n, MPI_DOUBLE, MPI_SUM, comm);
  CHECK(out == blocking, "%s: persistent Allreduce started out of order", name);
  MPI_Allreduce(in.data(), blocking.data(), n, MPI_DOUBLE, MPI_MAX, comm);
  CHECK(inplace == blocking, "%s: persistent in-place Allreduce started out of order", name);
  CHECK(bc[n - 1] == (n - 1) % 7 + root, "%s: persistent Bcast started out of order", name);
  MPI_Request_free(&barrier);
  for (int j = 0; j < 3; ++j) MPI_Request_free(&reqs[j]);
  CHECK(reqs[0] == MPI_REQUEST_NULL, "%s: Request_free of a persistent collective", name);
}
#endif

void run(MPI_Comm comm, const char* name) {
  // The communicator's first compressed collective is a blocking one: it
  // creates the library's state (plan_nonblocking in src/coll/plan.h).
  int one = 1, total = 0;
  MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, comm);
  for (int n : {0, 1, 7, 1001, 40001}) {
    for (bool in_place : {false, true}) {
      allreduce_case<double>(comm, name, n, MPI_SUM, in_place);
      allreduce_case<int>(comm, name, n, MPI_SUM, in_place);
    }
    allreduce_case<float>(comm, name, n, MPI_MAX, false);
    allreduce_case<long long>(comm, name, n, MPI_PROD, false);
    allreduce_case<unsigned char>(comm, name, n, MPI_BOR, true);
    allreduce_case<int>(comm, name, n, MPI_MIN, false);
  }
  bcast_cases(comm, name);
  reduce_cases(comm, name);
  outstanding(comm, name);
  wait_orders(comm, name);
  mixed(comm, name);
  free_active(comm, name);
#if MPI_VERSION >= 4
  persistent_cases(comm, name);
#endif
}

// Lossy (ADACOMP_MODE=lossy, ADACOMP_ERROR_BOUND=bound): the nonblocking
// reductions agree on the bound (or the codes grid) without blocking, give
// the blocking lossy calls' bits, and stay within the bound of the exact
// (PMPI) result; Ireduce_scatter_block gives Reduce_scatter_block's bits.
// `nan`: rank 0 brings a NaN, which takes the SUM off codes in both calls
// alike.
template <class T>
void lossy_case(MPI_Comm comm, int n, double bound, bool nan = false) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const MPI_Datatype type = mpi_type<T>();
  std::vector<T> in(n), blocking(n), nb(n), exact(n), red_b(n), red_nb(n);
  for (int i = 0; i < n; ++i) in[i] = static_cast<T>(std::sin(i * 0.001 + rank) * 10);
  if (nan && rank == 0) in[n / 2] = std::numeric_limits<T>::quiet_NaN();
  MPI_Allreduce(in.data(), blocking.data(), n, type, MPI_SUM, comm);
  const unsigned long long before = op_stats("allreduce").lossy_calls;
  MPI_Request req[2];
  MPI_Iallreduce(in.data(), nb.data(), n, type, MPI_SUM, comm, &req[0]);
  MPI_Ireduce(in.data(), red_nb.data(), n, type, MPI_SUM, size - 1, comm, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  MPI_Reduce(in.data(), red_b.data(), n, type, MPI_SUM, size - 1, comm);
  PMPI_Allreduce(in.data(), exact.data(), n, type, MPI_SUM, comm);
  CHECK(size == 1 || op_stats("allreduce").lossy_calls == before + 1,
        "lossy Iallreduce n=%d not lossy", n);
  CHECK(std::memcmp(nb.data(), blocking.data(), n * sizeof(T)) == 0,
        "lossy Iallreduce n=%d differs from Allreduce", n);
  CHECK(rank != size - 1 || std::memcmp(red_nb.data(), red_b.data(), n * sizeof(T)) == 0,
        "lossy Ireduce n=%d differs from Reduce", n);
  // Reduce_scatter_block decodes, adds and encodes at each hop, blocking or not.
  std::vector<T> rs_in(static_cast<size_t>(n) * size), rs_b(n), rs_nb(n);
  for (size_t i = 0; i < rs_in.size(); ++i)
    rs_in[i] = static_cast<T>(std::cos(i * 0.002 + rank) * 10);
  MPI_Reduce_scatter_block(rs_in.data(), rs_b.data(), n, type, MPI_SUM, comm);
  MPI_Request rs_req;
  MPI_Ireduce_scatter_block(rs_in.data(), rs_nb.data(), n, type, MPI_SUM, comm, &rs_req);
  MPI_Wait(&rs_req, MPI_STATUS_IGNORE);
  CHECK(std::memcmp(rs_nb.data(), rs_b.data(), n * sizeof(T)) == 0,
        "lossy Ireduce_scatter_block n=%d differs from Reduce_scatter_block", n);
#if MPI_VERSION >= 4
  // The persistent form runs the same schedule (codes included) per start.
  std::vector<T> pers(n);
  MPI_Request preq;
  MPI_Allreduce_init(in.data(), pers.data(), n, type, MPI_SUM, comm, MPI_INFO_NULL, &preq);
  for (int start = 0; start < 2; ++start) {
    std::fill(pers.begin(), pers.end(), T(-1));
    MPI_Start(&preq);
    MPI_Wait(&preq, MPI_STATUS_IGNORE);
    CHECK(std::memcmp(pers.data(), blocking.data(), n * sizeof(T)) == 0,
          "lossy Allreduce_init n=%d start %d differs from Allreduce", n, start);
  }
  MPI_Request_free(&preq);
#endif
  double worst = 0;
  for (int i = 0; i < n; ++i)
    if (!(nan && i == n / 2))
      worst = std::max(worst, std::fabs(static_cast<double>(nb[i]) - exact[i]));
  CHECK(worst <= bound, "lossy Iallreduce n=%d error %g over the bound %g", n, worst, bound);
  CHECK(!nan || std::isnan(nb[n / 2]), "lossy Iallreduce n=%d lost the NaN", n);
}

void corrupt() {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comm = error_counting_comm();
  std::vector<double> in(50000, 1.0 + rank), out(50000);
  PMPI_Barrier(comm);
  MPI_Allreduce(in.data(), out.data(), 50000, MPI_DOUBLE, MPI_SUM, comm);  // creates the state
  g_errors_seen = 0;

  // Each message names the call the user made.
  MPI_Request req;
  MPI_Iallreduce(in.data(), out.data(), 50000, MPI_DOUBLE, MPI_SUM, comm, &req);
  CHECK(g_errors_seen == 0, "error reported before Wait");
  check_failed_completion(&req, size > 1, "Iallreduce");
  if (size > 1) CHECK(g_errors_seen == 1, "error handler called %d times from Wait", g_errors_seen);

  MPI_Ibcast(in.data(), 50000, MPI_DOUBLE, 0, comm, &req);
  check_failed_completion(&req, size > 1 && rank != 0, "Ibcast", Completion::test_loop);

  MPI_Request reqs[2];
  MPI_Status st[2];
  MPI_Iallreduce(in.data(), out.data(), 50000, MPI_DOUBLE, MPI_SUM, comm, &reqs[0]);
  MPI_Ibarrier(comm, &reqs[1]);
  int rc = MPI_SUCCESS;
  const std::string text = captured_stderr([&] { rc = MPI_Waitall(2, reqs, st); });
  if (size > 1) {
    CHECK(rc == MPI_ERR_IN_STATUS, "Waitall returned %d", rc);
    CHECK(is_adacomp_error(st[0].MPI_ERROR), "Waitall status[0] error %d", st[0].MPI_ERROR);
    CHECK(st[1].MPI_ERROR == MPI_SUCCESS, "Waitall status[1] error %d", st[1].MPI_ERROR);
    CHECK_REPORTS(text, "Iallreduce");
  }
#if MPI_VERSION >= 4
  MPI_Allreduce_init(in.data(), out.data(), 50000, MPI_DOUBLE, MPI_SUM, comm, MPI_INFO_NULL, &req);
  MPI_Start(&req);
  check_failed_completion(&req, size > 1, "Allreduce_init");
  MPI_Request_free(&req);
#endif
  free_usable(&comm);
}

}  // namespace

// A correct program that blocks in a point-to-point call while a peer still
// needs its part of an outstanding collective: rank 0 completes the
// Iallreduce and then sends, rank 1 receives first and completes the
// Iallreduce after. The intercepted Recv polls (docs/nonblocking.md); with
// `barrier` (rank 0 completes, then MPI_Barrier; the others enter the Barrier
// first) only MPI's own progress can serve it: run only with
// ADACOMP_NONBLOCKING off, where the Iallreduce is MPI's.
void blocked_peer(MPI_Comm comm, bool barrier) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = 40001;
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) in[i] = (i % 1000) * (rank + 1);
  // Rank 0 starts late, so nothing of it has arrived when rank 1 enters
  // MPI_Recv: only a Recv that keeps advancing the schedule lets it finish.
  if (rank == 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  MPI_Request req;
  MPI_Iallreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, comm, &req);
  int token = rank == 0 ? 7 : 0;
  if (rank == 0) {
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (barrier) MPI_Barrier(comm);
    else if (size > 1) MPI_Send(&token, 1, MPI_INT, 1, 5, comm);
  } else {
    if (barrier) MPI_Barrier(comm);
    else if (rank == 1) MPI_Recv(&token, 1, MPI_INT, 0, 5, comm, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  const int ranks = size * (size + 1) / 2;
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += out[i] != (i % 1000) * ranks;
  CHECK(wrong == 0, "blocked peer (%s): %d wrong elements", barrier ? "Barrier" : "Recv", wrong);
  CHECK(barrier || rank > 1 || token == 7, "blocked peer: token %d", token);
}

// ADACOMP_NONBLOCKING unset (the default): every nonblocking collective is
// MPI's own (no compressed call counted, though the blocking ones are
// compressed), its results exact, and blocked_peer completes in both forms.
void default_passthrough(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const char* ops[] = {"allreduce", "bcast", "reduce", "reduce_scatter_block"};
  unsigned long long before[4];
  for (int k = 0; k < 4; ++k) before[k] = compressed(ops[k]);
  const int n = 40001, block = 10007;
  std::vector<long long> in(n), sum(n), b(n), red(n), slice(block);
  std::vector<long long> blocks(static_cast<size_t>(block) * size);
  for (int i = 0; i < n; ++i) in[i] = (i % 1000) * (rank + 1);
  for (int i = 0; i < n; ++i) b[i] = rank == 0 ? i * 3 : -1;
  for (size_t i = 0; i < blocks.size(); ++i) blocks[i] = static_cast<long long>(i) + rank;
  MPI_Request reqs[4];
  MPI_Iallreduce(in.data(), sum.data(), n, MPI_LONG_LONG, MPI_SUM, comm, &reqs[0]);
  MPI_Ibcast(b.data(), n, MPI_LONG_LONG, 0, comm, &reqs[1]);
  MPI_Ireduce(in.data(), red.data(), n, MPI_LONG_LONG, MPI_SUM, 0, comm, &reqs[2]);
  MPI_Ireduce_scatter_block(blocks.data(), slice.data(), block, MPI_LONG_LONG, MPI_SUM, comm,
                            &reqs[3]);
  MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
  const long long ranks = static_cast<long long>(size) * (size + 1) / 2;
  int wrong = 0;
  for (int i = 0; i < n; ++i) {
    wrong += sum[i] != (i % 1000) * ranks;
    wrong += b[i] != i * 3;
    wrong += rank == 0 && red[i] != (i % 1000) * ranks;
  }
  const long long rank_sum = static_cast<long long>(size) * (size - 1) / 2;
  for (int i = 0; i < block; ++i)
    wrong += slice[i] != (static_cast<long long>(rank) * block + i) * size + rank_sum;
  CHECK(wrong == 0, "pass-through: %d wrong elements", wrong);
  blocked_peer(comm, false);
  blocked_peer(comm, true);
  for (int k = 0; k < 4; ++k)
    CHECK(compressed(ops[k]) == before[k], "pass-through: %s compressed", ops[k]);
  // The blocking form is still compressed (the library is on).
  MPI_Allreduce(in.data(), sum.data(), n, MPI_LONG_LONG, MPI_SUM, comm);
  CHECK(size == 1 || compressed("allreduce") == before[0] + 1, "blocking Allreduce not compressed");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc > 1 && std::strcmp(argv[1], "--default") == 0) {
    default_passthrough(MPI_COMM_WORLD);
    return finish_test("nbc_compressed --default");
  }
  if (argc > 2 && std::strcmp(argv[1], "--lossy") == 0) {
    const double bound = std::atof(argv[2]);
    int one = 1, total = 0;
    MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int n : {1, 1001, 40001}) {
      lossy_case<double>(MPI_COMM_WORLD, n, bound);
      lossy_case<float>(MPI_COMM_WORLD, n, bound);
    }
    lossy_case<double>(MPI_COMM_WORLD, 40001, bound, true);
    lossy_case<float>(MPI_COMM_WORLD, 1001, bound, true);
    return finish_test("nbc_compressed --lossy");
  }
  if (argc > 1 && std::strcmp(argv[1], "--corrupt") == 0) {
    corrupt();
    return finish_test("nbc_compressed --corrupt");
  }
  run(MPI_COMM_WORLD, "world");
  blocked_peer(MPI_COMM_WORLD, false);
  if (argc > 1 && std::strcmp(argv[1], "--quick") == 0) return finish_test("nbc_compressed");
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  run(half, "split");
  MPI_Comm_free(&half);
  return finish_test("nbc_compressed");
}
