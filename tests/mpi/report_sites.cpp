// The program of tests/report_verdict_check.sh: Allreduce and point-to-point
// traffic from two functions of its own (the report's call sites must name
// them and this file), optionally with MPI_Pcontrol regions; or the
// data-movement collectives, whose call sites' bytes the report must add up.
//   report_sites [plain|pcontrol|mixed|movement] [BOUND]
// plain:    24 rounds of exchange_sums + pass_messages
// pcontrol: 8 rounds, 8 more inside MPI_Pcontrol(0) .. MPI_Pcontrol(1), 8 more
// mixed:    as pcontrol, but only rank 0 calls MPI_Pcontrol: coding must still
//           agree (no deadlock, same results on every rank)
// movement: 4 rounds of Alltoall, Alltoallv, Allgatherv, Gather and Scatterv
//           with uneven counts, some in place, and persistent calls started
//           3 times (Send_init, Recv_init; Alltoall_init with MPI-4); rank 0
//           prints, per call,
//           "moved CALL BYTES": the data one round's calls move, summed
//           over ranks (docs/report.md, "Bytes of a call")
// Every result is checked: the same on every rank, and within BOUND (0:
// exactly the sum, which these integer-valued doubles make exact) per element.
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <vector>

static int g_rank = 0, g_size = 1, g_failures = 0;
static double g_bound = 0;
static constexpr int kCount = 1 << 17;  // 1 MB of doubles

static void fail(const char* what, int round) {
  if (g_failures++ < 5) std::fprintf(stderr, "FAIL rank %d round %d: %s\n", g_rank, round, what);
}

// Smooth, integer-valued data: compressible, and summed exactly.
static void fill(std::vector<double>& v, int round) {
  for (int i = 0; i < kCount; ++i) v[i] = std::floor(1000 * std::sin(i * 1e-3)) + g_rank + round;
}

__attribute__((noinline)) static void exchange_sums(int round) {
  std::vector<double> v(kCount), sum(kCount);
  fill(v, round);
  MPI_Allreduce(v.data(), sum.data(), kCount, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  const double ranks = g_size * (g_size - 1) / 2.0 + double(g_size) * round;
  for (int i = 0; i < kCount; ++i) {
    const double expect = g_size * std::floor(1000 * std::sin(i * 1e-3)) + ranks;
    if (std::fabs(sum[i] - expect) > g_bound) return fail("Allreduce result", round);
  }
  // Identical on every rank, bit for bit (a hash: a lossy Bcast would
  // change what it checks).
  uint64_t hash = 1469598103934665603ull;
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(sum.data());
  for (size_t i = 0; i < kCount * sizeof(double); ++i) hash = (hash ^ bytes[i]) * 1099511628211ull;
  std::vector<uint64_t> all(g_size);
  MPI_Allgather(&hash, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  for (uint64_t h : all)
    if (h != hash) return fail("ranks differ", round);
}

__attribute__((noinline)) static void pass_messages(int round) {
  std::vector<double> out(kCount), in(kCount), expect(kCount);
  fill(out, round);
  const int right = (g_rank + 1) % g_size, left = (g_rank - 1 + g_size) % g_size;
  if (g_rank % 2 == 0) {
    MPI_Send(out.data(), kCount, MPI_DOUBLE, right, 7, MPI_COMM_WORLD);
    MPI_Recv(in.data(), kCount, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(in.data(), kCount, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(out.data(), kCount, MPI_DOUBLE, right, 7, MPI_COMM_WORLD);
  }
  const int saved_rank = g_rank;
  g_rank = left;
  fill(expect, round);
  g_rank = saved_rank;
  if (std::memcmp(in.data(), expect.data(), kCount * sizeof(double)) != 0)
    fail("message content", round);
}

// Rank r's block in the uneven calls: odd sizes, every one over 4 KB.
static int uneven(int r) { return 1000 * (r + 1) + 3 * r + 1; }

static void expect_equal(const std::vector<double>& got, const std::vector<double>& want,
                         const char* what) {
  if (std::memcmp(got.data(), want.data(), want.size() * sizeof(double)) != 0) fail(what, 0);
}

// Element i of the block rank `from` gives rank `to`: smooth, exact.
static double value(int from, int to, int i) {
  return std::floor(100 * std::sin(i * 1e-2)) + 1000 * from + to;
}

__attribute__((noinline)) static void movement(int round) {
  const int p = g_size, me = g_rank, block = 1024 + 7;
  long long moved_alltoall = 0, moved_alltoallv = 0, moved_allgatherv = 0, moved_gather = 0,
            moved_scatterv = 0;
  {  // Alltoall, then in place: each rank sends a block to every rank
    std::vector<double> out(size_t(p) * block), in(out.size()), want(out.size());
    for (int j = 0; j < p; ++j)
      for (int i = 0; i < block; ++i)
        out[size_t(j) * block + i] = value(me, j, i), want[size_t(j) * block + i] = value(j, me, i);
    MPI_Alltoall(out.data(), block, MPI_DOUBLE, in.data(), block, MPI_DOUBLE, MPI_COMM_WORLD);
    expect_equal(in, want, "Alltoall");
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out.data(), block, MPI_DOUBLE, MPI_COMM_WORLD);
    expect_equal(out, want, "Alltoall in place");
    moved_alltoall = 2LL * p * p * block * 8;
  }
  {  // Alltoallv: rank r sends uneven(r) + j elements to rank j, then in place
    std::vector<int> sc(p), sd(p), rc(p), rd(p);
    int st = 0, rt = 0;
    for (int j = 0; j < p; ++j) {
      sc[j] = uneven(me) + j, sd[j] = st, st += sc[j];
      rc[j] = uneven(j) + me, rd[j] = rt, rt += rc[j];
      for (int r = 0; r < p; ++r) moved_alltoallv += (uneven(r) + j) * 8LL;
    }
    std::vector<double> out(st), in(rt), want(rt);
    for (int j = 0; j < p; ++j)
      for (int i = 0; i < sc[j]; ++i) out[sd[j] + i] = value(me, j, i);
    for (int j = 0; j < p; ++j)
      for (int i = 0; i < rc[j]; ++i) want[rd[j] + i] = value(j, me, i);
    MPI_Alltoallv(out.data(), sc.data(), sd.data(), MPI_DOUBLE, in.data(), rc.data(), rd.data(),
                  MPI_DOUBLE, MPI_COMM_WORLD);
    expect_equal(in, want, "Alltoallv");
    // In place: symmetric counts, uneven(me) + uneven(j) with rank j
    rt = 0;
    for (int j = 0; j < p; ++j) {
      rc[j] = uneven(me) + uneven(j), rd[j] = rt, rt += rc[j];
      for (int r = 0; r < p; ++r) moved_alltoallv += (uneven(r) + uneven(j)) * 8LL;
    }
    std::vector<double> place(rt), back(rt);
    for (int j = 0; j < p; ++j)
      for (int i = 0; i < rc[j]; ++i)
        place[rd[j] + i] = value(me, j, i), back[rd[j] + i] = value(j, me, i);
    MPI_Alltoallv(MPI_IN_PLACE, nullptr, nullptr, MPI_DOUBLE, place.data(), rc.data(), rd.data(),
                  MPI_DOUBLE, MPI_COMM_WORLD);
    expect_equal(place, back, "Alltoallv in place");
  }
  {  // Allgatherv, then in place: rank r's uneven(r) elements to every rank
    std::vector<int> rc(p), rd(p);
    int total = 0;
    for (int j = 0; j < p; ++j) rc[j] = uneven(j), rd[j] = total, total += rc[j];
    std::vector<double> in(total), want(total);
    for (int j = 0; j < p; ++j)
      for (int i = 0; i < rc[j]; ++i) want[rd[j] + i] = value(j, 0, i);
    MPI_Allgatherv(&want[rd[me]], rc[me], MPI_DOUBLE, in.data(), rc.data(), rd.data(), MPI_DOUBLE,
                   MPI_COMM_WORLD);
    expect_equal(in, want, "Allgatherv");
    std::vector<double> place(total);
    std::memcpy(&place[rd[me]], &want[rd[me]], rc[me] * sizeof(double));
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, place.data(), rc.data(), rd.data(),
                   MPI_DOUBLE, MPI_COMM_WORLD);
    expect_equal(place, want, "Allgatherv in place");
    moved_allgatherv = 2LL * total * p * 8;
  }
  {  // Gather to rank 1 % p, the root in place
    const int root = 1 % p;
    std::vector<double> mine(block), all(size_t(p) * block), want(all.size());
    for (int j = 0; j < p; ++j)
      for (int i = 0; i < block; ++i) want[size_t(j) * block + i] = value(j, root, i);
    for (int i = 0; i < block; ++i) mine[i] = value(me, root, i);
    if (me == root) {
      std::memcpy(&all[size_t(me) * block], mine.data(), block * sizeof(double));
      MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all.data(), block, MPI_DOUBLE, root,
                 MPI_COMM_WORLD);
      expect_equal(all, want, "Gather");
    } else {
      MPI_Gather(mine.data(), block, MPI_DOUBLE, nullptr, 0, MPI_DOUBLE, root, MPI_COMM_WORLD);
    }
    moved_gather = 1LL * p * block * 8;
  }
  {  // Scatterv from rank 0, the root in place: rank r gets uneven(r)
    std::vector<int> sc(p), sd(p);
    int total = 0;
    for (int j = 0; j < p; ++j) sc[j] = uneven(j), sd[j] = total, total += sc[j];
    std::vector<double> all(total), mine(sc[me]), want(sc[me]);
    for (int j = 0; j < p; ++j)
      for (int i = 0; i < sc[j]; ++i) all[sd[j] + i] = value(0, j, i);
    for (int i = 0; i < sc[me]; ++i) want[i] = value(0, me, i);
    if (me == 0)
      MPI_Scatterv(all.data(), sc.data(), sd.data(), MPI_DOUBLE, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
                   0, MPI_COMM_WORLD);
    else
      MPI_Scatterv(nullptr, nullptr, nullptr, MPI_DOUBLE, mine.data(), sc[me], MPI_DOUBLE, 0,
                   MPI_COMM_WORLD);
    if (me != 0) expect_equal(mine, want, "Scatterv");
    moved_scatterv = total * 8LL;
  }
  long long moved_send_init = 0, moved_alltoall_init = 0;
  {  // Persistent: a ring of Send_init/Recv_init, started 3 times (Startall, Start)
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    std::vector<double> out(block), in(block), want(block);
    for (int i = 0; i < block; ++i) out[i] = value(me, right, i), want[i] = value(left, me, i);
    MPI_Request reqs[2];
    MPI_Recv_init(in.data(), block, MPI_DOUBLE, left, 9, MPI_COMM_WORLD, &reqs[0]);
    MPI_Send_init(out.data(), block, MPI_DOUBLE, right, 9, MPI_COMM_WORLD, &reqs[1]);
    for (int s = 0; s < 3; ++s) {
      std::fill(in.begin(), in.end(), 0.0);
      if (s == 0) {
        MPI_Startall(2, reqs);
      } else {
        MPI_Start(&reqs[0]);
        MPI_Start(&reqs[1]);
      }
      MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
      expect_equal(in, want, "Send_init");
    }
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);
    moved_send_init = 3LL * p * block * 8;
  }
#if MPI_VERSION >= 4
  {  // Alltoall_init, started 3 times
    std::vector<double> out(size_t(p) * block), in(out.size()), want(out.size());
    for (int j = 0; j < p; ++j)
      for (int i = 0; i < block; ++i)
        out[size_t(j) * block + i] = value(me, j, i), want[size_t(j) * block + i] = value(j, me, i);
    MPI_Request req;
    MPI_Alltoall_init(out.data(), block, MPI_DOUBLE, in.data(), block, MPI_DOUBLE, MPI_COMM_WORLD,
                      MPI_INFO_NULL, &req);
    for (int s = 0; s < 3; ++s) {
      std::fill(in.begin(), in.end(), 0.0);
      MPI_Start(&req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      expect_equal(in, want, "Alltoall_init");
    }
    MPI_Request_free(&req);
    moved_alltoall_init = 3LL * p * p * block * 8;
  }
#endif
  if (round == 0 && me == 0) {
    std::printf("moved Send_init %lld\nmoved Recv_init %lld\n", moved_send_init, moved_send_init);
    if (moved_alltoall_init) std::printf("moved Alltoall_init %lld\n", moved_alltoall_init);
  }
  if (round == 0 && me == 0)
    std::printf(
        "moved Alltoall %lld\nmoved Alltoallv %lld\nmoved Allgatherv %lld\n"
        "moved Gather %lld\nmoved Scatterv %lld\n",
        moved_alltoall, moved_alltoallv, moved_allgatherv, moved_gather, moved_scatterv);
}

static void rounds(int from, int to) {
  for (int r = from; r < to; ++r) {
    exchange_sums(r);
    if (g_size > 1) pass_messages(r);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  const char* how = argc > 1 ? argv[1] : "plain";
  if (argc > 2) g_bound = std::atof(argv[2]);
  if (std::strcmp(how, "plain") == 0) {
    rounds(0, 24);
  } else if (std::strcmp(how, "pcontrol") == 0 || std::strcmp(how, "mixed") == 0) {
    const bool all = std::strcmp(how, "pcontrol") == 0;
    rounds(0, 8);
    if (all || g_rank == 0) MPI_Pcontrol(0);
    rounds(8, 16);
    if (all || g_rank == 0) MPI_Pcontrol(1);
    rounds(16, 24);
  } else if (std::strcmp(how, "movement") == 0) {
    for (int r = 0; r < 4; ++r) movement(r);
  } else {
    if (g_rank == 0)
      std::fprintf(stderr, "usage: report_sites [plain|pcontrol|mixed|movement] [BOUND]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int failures = 0;
  MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) std::printf("%s: %s\n", how, failures ? "FAILED" : "ok");
  MPI_Finalize();
  return failures ? 1 : 0;
}
