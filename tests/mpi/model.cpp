// The adaptive policy (the default) from the outside, results exact throughout.
//   test_model single-node   no layout given: one node. Nothing is coded,
//                            collectives or point-to-point, at any size.
//   test_model explore       ADACOMP_NODE_MAP makes two nodes: a slot explores
//                            (raw, compressed, raw, compressed), settles, and
//                            explores again after 32 calls. On incompressible
//                            data over shared memory with a slow codec (zstd
//                            level 19), coding loses: exactly the exploration
//                            calls are compressed.
#include <cstdint>
#include <string>
#include <vector>

#include "check.h"

namespace {

unsigned long long compressed(const char* op) { return op_stats(op).compressed_calls; }

void fill(std::vector<uint64_t>& v, bool random_data, int it, int rank) {
  uint64_t x = 0x9E3779B97F4A7C15ull * (it + 1) + rank;
  for (auto& e : v) {
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    e = random_data ? x : 42 + (it % 3);
  }
}

void allreduce(bool random_data, int it) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<uint64_t> in(1 << 16), out(in.size()), ref(in.size());
  fill(in, random_data, it, rank);
  MPI_Allreduce(in.data(), out.data(), static_cast<int>(in.size()), MPI_UINT64_T, MPI_SUM,
                MPI_COMM_WORLD);
  PMPI_Allreduce(in.data(), ref.data(), static_cast<int>(in.size()), MPI_UINT64_T, MPI_SUM,
                 MPI_COMM_WORLD);
  CHECK(out == ref, "allreduce %d differs from PMPI", it);
}

void single_node() {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int it = 0; it < 12; ++it) allreduce(false, it);
  std::vector<uint64_t> buf(1 << 17);
  fill(buf, false, 0, 0);
  for (int it = 0; it < 4; ++it) {
    MPI_Bcast(buf.data(), static_cast<int>(buf.size()), MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (size > 1) {
      const int peer = rank ^ 1;
      if (peer < size)
        MPI_Sendrecv_replace(buf.data(), static_cast<int>(buf.size()), MPI_UINT64_T, peer, 5,
                             peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  std::vector<uint64_t> ref(buf.size());
  fill(ref, false, 0, 0);
  CHECK(buf == ref, "bcast/sendrecv data changed");
  for (const char* op : {"allreduce", "bcast", "send"})
    CHECK(compressed(op) == 0, "%s: %llu calls compressed on one node", op, compressed(op));
}

void explore() {
  int it = 0;
  for (int i = 0; i < 20; ++i) allreduce(true, it++);
  CHECK(compressed("allreduce") == 2, "incompressible: %llu compressed calls, expected the 2 "
        "explored", compressed("allreduce"));
  // Settled after call 4; explores again at calls 36..39 (2 compressed).
  for (int i = 0; i < 30; ++i) allreduce(true, it++);
  CHECK(compressed("allreduce") == 4, "after 50 calls: %llu compressed, expected 4",
        compressed("allreduce"));
  // The next exploration is 64 calls after that one.
  for (int i = 0; i < 40; ++i) allreduce(true, it++);
  CHECK(compressed("allreduce") == 4, "after 90 calls: %llu compressed, expected 4",
        compressed("allreduce"));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const std::string what = argc > 1 ? argv[1] : "";
  if (what == "single-node") single_node();
  else if (what == "explore") explore();
  else CHECK(false, "usage: test_model single-node|explore");
  return finish_test(("model " + what).c_str());
}
