// Runtime model: compression switches off on incompressible data, and back
// on (after a probe) when the data becomes compressible, identically on all
// ranks; with a link calibrated as very fast it stays off even for
// compressible data. Results stay exact throughout.
//   test_model [fast-link]
#include <cstdint>
#include <string>
#include <vector>

#include "check.h"

namespace {

unsigned long long compressed() { return op_stats("allreduce").compressed_calls; }

// One exact (integer) allreduce of either random or constant data.
void call(bool random_data, int it) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 1 << 16;
  std::vector<uint64_t> in(n), out(n);
  uint64_t x = 0x9E3779B97F4A7C15ull * (it + 1) + rank;
  for (int i = 0; i < n; ++i) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    in[i] = random_data ? x : 42;
  }
  MPI_Allreduce(in.data(), out.data(), n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  std::vector<uint64_t> ref(n);
  PMPI_Allreduce(in.data(), ref.data(), n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK(out == ref, "allreduce %d differs from PMPI", it);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const bool fast_link = argc > 1 && std::string(argv[1]) == "fast-link";
  int it = 0;

  // Phase 1: incompressible. The first agreement (after 4 compressed
  // calls) switches compression off; no probe happens within 20 calls.
  for (int i = 0; i < 20; ++i) call(true, it++);
  CHECK(compressed() == 4, "incompressible data: %llu compressed calls, expected 4", compressed());

  // Phase 2: compressible. A probe after 32 raw calls turns it back on,
  // unless the link is so fast that coding never pays.
  const unsigned long long before = compressed();
  for (int i = 0; i < 60; ++i) call(false, it++);
  const unsigned long long phase2 = compressed() - before;
  if (fast_link) {
    CHECK(phase2 <= 8, "fast link: %llu compressed calls in phase 2, expected probes only", phase2);
  } else {
    const unsigned long long mid = compressed();
    for (int i = 0; i < 10; ++i) call(false, it++);
    CHECK(compressed() - mid == 10, "compressible again: only %llu of 10 calls compressed",
          compressed() - mid);
  }
  return finish_test(fast_link ? "model fast-link" : "model");
}
