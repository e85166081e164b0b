// The program of tests/report_verdict_check.sh: Allreduce and point-to-point
// traffic from two functions of its own (the report's call sites must name
// them and this file), optionally with MPI_Pcontrol regions.
//   report_sites [plain|pcontrol|mixed] [BOUND]
// plain:    24 rounds of exchange_sums + pass_messages
// pcontrol: 8 rounds, 8 more inside MPI_Pcontrol(0) .. MPI_Pcontrol(1), 8 more
// mixed:    as pcontrol, but only rank 0 calls MPI_Pcontrol: coding must still
//           agree (no deadlock, same results on every rank)
// Every result is checked: the same on every rank, and within BOUND (0:
// exactly the sum, which these integer-valued doubles make exact) per element.
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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
  } else {
    if (g_rank == 0) std::fprintf(stderr, "usage: report_sites [plain|pcontrol|mixed] [BOUND]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int failures = 0;
  MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) std::printf("%s: %s\n", how, failures ? "FAILED" : "ok");
  MPI_Finalize();
  return failures ? 1 : 0;
}
