// Tier boundaries: with T1=4K, T2=64K, T3=1M, a bound set and mode
// pipelined (model off), each call lands in the tier its size says, on both
// sides of every threshold; integers never go lossy.
#include <vector>

#include "check.h"

namespace {

struct Expect {
  size_t bytes;
  bool compressed, lossy, pipelined;
};

void check_tier(MPI_Datatype type, size_t elem, const Expect& e, bool floating) {
  const int count = static_cast<int>(e.bytes / elem);
  std::vector<char> in(e.bytes, 1), out(e.bytes);
  if (floating)
    for (int i = 0; i < count; ++i) reinterpret_cast<double*>(in.data())[i] = 0.5 * i;
  adacomp_op_stats b = op_stats("allreduce");
  MPI_Allreduce(in.data(), out.data(), count, type, MPI_MAX, MPI_COMM_WORLD);
  adacomp_op_stats a = op_stats("allreduce");
  const bool lossy = floating && e.lossy;
  CHECK((a.compressed_calls - b.compressed_calls == 1) == e.compressed,
        "%zu bytes (%s): compressed %d", e.bytes, floating ? "double" : "int64", e.compressed);
  CHECK((a.lossy_calls - b.lossy_calls == 1) == lossy, "%zu bytes: lossy expected %d", e.bytes,
        lossy);
  CHECK((a.pipelined_calls - b.pipelined_calls == 1) == e.pipelined,
        "%zu bytes: pipelined expected %d", e.bytes, e.pipelined);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const Expect cases[] = {
      {4096 - 8, false, false, false},  {4096, true, false, false},
      {65536 - 8, true, false, false},  {65536, true, true, false},
      {1048576 - 8, true, true, false}, {1048576, true, true, true},
  };
  for (const Expect& e : cases) {
    check_tier(MPI_DOUBLE, 8, e, true);
    check_tier(MPI_INT64_T, 8, e, false);
  }
  return finish_test("tiers");
}
