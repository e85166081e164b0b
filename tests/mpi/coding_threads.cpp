// ADACOMP_THREADS: messages large enough travel as segmented frames coded
// on the rank's coding threads (docs/codecs.md), and the results are the
// same as without them. Lossless: Allreduce, Bcast, Alltoall and Sendrecv of
// doubles, floats and bytes (NaN, Inf, -0.0, denormals, odd counts)
// bit-identical to PMPI. Lossy: the bound holds on the Allreduce and Bcast
// results, and every rank holds the same Allreduce result. Ranks may run
// different thread counts (each reads its own ADACOMP_THREADS): the pool
// (threads named adacomp-code) exists exactly when a rank has more than one,
// and is gone after MPI_Finalize.
//   test_coding_threads lossless
//   test_coding_threads lossy BOUND
#include <dirent.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "check.h"

namespace {

int pool_threads() {
  int n = 0;
  DIR* d = opendir("/proc/self/task");
  if (!d) return -1;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream f(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string name;
    if (std::getline(f, name) && name == "adacomp-code") ++n;
  }
  closedir(d);
  return n;
}

// A smooth field of small integers (sums exact in any order) with the
// special values at the same places on every rank.
template <typename T>
std::vector<T> field(int rank, size_t n) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::floor(1000 * std::sin(i * 1e-4)) + rank;
  const T special[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                       -std::numeric_limits<T>::infinity(), T(-0.0),
                       std::numeric_limits<T>::denorm_min()};
  for (size_t i = 5, k = 0; i < n; i += 40009, ++k) v[i] = special[k % 5];
  return v;
}

template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// |got - want| <= bound, non-finite values exact.
template <typename T>
size_t beyond(const std::vector<T>& got, const std::vector<long double>& want, double bound) {
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const long double w = want[i];
    if (std::isnan(w))
      bad += !std::isnan(got[i]);
    else if (std::isinf(w))
      bad += static_cast<long double>(got[i]) != w;
    else
      bad += std::fabs(static_cast<long double>(got[i]) - w) > bound;
  }
  return bad;
}

template <typename T>
void allreduce(MPI_Datatype type, const char* tname, size_t n, double bound) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::vector<T> in = field<T>(rank, n);
  std::vector<T> out(n), ref(n);
  CHECK(MPI_Allreduce(in.data(), out.data(), n, type, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
        "Allreduce %s", tname);
  CHECK(same_on_all_ranks(fnv(out.data(), n * sizeof(T)), MPI_COMM_WORLD),
        "Allreduce %s n=%zu: ranks hold different results", tname, n);
  if (bound == 0) {
    PMPI_Allreduce(in.data(), ref.data(), n, type, MPI_SUM, MPI_COMM_WORLD);
    CHECK(same_bits(out, ref), "Allreduce %s n=%zu differs from PMPI", tname, n);
    return;
  }
  std::vector<long double> exact(n, 0.0L);
  for (int r = 0; r < size; ++r) {
    const std::vector<T> other = field<T>(r, n);
    for (size_t i = 0; i < n; ++i) exact[i] += other[i];
  }
  const size_t bad = beyond(out, exact, bound);
  CHECK(bad == 0, "Allreduce %s n=%zu: %zu elements beyond the bound %g", tname, n, bad, bound);
}

template <typename T>
void bcast(MPI_Datatype type, const char* tname, size_t n, int root, double bound) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::vector<T> data = field<T>(root, n);
  std::vector<T> got = rank == root ? data : std::vector<T>(n);
  CHECK(MPI_Bcast(got.data(), n, type, root, MPI_COMM_WORLD) == MPI_SUCCESS, "Bcast %s", tname);
  if (bound == 0) {
    CHECK(same_bits(got, data), "Bcast %s n=%zu root=%d differs", tname, n, root);
    return;
  }
  const std::vector<long double> want(data.begin(), data.end());
  const size_t bad = beyond(got, want, bound);
  CHECK(bad == 0, "Bcast %s n=%zu root=%d: %zu elements beyond the bound", tname, n, root, bad);
}

// Bytes (data movement is always lossless): a block per rank of `block`
// bytes, and a ring Sendrecv of the same.
void bytes_movement(size_t block) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<uint8_t> send(block * size), got(block * size), ref(block * size);
  for (size_t i = 0; i < send.size(); ++i)
    send[i] = static_cast<uint8_t>("coding threads "[i % 15] + (i / 4099 + rank) % 5);
  CHECK(MPI_Alltoall(send.data(), block, MPI_BYTE, got.data(), block, MPI_BYTE, MPI_COMM_WORLD) ==
            MPI_SUCCESS,
        "Alltoall");
  PMPI_Alltoall(send.data(), block, MPI_BYTE, ref.data(), block, MPI_BYTE, MPI_COMM_WORLD);
  CHECK(got == ref, "Alltoall of %zu-byte blocks differs from PMPI", block);
  const int to = (rank + 1) % size, from = (rank + size - 1) % size;
  CHECK(MPI_Sendrecv(send.data(), block, MPI_BYTE, to, 7, got.data(), block, MPI_BYTE, from, 7,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS,
        "Sendrecv");
  PMPI_Sendrecv(send.data(), block, MPI_BYTE, to, 8, ref.data(), block, MPI_BYTE, from, 8,
                MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(std::memcmp(got.data(), ref.data(), block) == 0, "Sendrecv of %zu bytes differs", block);
}

void alltoall_doubles(size_t block) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::vector<double> send = field<double>(rank, block * size);
  std::vector<double> got(send.size()), ref(send.size());
  CHECK(MPI_Alltoall(send.data(), block, MPI_DOUBLE, got.data(), block, MPI_DOUBLE,
                     MPI_COMM_WORLD) == MPI_SUCCESS,
        "Alltoall double");
  PMPI_Alltoall(send.data(), block, MPI_DOUBLE, ref.data(), block, MPI_DOUBLE, MPI_COMM_WORLD);
  CHECK(same_bits(got, ref), "Alltoall double block=%zu differs from PMPI", block);
}

}  // namespace

int main(int argc, char** argv) {
  int rank, size;
  start_test(&argc, &argv, &rank, &size);
  const bool lossy = argc > 1 && std::string(argv[1]) == "lossy";
  const double bound = lossy && argc > 2 ? std::atof(argv[2]) : 0;
  const char* env = std::getenv("ADACOMP_THREADS");
  const int threads = env ? std::atoi(env) : 1;

  CHECK(pool_threads() == 0, "a pool before any coding");
  // Odd counts; the large ones give every ring chunk several segments.
  for (size_t n : {size_t(0), size_t(1), size_t(1001), size_t(300007), size_t(1200001)}) {
    allreduce<double>(MPI_DOUBLE, "double", n, bound);
    allreduce<float>(MPI_FLOAT, "float", n, bound);
    for (int root : {0, size - 1}) {
      bcast<double>(MPI_DOUBLE, "double", n, root, bound);
      bcast<float>(MPI_FLOAT, "float", n, root, bound);
    }
  }
  alltoall_doubles(100003);
  bytes_movement(1 << 20 | 3);
  const int pool = pool_threads();
  CHECK(pool == (threads > 1 ? threads - 1 : 0), "%d coding threads with ADACOMP_THREADS=%d", pool,
        threads);

  int failures = 0, checks = 0;
  PMPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  PMPI_Allreduce(&g_checks, &checks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("coding_threads: %d checks, %d failed\n", checks, failures);
  MPI_Finalize();
  const int left = pool_threads();
  if (left != 0)
    std::fprintf(stderr, "[rank %d] %d coding threads after MPI_Finalize\n", rank, left);
  return failures == 0 && checks > 0 && left == 0 ? 0 : 1;
}
