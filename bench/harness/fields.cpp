// The sample fields of harness.h: a 2-D plate, a 3-D temperature field, or
// the user's file.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <random>

#include "harness.h"

namespace harness {

bool parse_field(const std::string& s, Field* out) {
  if (s == "heat2d")
    *out = Field::heat2d;
  else if (s == "heat3d")
    *out = Field::heat3d;
  else
    return false;
  return true;
}

namespace {

// At least n values: six explicit diffusion steps of a plate 1024 wide.
std::vector<double> heat2d(size_t n, int rank) {
  const size_t nx = 1024, ny = (n + nx - 1) / nx;
  std::vector<double> a(nx * ny), b(nx * ny);
  for (size_t j = 0; j < ny; ++j)
    for (size_t i = 0; i < nx; ++i) {
      double x = double(i) / nx, y = double(j) / ny;
      a[j * nx + i] = 290.0 +
                      60.0 * std::exp(-30.0 * ((x - 0.4) * (x - 0.4) + (y - 0.6) * (y - 0.6))) +
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
  return a;
}

// amplitude * x[i] * y[j] * z[k]. Cooling modes and diffusing Gaussians
// (exact solutions of the heat equation) separate by axis, so the 3-D field
// costs a few multiply-adds per value however large it is.
struct SeparableTerm {
  double amplitude;
  std::vector<double> x, y, z;
};

// At least n values: hot spots part-way through diffusing into a medium at
// about 20 degrees (values 10-100), features a few dozen points wide. At an
// absolute bound of 1e-4 the block quantisers code it about 4x as floats
// (bitplane, lossless: about 2.5x).
std::vector<double> heat3d(size_t n, int rank) {
  // A fixed resolution whose box grows along z with n, so that the field
  // looks alike (and codes alike) at every size.
  const size_t nx = 256, ny = 256, nz = (n + nx * ny - 1) / (nx * ny);
  const double h = 1.0 / 256, background = 20, two_pi = 2 * std::acos(-1.0);
  std::mt19937 rng(7919 * rank + 1);
  auto uniform = [&](double lo, double hi) { return lo + (hi - lo) * (rng() / 4294967296.0); };
  auto term = [&](double amplitude) {
    return SeparableTerm{amplitude, std::vector<double>(nx), std::vector<double>(ny),
                         std::vector<double>(nz)};
  };
  // The slowest cooling mode of a box with insulated walls, so that no
  // region is flat; along z with a period of its own.
  std::vector<SeparableTerm> terms{term(10)};
  const double kz = two_pi / uniform(1.1, 1.6), phase = uniform(0, two_pi);
  for (size_t i = 0; i < nx; ++i) terms[0].x[i] = std::cos(two_pi * i * h);
  for (size_t j = 0; j < ny; ++j) terms[0].y[j] = std::cos(two_pi * j * h);
  for (size_t k = 0; k < nz; ++k) terms[0].z[k] = std::cos(kz * k * h + phase);
  for (int s = 0; s < 10; ++s) {
    // Diffusion leaves a Gaussian hot spot a Gaussian, only wider and lower.
    // Along z each repeats with a period of its own: spots fill a box of any
    // length, and the field as a whole does not repeat.
    const double width = uniform(0.04, 0.15);
    const double cx = uniform(0.1, 0.9), cy = uniform(0.1, 0.9), cz = uniform(0, 1);
    const double period = uniform(0.6, 1.4);
    auto gauss = [&](double d) { return std::exp(-d * d / (2 * width * width)); };
    SeparableTerm spot = term(uniform(10, 80));
    for (size_t i = 0; i < nx; ++i) spot.x[i] = gauss(i * h - cx);
    for (size_t j = 0; j < ny; ++j) spot.y[j] = gauss(j * h - cy);
    for (size_t k = 0; k < nz; ++k) {
      const double d = std::remainder(k * h - cz, period);
      spot.z[k] = gauss(d) + gauss(d - period) + gauss(d + period);
    }
    terms.push_back(std::move(spot));
  }
  std::vector<double> u(nx * ny * nz), weight(terms.size());
  for (size_t k = 0; k < nz; ++k)
    for (size_t j = 0; j < ny; ++j) {
      for (size_t s = 0; s < terms.size(); ++s)
        weight[s] = terms[s].amplitude * terms[s].z[k] * terms[s].y[j];
      double* row = &u[(k * ny + j) * nx];
      for (size_t i = 0; i < nx; ++i) {
        double sum = background;
        for (size_t s = 0; s < terms.size(); ++s) sum += weight[s] * terms[s].x[i];
        row[i] = sum;
      }
    }
  return u;
}

}  // namespace

template <typename T>
std::vector<T> sample_field(size_t n, int rank, const std::string& file, Field field) {
  if (!file.empty()) {
    std::ifstream in(file, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t m = bytes.size() / sizeof(T);
    if (m == 0) {
      std::fprintf(stderr, "cannot read values from %s\n", file.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const T* v = reinterpret_cast<const T*>(bytes.data());
    std::vector<T> u(n);
    for (size_t i = 0; i < n; ++i) u[i] = v[(i + 997 * rank) % m];
    return u;
  }
  const std::vector<double> u = field == Field::heat3d ? heat3d(n, rank) : heat2d(n, rank);
  return std::vector<T>(u.begin(), u.begin() + n);
}

template std::vector<double> sample_field(size_t, int, const std::string&, Field);
template std::vector<float> sample_field(size_t, int, const std::string&, Field);

}  // namespace harness
