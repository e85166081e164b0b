// Point-to-point through AdaComp, thresholds forced to 0 so every message of
// one byte or more takes the compressed path. Every received buffer is
// compared byte for byte with what the sender generated; statuses are
// compared with the application's counts. Works on 1 rank (self messages)
// and more (ring neighbours).
// The suites live in tests/mpi/p2p/ by feature; this file runs them in
// order and checks what they sent, as one test.
#include <mpi.h>

#include <cstring>

#include "check.h"
#include "p2p/suites.h"

namespace p2p_test {
int rank_, size_, next_, prev_;
bool raw_ = false;
bool mixed_ = false;
}  // namespace p2p_test

using namespace p2p_test;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  next_ = (rank_ + 1) % size_;
  prev_ = (rank_ - 1 + size_) % size_;
  raw_ = argc > 1 && std::strcmp(argv[1], "--raw") == 0;
  mixed_ = argc > 1 && std::strcmp(argv[1], "--mixed") == 0;
  basic_types();
  special_floats();
  ordering_and_wildcards();
  proc_null_cancel_free();
  completion_families();
  persistent_and_modes();
  probes();
  derived_and_replace();
  truncation();
  split_comms();
  more_modes_and_comms();
#if MPI_VERSION >= 4
  mpi4_calls();
#endif
  adacomp_op_stats send = op_stats("send"), recv = op_stats("recv");
  if (raw_) {
    CHECK(send.compressed_calls == 0, "raw mode compressed %llu sends",
          (unsigned long long)send.compressed_calls);
  } else {
    const unsigned long long least = mixed_ ? 20 : 50;
    CHECK(send.compressed_calls > least, "only %llu sends compressed",
          (unsigned long long)send.compressed_calls);
    CHECK(recv.compressed_calls > least, "only %llu receives decompressed",
          (unsigned long long)recv.compressed_calls);
    CHECK(send.bytes_wire < send.bytes_in, "no compression: %llu wire vs %llu in",
          (unsigned long long)send.bytes_wire, (unsigned long long)send.bytes_in);
  }
  return finish_test("p2p");
}
