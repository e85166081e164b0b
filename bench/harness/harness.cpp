#include "harness.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "adacomp.h"

namespace harness {

const char* coll_name(Coll c) {
  switch (c) {
    case Coll::allreduce: return "allreduce";
    case Coll::bcast: return "bcast";
    case Coll::reduce: return "reduce";
  }
  return "?";
}

bool parse_coll(const std::string& s, Coll* out) {
  for (Coll c : {Coll::allreduce, Coll::bcast, Coll::reduce})
    if (s == coll_name(c)) {
      *out = c;
      return true;
    }
  return false;
}

std::vector<double> sample_field(size_t n, int rank, const std::string& file) {
  std::vector<double> u(n);
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t m = bytes.size() / sizeof(double);
    if (m == 0) {
      std::fprintf(stderr, "cannot read doubles from %s\n", file.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const double* v = reinterpret_cast<const double*>(bytes.data());
    for (size_t i = 0; i < n; ++i) u[i] = v[(i + 997 * rank) % m];
    return u;
  }
  const size_t nx = 1024, ny = (n + nx - 1) / nx;
  std::vector<double> a(nx * ny), b(nx * ny);
  for (size_t j = 0; j < ny; ++j)
    for (size_t i = 0; i < nx; ++i) {
      double x = double(i) / nx, y = double(j) / ny;
      a[j * nx + i] = 290.0 + 60.0 * std::exp(-30.0 * ((x - 0.4) * (x - 0.4) + (y - 0.6) * (y - 0.6))) +
                      15.0 * std::sin(5.0 * x + 0.7 * rank) * std::cos(3.0 * y);
    }
  for (int step = 0; step < 6; ++step) {
    b = a;
    for (size_t j = 1; j + 1 < ny; ++j)
      for (size_t i = 1; i + 1 < nx; ++i) {
        size_t k = j * nx + i;
        a[k] = b[k] + 0.2 * (b[k - 1] + b[k + 1] + b[k - nx] + b[k + nx] - 4 * b[k]);
      }
  }
  std::copy(a.begin(), a.begin() + n, u.begin());
  return u;
}

double configured_bound(const std::vector<double>& data, MPI_Comm comm) {
  if (const char* abs = std::getenv("ADACOMP_ERROR_BOUND")) return std::atof(abs);
  const char* rel = std::getenv("ADACOMP_REL_ERROR_BOUND");
  if (!rel) return 0;
  double lo = INFINITY, hi = -INFINITY;
  for (double x : data) lo = std::min(lo, x), hi = std::max(hi, x);
  double mine[2] = {-lo, hi}, all[2];
  PMPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, comm);
  return std::atof(rel) * (all[1] + all[0]);
}

namespace {

void run_once(Coll c, const std::vector<double>& in, std::vector<double>& out, MPI_Comm comm,
              int rank) {
  const int n = static_cast<int>(in.size());
  switch (c) {
    case Coll::allreduce:
      MPI_Allreduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, comm);
      break;
    case Coll::reduce:
      MPI_Reduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_SUM, 0, comm);
      break;
    case Coll::bcast:
      if (rank == 0) std::copy(in.begin(), in.end(), out.begin());
      MPI_Bcast(out.data(), n, MPI_DOUBLE, 0, comm);
      break;
  }
}

}  // namespace

Sample measure(Coll c, const std::vector<double>& data, const char* tier, int iters, double bound,
               MPI_Comm comm) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  std::vector<double> ref(data.size()), out(data.size());
  adacomp_override_tier("raw");
  run_once(c, data, ref, comm, rank);
  if (adacomp_override_tier(tier) != 0) {
    std::fprintf(stderr, "unknown tier %s\n", tier);
    MPI_Abort(comm, 2);
  }
  run_once(c, data, out, comm, rank);  // warm-up (buffers, model)
  std::vector<double> t(iters);
  for (int i = 0; i < iters; ++i) {
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    run_once(c, data, out, comm, rank);
    t[i] = MPI_Wtime() - t0;
  }
  adacomp_override_tier(nullptr);
  std::nth_element(t.begin(), t.begin() + iters / 2, t.end());
  double local[2] = {t[iters / 2], 0.0};
  const bool has_result = c != Coll::reduce || rank == 0;
  if (has_result)
    for (size_t i = 0; i < data.size(); ++i) local[1] = std::max(local[1], std::fabs(out[i] - ref[i]));
  double global[2];
  PMPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, comm);
  Sample s;
  s.median_s = global[0];
  s.max_err = global[1];
  // Lossless: Bcast is bit-exact; reductions differ from PMPI only by the
  // order of additions. Lossy: within the user's bound.
  double scale = 0;
  for (double x : ref) scale = std::max(scale, std::fabs(x));
  const double lossless_tol = c == Coll::bcast ? 0.0 : 1e-12 * scale;
  s.ok = s.max_err <= std::max(bound, lossless_tol);
  return s;
}

int iterations_for(double one_call_s, double budget_s, int lo, int hi) {
  int n = one_call_s > 0 ? static_cast<int>(budget_s / one_call_s) : hi;
  return std::max(lo, std::min(hi, n));
}

bool parse_size(const std::string& s, size_t* out) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  std::string suffix = end;
  double mult = suffix == "" ? 1 : suffix == "K" ? 1024.0 : suffix == "M" ? 1048576.0
                                 : suffix == "G" ? 1073741824.0 : -1;
  if (mult < 0 || !(v > 0)) return false;
  *out = static_cast<size_t>(v * mult);
  return true;
}

std::string size_label(size_t b) {
  char buf[32];
  if (b >= (size_t{1} << 30) && b % (size_t{1} << 30) == 0) std::snprintf(buf, sizeof buf, "%zuG", b >> 30);
  else if (b >= (1u << 20) && b % (1u << 20) == 0) std::snprintf(buf, sizeof buf, "%zuM", b >> 20);
  else if (b >= 1024 && b % 1024 == 0) std::snprintf(buf, sizeof buf, "%zuK", b >> 10);
  else std::snprintf(buf, sizeof buf, "%zu", b);
  return buf;
}

}  // namespace harness
