// Lossy tiers: the user's bound must hold for every element of the final
// Allreduce/Reduce/Bcast/Reduce_scatter(_block) result, against a
// long-double reference of the exact result, whatever the rank count; NaN
// and Inf must pass exactly; all ranks must hold identical Allreduce
// results; and the lossy path must really have run and shrunk the data.
//   test_lossy abs|rel BOUND [MIN_RATIO_DOUBLE MIN_RATIO_FLOAT]
// The ratios default to quant's; the truncation codecs save less (a ratio
// of at most 1 skips the check: to_f32 sends floats as they are).
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "check.h"

namespace {

// A smooth field plus rank-dependent noise, with NaN and Inf sprinkled in.
template <typename T>
std::vector<T> field(int rank, size_t n, bool specials) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    double x = 1e-4 * static_cast<double>(i);
    v[i] = static_cast<T>(300.0 + 40.0 * std::sin(3 * x + rank) * std::cos(x) +
                          0.01 * std::sin(1e3 * x * (rank + 1)));
  }
  if (specials)
    for (size_t i = 17; i < n; i += 9973) {
      v[i] = std::numeric_limits<T>::quiet_NaN();
      if (i + 1 < n)
        v[i + 1] = (i / 9973) % 2 ? std::numeric_limits<T>::infinity()
                                  : -std::numeric_limits<T>::infinity();
    }
  return v;
}

template <typename T>
void check_case(const char* what, const std::vector<T>& got, const std::vector<long double>& exact,
                double bound) {
  size_t bad = 0, specials_bad = 0;
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    long double e = exact[i];
    if (std::isnan(e) || std::isinf(e)) {
      // Non-finite results must come out exactly as plain arithmetic gives.
      bool same = std::isnan(e) ? std::isnan(got[i]) : static_cast<long double>(got[i]) == e;
      if (!same) ++specials_bad;
      continue;
    }
    double err = static_cast<double>(std::fabs(static_cast<long double>(got[i]) - e));
    if (err > worst) worst = err;
    if (err > bound) ++bad;
  }
  CHECK(bad == 0, "%s: %zu elements exceed the bound %g (worst %g)", what, bad, bound, worst);
  CHECK(specials_bad == 0, "%s: %zu NaN/Inf elements changed", what, specials_bad);
}

template <typename T>
void run(MPI_Datatype type, const char* tname, bool relative, double user, double min_ratio) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (bool specials : {false, true}) {
    const size_t n = 300007;
    std::vector<T> in = field<T>(rank, n, specials);
    // Exact reference and the value range the relative bound refers to.
    std::vector<long double> exact(n, 0.0L);
    double lo = INFINITY, hi = -INFINITY;
    for (int r = 0; r < size; ++r) {
      std::vector<T> other = field<T>(r, n, specials);
      for (size_t i = 0; i < n; ++i) {
        exact[i] += other[i];
        if (std::isfinite(other[i])) lo = std::fmin(lo, other[i]), hi = std::fmax(hi, other[i]);
      }
    }
    const double bound = relative ? user * (hi - lo) : user;
    std::string label = std::string(tname) + (specials ? " with NaN/Inf" : "");

    adacomp_op_stats before = op_stats("allreduce");
    std::vector<T> out(n);
    MPI_Allreduce(in.data(), out.data(), n, type, MPI_SUM, MPI_COMM_WORLD);
    adacomp_op_stats after = op_stats("allreduce");
    check_case(("allreduce " + label).c_str(), out, exact, bound);
    CHECK(after.lossy_calls == before.lossy_calls + 1, "allreduce %s: lossy tier not used", tname);
    // Lossless coding gets ~1.1-1.5x here; a float bound close to float
    // precision leaves less room than a double one (node partial sums, with
    // a wider range, less still). Summed over ranks: node-aware, only node
    // leaders may code.
    unsigned long long bytes[2] = {after.bytes_wire - before.bytes_wire,
                                   after.bytes_in - before.bytes_in},
                       total[2];
    PMPI_Allreduce(bytes, total, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (size > 1 && min_ratio > 1)
      CHECK(total[1] > 0 && total[0] < total[1] / min_ratio,
            "allreduce %s: lossy ratio below %g (%llu of %llu bytes)", tname, min_ratio, total[0],
            total[1]);
    // Identical on every rank, bit for bit.
    std::vector<T> first(out);
    MPI_Bcast(first.data(), static_cast<int>(n * sizeof(T)), MPI_BYTE, 0, MPI_COMM_WORLD);
    CHECK(std::memcmp(first.data(), out.data(), n * sizeof(T)) == 0,
          "allreduce %s: ranks hold different results", tname);

    // Reduce_scatter_block, and Reduce_scatter in place with uneven counts
    // where rank 1 (and 4, 7) receives nothing: this rank's block of the sum.
    auto check_block = [&](const char* what, const std::vector<T>& got, size_t offset,
                           size_t count) {
      std::vector<long double> part(exact.begin() + offset, exact.begin() + offset + count);
      check_case((what + (" " + label)).c_str(), std::vector<T>(got.begin(), got.begin() + count),
                 part, bound);
    };
    const size_t block = n / size;
    std::vector<T> mine(block);
    MPI_Reduce_scatter_block(in.data(), mine.data(), static_cast<int>(block), type, MPI_SUM,
                             MPI_COMM_WORLD);
    check_block("reduce_scatter_block", mine, block * rank, block);
    auto weight = [](int r) -> size_t { return r % 3 == 1 ? 0 : r + 1; };
    size_t weights = 0;
    for (int r = 0; r < size; ++r) weights += weight(r);
    std::vector<size_t> cut(size + 1, 0);  // slice r is [cut[r], cut[r + 1])
    for (int r = 0, w = 0; r < size; ++r) w += weight(r), cut[r + 1] = n * w / weights;
    std::vector<int> counts(size);
    for (int r = 0; r < size; ++r) counts[r] = static_cast<int>(cut[r + 1] - cut[r]);
    adacomp_op_stats rs_before = op_stats("reduce_scatter");
    std::vector<T> all(in);
    MPI_Reduce_scatter(MPI_IN_PLACE, all.data(), counts.data(), type, MPI_SUM, MPI_COMM_WORLD);
    CHECK(op_stats("reduce_scatter").lossy_calls == rs_before.lossy_calls + 1,
          "reduce_scatter %s: lossy tier not used", tname);
    check_block("reduce_scatter", all, cut[rank], counts[rank]);

    // In place, at the root of a Reduce that is not rank 0.
    const int root = size - 1;
    std::vector<T> red(in);
    if (rank == root)
      MPI_Reduce(MPI_IN_PLACE, red.data(), n, type, MPI_SUM, root, MPI_COMM_WORLD);
    else
      MPI_Reduce(in.data(), nullptr, n, type, MPI_SUM, root, MPI_COMM_WORLD);
    if (rank == root) check_case(("reduce " + label).c_str(), red, exact, bound);

    // Bcast: one compression; the bound is relative to the root's own range.
    std::vector<T> b = field<T>(0, n, specials);
    std::vector<long double> sent(b.begin(), b.end());
    double blo = INFINITY, bhi = -INFINITY;
    for (T x : b)
      if (std::isfinite(x)) blo = std::fmin(blo, x), bhi = std::fmax(bhi, x);
    if (rank != 0) std::fill(b.begin(), b.end(), T(0));
    MPI_Bcast(b.data(), n, type, 0, MPI_COMM_WORLD);
    if (rank != 0)
      check_case(("bcast " + label).c_str(), b, sent, relative ? user * (bhi - blo) : user);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 3 && argc != 5) {
    std::fprintf(stderr, "usage: test_lossy abs|rel BOUND [MIN_RATIO_DOUBLE MIN_RATIO_FLOAT]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const bool relative = std::string(argv[1]) == "rel";
  const double bound = std::atof(argv[2]);
  run<double>(MPI_DOUBLE, "double", relative, bound, argc == 5 ? std::atof(argv[3]) : 3.0);
  run<float>(MPI_FLOAT, "float", relative, bound, argc == 5 ? std::atof(argv[4]) : 1.2);
  return finish_test("lossy");
}
