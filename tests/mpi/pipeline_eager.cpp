// Pipelined collectives cut into many small eager-sized chunks (the test's
// environment shrinks the MPI's eager limit, or the chunk size): odd counts,
// so that the chunks are uneven and the last one short.
//   test_pipeline_eager lossless   bit-identical to PMPI (exact data) and to
//                                  the unpipelined lossless call; identical
//                                  on every rank
//   test_pipeline_eager lossy B    within the absolute bound B of PMPI's
//                                  result; identical on every rank
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"

namespace {

int g_rank = 0, g_size = 1;

// Rank 0's bytes, compared on every rank.
template <typename T>
bool same_everywhere(const std::vector<T>& v) {
  std::vector<T> first(v);
  MPI_Bcast(first.data(), static_cast<int>(v.size() * sizeof(T)), MPI_BYTE, 0, MPI_COMM_WORLD);
  int same = v.empty() || std::memcmp(first.data(), v.data(), v.size() * sizeof(T)) == 0, all = 0;
  MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all;
}

// Whole numbers (exact in any order of addition) or a smooth rough field.
std::vector<double> field(size_t n, bool exact) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = exact ? static_cast<double>((i * 7 + g_rank * 13) % 1000)
                 : 300.0 + 40.0 * std::sin(1e-4 * i + g_rank) + 1e-3 * std::sin(0.7 * i);
  return v;
}

size_t far_from(const std::vector<double>& got, const std::vector<double>& want, double bound) {
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) bad += !(std::fabs(got[i] - want[i]) <= bound);
  return bad;
}

void lossless(int n) {
  const size_t un = static_cast<size_t>(n);
  // Allreduce of exact data: bit-identical to PMPI.
  std::vector<double> in = field(un, true), got(un), want(un);
  MPI_Allreduce(in.data(), got.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  PMPI_Allreduce(in.data(), want.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  CHECK(got == want, "Allreduce n=%d differs from PMPI", n);
  std::vector<long long> li(un), lg(un), lw(un);
  for (size_t i = 0; i < un; ++i) li[i] = static_cast<long long>(i * 2654435761u) ^ g_rank;
  MPI_Allreduce(li.data(), lg.data(), n, MPI_LONG_LONG, MPI_BXOR, MPI_COMM_WORLD);
  PMPI_Allreduce(li.data(), lw.data(), n, MPI_LONG_LONG, MPI_BXOR, MPI_COMM_WORLD);
  CHECK(lg == lw, "Allreduce BXOR n=%d differs from PMPI", n);

  // Rough data, in place: identical everywhere and to the unpipelined call.
  std::vector<double> rough = field(un, false), piped(rough), single(rough);
  MPI_Allreduce(MPI_IN_PLACE, piped.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  adacomp_override_tier("lossless");
  MPI_Allreduce(MPI_IN_PLACE, single.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  adacomp_override_tier(nullptr);
  CHECK(un == 0 || std::memcmp(piped.data(), single.data(), un * sizeof(double)) == 0,
        "pipelined Allreduce n=%d differs from the unpipelined one", n);
  CHECK(same_everywhere(piped), "Allreduce n=%d differs between ranks", n);

  // Reduce at a non-zero root, Bcast from the last rank.
  const int root = 1 % g_size;
  std::vector<double> red(un, -1.0), red_want(un, -1.0);
  MPI_Reduce(in.data(), red.data(), n, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD);
  PMPI_Reduce(in.data(), red_want.data(), n, MPI_DOUBLE, MPI_MAX, root, MPI_COMM_WORLD);
  CHECK(red == red_want, "Reduce n=%d differs from PMPI", n);
  std::vector<double> b = rough, root_rough = rough;
  PMPI_Bcast(root_rough.data(), n, MPI_DOUBLE, g_size - 1, MPI_COMM_WORLD);
  if (g_rank != g_size - 1) std::fill(b.begin(), b.end(), 0.0);
  MPI_Bcast(b.data(), n, MPI_DOUBLE, g_size - 1, MPI_COMM_WORLD);
  CHECK(un == 0 || std::memcmp(b.data(), root_rough.data(), un * sizeof(double)) == 0,
        "Bcast n=%d differs from the root's data", n);

  // Reduce_scatter_block: each rank's block bit-identical to PMPI's.
  std::vector<double> all = field(un * g_size, true), blk(un), blk_want(un);
  MPI_Reduce_scatter_block(all.data(), blk.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  PMPI_Reduce_scatter_block(all.data(), blk_want.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  CHECK(blk == blk_want, "Reduce_scatter_block n=%d differs from PMPI", n);
}

void lossy(int n, double bound) {
  const size_t un = static_cast<size_t>(n);
  std::vector<double> in = field(un, false), got(un), want(un);
  MPI_Allreduce(in.data(), got.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  PMPI_Allreduce(in.data(), want.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  // PMPI's own rounding stays far below the bound.
  CHECK(far_from(got, want, bound) == 0, "Allreduce n=%d outside the bound", n);
  CHECK(same_everywhere(got), "Allreduce n=%d differs between ranks", n);
  std::vector<double> red(un), red_want(un);
  MPI_Reduce(in.data(), red.data(), n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(in.data(), red_want.data(), n, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (g_rank == 0) CHECK(far_from(red, red_want, bound) == 0, "Reduce n=%d outside the bound", n);
  const int root = g_size - 1;
  std::vector<double> b = in;  // the root's field, below
  PMPI_Bcast(b.data(), n, MPI_DOUBLE, root, MPI_COMM_WORLD);
  const std::vector<double> exact = b;
  if (g_rank != root) std::fill(b.begin(), b.end(), 0.0);
  MPI_Bcast(b.data(), n, MPI_DOUBLE, root, MPI_COMM_WORLD);
  CHECK(far_from(b, exact, bound) == 0, "Bcast n=%d outside the bound", n);
}

}  // namespace

int main(int argc, char** argv) {
  start_test(&argc, &argv, &g_rank, &g_size);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "lossless" && !(mode == "lossy" && argc > 2)) {
    if (g_rank == 0) std::fprintf(stderr, "usage: test_pipeline_eager lossless|lossy BOUND\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const auto before = op_stats("allreduce").pipelined_calls;
  // Odd counts from one element to many chunks of the smallest eager limit.
  for (int n : {0, 1, 7, 1001, 12345, 100003, 300007}) {
    if (mode == "lossless")
      lossless(n);
    else
      lossy(n, std::stod(argv[2]));
  }
  CHECK(op_stats("allreduce").pipelined_calls > before, "no Allreduce was pipelined");
  int failures = g_failures, total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0)
    std::printf("pipeline_eager %s: %d checks, %d failures\n", mode.c_str(), g_checks, total);
  MPI_Finalize();
  return total ? 1 : 0;
}
