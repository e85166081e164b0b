// Lossy Allreduce, Reduce_scatter and Reduce SUM on float/double reduced on
// quantisation codes (src/coll/ring_codes.cpp; Reduce's tree,
// src/coll/reduce.cpp). The test recomputes the path's result from
// the codec functions (grid from the agreed range, codes summed as
// integers, decoded once) and requires it bit for bit, so it fails if the
// path did not run or computed anything else; the bound must hold against
// a long-double exact sum; every rank holds the same bytes (the
// Reduce_scatter: its own slice, slices uneven and some empty; the Reduce: the
// last rank, the root). Inputs the path
// declines (NaN/Inf, a grid that would overflow the codes) and other ops
// must still meet the bound on today's path.
// With `off` (ADACOMP_REDUCE_ON_CODES=off) the large sums must differ from
// the codes' result: the check can tell the two paths apart. With `nodes`
// (a node-aware layout: the ring adds node sums PMPI made, which the test
// cannot reproduce bit for bit) double results must instead lie on a
// power-of-two grid near the bound, which today's path never gives.
//   test_codes_ring abs|rel BOUND [off|nodes]
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "check.h"
#include "codec/quant_grid.h"

namespace {

bool g_relative, g_off, g_nodes;
double g_user;

template <typename T>
std::vector<T> field(int rank, size_t n, double scale) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) {
    const double x = 1e-4 * static_cast<double>(i);
    v[i] = static_cast<T>(scale * (300.0 + 40.0 * std::sin(3 * x + rank) * std::cos(x) +
                                   0.01 * std::sin(1e3 * x * (rank + 1))));
  }
  return v;
}

template <typename T>
constexpr adacomp::ElemKind kind_of() {
  return sizeof(T) == 8 ? adacomp::ElemKind::f64 : adacomp::ElemKind::f32;
}

// The nonblocking form runs the same schedule, advanced by MPI_Wait.
enum class Call { allreduce, reduce_scatter, ireduce_scatter_block, reduce, ireduce };

// The slices of n: the Reduce_scatter's rank 0 takes the remainder too, so
// they are uneven, and empty where n < size; Reduce_scatter_block's are
// n / size each.
std::vector<int> slices(Call call, size_t n, int size) {
  std::vector<int> counts(size, static_cast<int>(n / size));
  if (call == Call::reduce_scatter) counts[0] += static_cast<int>(n % size);
  return counts;
}

// What every rank of comm computes: inputs of all ranks by generator.
template <typename T, typename Gen>
void check_sum(Call call, const char* what, MPI_Comm comm, MPI_Datatype type, Gen gen,
               bool in_place, bool expect_codes) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::vector<T> in = gen(rank);
  // The elements reduced (Reduce_scatter_block: whole blocks only).
  const size_t n = call == Call::ireduce_scatter_block ? in.size() / size * size : in.size();
  std::vector<long double> exact(n, 0.0L);
  std::vector<uint32_t> codes(n, 0), q(n);
  double lo = INFINITY, hi = -INFINITY;
  std::vector<std::vector<T>> all(size);
  for (int r = 0; r < size; ++r) {
    all[r] = gen(r);
    for (size_t i = 0; i < n; ++i) {
      exact[i] += all[r][i];
      if (std::isfinite(all[r][i])) lo = std::fmin(lo, all[r][i]), hi = std::fmax(hi, all[r][i]);
    }
  }
  const double bound = g_relative ? g_user * (hi - lo) : g_user;

  // This rank's result: elements [first, first + len) of the sum.
  const bool rooted = call == Call::reduce || call == Call::ireduce;
  const int root = size - 1;
  const char* stats = call == Call::allreduce        ? "allreduce"
                      : call == Call::reduce_scatter ? "reduce_scatter"
                      : rooted                       ? "reduce"
                                                     : "reduce_scatter_block";
  const std::vector<int> counts = slices(call, n, size);
  size_t first = 0, len = n;
  if (rooted) {
    len = rank == root ? n : 0;
    in_place &= rank == root;
  } else if (call != Call::allreduce) {
    for (int r = 0; r < rank; ++r) first += counts[r];
    len = counts[rank];
  }
  const adacomp_op_stats before = op_stats(stats);
  std::vector<T> out(in_place ? in : std::vector<T>(n));
  const void* send = in_place ? MPI_IN_PLACE : in.data();
  int rc;
  if (call == Call::allreduce) {
    rc = MPI_Allreduce(send, out.data(), static_cast<int>(n), type, MPI_SUM, comm);
  } else if (call == Call::reduce_scatter) {
    rc = MPI_Reduce_scatter(send, out.data(), counts.data(), type, MPI_SUM, comm);
  } else if (call == Call::reduce) {
    rc = MPI_Reduce(send, out.data(), static_cast<int>(n), type, MPI_SUM, root, comm);
  } else if (call == Call::ireduce) {
    MPI_Request req;
    rc = MPI_Ireduce(send, out.data(), static_cast<int>(n), type, MPI_SUM, root, comm, &req);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    MPI_Request req;
    rc = MPI_Ireduce_scatter_block(send, out.data(), counts[0], type, MPI_SUM, comm, &req);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  CHECK(rc == MPI_SUCCESS, "%s: rc %d", what, rc);
  out.resize(len);
  const adacomp_op_stats after = op_stats(stats);
  const bool lossy = after.lossy_calls == before.lossy_calls + 1;
  size_t bad = 0, specials_bad = 0;
  double worst = 0;
  for (size_t i = 0; i < len; ++i) {
    const long double e = exact[first + i];
    if (!std::isfinite(e)) {
      specials_bad += std::isnan(e) ? !std::isnan(out[i]) : static_cast<long double>(out[i]) != e;
      continue;
    }
    const double err = static_cast<double>(std::fabs(static_cast<long double>(out[i]) - e));
    worst = std::fmax(worst, err);
    bad += !(err <= bound);
  }
  CHECK(bad == 0, "%s: %zu elements beyond the bound %g (worst %g)", what, bad, bound, worst);
  CHECK(specials_bad == 0, "%s: %zu NaN/Inf elements changed", what, specials_bad);

  int exp;
  const double max_abs = std::fmax(std::fabs(lo), std::fabs(hi));
  const bool grid =
      n > 0 && hi >= lo && adacomp::qgrid::choose_grid(bound, max_abs, size, kind_of<T>(), &exp);
  expect_codes &= size > 1 && n > 0;  // one rank or no element: nothing to reduce
  // Small messages may stay below the lossy tier (pipelined mode's threshold).
  CHECK(!expect_codes || (grid && (lossy || n < 100000)),
        "%s: codes path expected (lossy %d grid %d)", what, lossy, grid);
  if (expect_codes && lossy && g_nodes && sizeof(T) == 8) {
    const double step = std::ldexp(1.0, std::ilogb(bound / (8.0 * size)));
    size_t off_grid = 0;
    for (size_t i = 0; i < len; ++i) off_grid += std::fmod(static_cast<double>(out[i]), step) != 0;
    CHECK(off_grid == 0, "%s: %zu results off the grid %g", what, off_grid, step);
  }
  if (expect_codes && grid && lossy && !g_nodes && (!g_off || n >= 100000)) {
    for (int r = 0; r < size; ++r) {
      adacomp::qgrid::quantize(kind_of<T>(), all[r].data(), n, exp, q.data());
      for (size_t i = 0; i < n; ++i) codes[i] += q[i];
    }
    std::vector<T> model(len + 1);
    adacomp::qgrid::reconstruct(kind_of<T>(), codes.data() + first, len, exp, model.data());
    // A slice that no element of differs from the codes' sum proves nothing
    // with `off`: only slices of the large sums are compared there.
    if (!g_off || len >= 10000)
      CHECK((std::memcmp(model.data(), out.data(), len * sizeof(T)) == 0) != g_off,
            "%s: result %s the sum of the codes on grid 2^%d", what, g_off ? "is" : "is not",
            exp);
  }
  if (call != Call::allreduce) return;
  std::vector<T> rank0(out);
  if (n) MPI_Bcast(rank0.data(), static_cast<int>(n * sizeof(T)), MPI_BYTE, 0, comm);
  // memcmp with no bytes still wants valid pointers; empty vectors have none.
  CHECK(n == 0 || std::memcmp(rank0.data(), out.data(), n * sizeof(T)) == 0,
        "%s: ranks hold different results", what);
}

template <typename T>
void run(Call call, MPI_Datatype type, const char* tname, MPI_Comm comm, const char* cname) {
  auto label = [&](const char* c) {
    const char* name = call == Call::allreduce        ? "Allreduce "
                       : call == Call::reduce_scatter ? "Reduce_scatter "
                       : call == Call::reduce         ? "Reduce "
                       : call == Call::ireduce        ? "Ireduce "
                                                      : "Ireduce_scatter_block ";
    return std::string(name) + tname + " " + cname + " " + c;
  };
  for (size_t n : {size_t(300007), size_t(1), size_t(7), size_t(33)})
    for (bool in_place : {false, true}) {
      const std::string what = label(in_place ? "in place" : "") + " n=" + std::to_string(n);
      check_sum<T>(
          call, what.c_str(), comm, type, [&](int r) { return field<T>(r, n, 1.0); }, in_place,
          true);
    }
  check_sum<T>(
      call, label("count 0").c_str(), comm, type, [](int) { return std::vector<T>(); }, false,
      false);
  // -0.0, denormals and zeros around a smooth field: still the codes path.
  check_sum<T>(
      call, label("-0.0/denormals").c_str(), comm, type,
      [&](int r) {
        std::vector<T> v = field<T>(r, 10007, 1.0);
        for (size_t i = 0; i < v.size(); i += 7) v[i] = -0.0;
        for (size_t i = 3; i < v.size(); i += 11)
          v[i] = std::numeric_limits<T>::denorm_min() * static_cast<T>(r + 1);
        return v;
      },
      false, true);
  // NaN and +-Inf in some inputs: declined to today's path, specials exact.
  check_sum<T>(
      call, label("NaN/Inf").c_str(), comm, type,
      [&](int r) {
        std::vector<T> v = field<T>(r, 10007, 1.0);
        if (r == 0) v[17] = std::numeric_limits<T>::quiet_NaN();
        if (r == 1 || r == 0) v[18] = std::numeric_limits<T>::infinity();
        v[19] = r == 0 ? std::numeric_limits<T>::infinity() : -std::numeric_limits<T>::infinity();
        return v;
      },
      false, false);
  // Values so large for the bound that codes could overflow an int32:
  // declined to today's path (abs bound only; a relative one scales along).
  // (Floats never get there: their own rounding of the sum, 2^-24 of it,
  // exceeds the bound first and declines the grid.)
  if (sizeof(T) == 8)
    check_sum<T>(
        call, label("code overflow").c_str(), comm, type,
        [&](int r) { return field<T>(r, 10007, 1e7); }, false, false);
  // Another op keeps today's path and its bound.
  if (call != Call::allreduce) return;
  std::vector<T> in = field<T>(0, 10007, 1.0), out(in.size());
  int rank;
  MPI_Comm_rank(comm, &rank);
  in = field<T>(rank, 10007, 1.0);
  MPI_Allreduce(in.data(), out.data(), static_cast<int>(in.size()), type, MPI_MAX, comm);
  int size;
  MPI_Comm_size(comm, &size);
  size_t bad = 0;
  double lo = INFINITY, hi = -INFINITY;
  std::vector<T> mx(in.size(), -std::numeric_limits<T>::infinity());
  for (int r = 0; r < size; ++r) {
    std::vector<T> o = field<T>(r, 10007, 1.0);
    for (size_t i = 0; i < o.size(); ++i)
      mx[i] = std::fmax(mx[i], o[i]), lo = std::fmin(lo, o[i]), hi = std::fmax(hi, o[i]);
  }
  const double bound = g_relative ? g_user * (hi - lo) : g_user;
  for (size_t i = 0; i < out.size(); ++i)
    bad += !(std::fabs(double(out[i]) - double(mx[i])) <= bound);
  CHECK(bad == 0, "%s: MPI_MAX %zu elements beyond the bound", label("max").c_str(), bad);
}

// A blocking reduction on codes starts on the grid its kind's last call
// agreed, and confirms it at its end (src/coll/lossy_agreement.h): its
// result must be bit for bit that of the nonblocking form, which always
// scans first. Repeats (the kept grid holds), a field 8x larger and one
// with a NaN (it does not: the call runs again), then in place (the input
// restored for the second run) and a repeat after it.
template <typename T>
void kept_views(bool scatter, MPI_Datatype type, MPI_Comm comm, const char* cname) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const size_t n = 200003 - 200003 % size;
  const int block = static_cast<int>(n) / size;
  const size_t len = scatter ? block : n;
  struct Step {
    double scale;
    bool nan, in_place;
  };
  const Step steps[] = {{1, false, false}, {1, false, false}, {1, false, false}, {8, false, false},
                        {8, false, false}, {8, true, false},  {8, false, false}, {1, false, true},
                        {1, false, false}, {1, false, false}};
  int k = 0;
  for (const Step& st : steps) {
    std::vector<T> in = field<T>(rank, n, st.scale);
    if (st.nan && rank == size - 1) in[n / 2] = std::numeric_limits<T>::quiet_NaN();
    std::vector<T> blocking(st.in_place ? in : std::vector<T>(len)), nonblocking(len);
    const void* send = st.in_place ? MPI_IN_PLACE : in.data();
    MPI_Request req;
    if (scatter) {
      MPI_Reduce_scatter_block(send, blocking.data(), block, type, MPI_SUM, comm);
      MPI_Ireduce_scatter_block(in.data(), nonblocking.data(), block, type, MPI_SUM, comm, &req);
    } else {
      MPI_Allreduce(send, blocking.data(), static_cast<int>(n), type, MPI_SUM, comm);
      MPI_Iallreduce(in.data(), nonblocking.data(), static_cast<int>(n), type, MPI_SUM, comm, &req);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    blocking.resize(len);
    CHECK(std::memcmp(blocking.data(), nonblocking.data(), len * sizeof(T)) == 0,
          "%s %s kept views, step %d (scale %g%s%s): blocking and nonblocking results differ",
          scatter ? "Reduce_scatter_block" : "Allreduce", cname, k, st.scale,
          st.nan ? ", NaN" : "", st.in_place ? ", in place" : "");
    if (st.nan && rank == 0 && !scatter)
      CHECK(std::isnan(blocking[n / 2]), "Allreduce %s kept views: the NaN lost", cname);
    ++k;
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string mode = argc == 4 ? argv[3] : "";
  if ((argc != 3 && argc != 4) || !(mode.empty() || mode == "off" || mode == "nodes")) {
    std::fprintf(stderr, "usage: test_codes_ring abs|rel BOUND [off|nodes]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  g_relative = std::string(argv[1]) == "rel";
  g_user = std::atof(argv[2]);
  g_off = mode == "off";
  g_nodes = mode == "nodes";
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // A split communicator: even and odd ranks.
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  for (Call call : {Call::allreduce, Call::reduce_scatter, Call::ireduce_scatter_block,
                    Call::reduce, Call::ireduce}) {
    run<double>(call, MPI_DOUBLE, "double", MPI_COMM_WORLD, "world");
    run<float>(call, MPI_FLOAT, "float", MPI_COMM_WORLD, "world");
    run<double>(call, MPI_DOUBLE, "double", half, "half");
  }
  for (bool scatter : {false, true}) {
    kept_views<double>(scatter, MPI_DOUBLE, MPI_COMM_WORLD, "world");
    kept_views<float>(scatter, MPI_FLOAT, half, "half");
  }
  MPI_Comm_free(&half);
  return finish_test("codes_ring");
}
