// Device memory (issue 12): calls whose buffers are in device memory go to
// PMPI unchanged; the library never reads them. No GPU exists on the machines
// these tests run on: tests/device/fake_cuda.c stands in for the CUDA driver
// (libcuda.so.1, linked in, so "already loaded" as in a CUDA program) and
// reports the ranges this test marks as device memory (host memory
// underneath, which the MPI moves as usual). The library's statistics show
// which calls it handled; the driver's query count shows the range cache.
#include <cstdint>
#include <vector>

#include "check.h"

extern "C" void fake_cuda_mark_device(void* p, size_t bytes);
extern "C" long fake_cuda_queries(void);

namespace {

unsigned long long calls(const char* op) { return op_stats(op).calls; }

}  // namespace

int main(int argc, char** argv) {
  int rank, size;
  start_test(&argc, &argv, &rank, &size);
  const int n = 1 << 14, peer = (rank + 1) % size, from = (rank - 1 + size) % size;
  std::vector<double> host(n, 1.0 + rank), host_out(n * size);
  std::vector<double> dev(n, 1.0 + rank), dev_out(n * size);  // "device" memory
  fake_cuda_mark_device(dev.data(), dev.size() * sizeof(double));
  fake_cuda_mark_device(dev_out.data(), dev_out.size() * sizeof(double));

  // Host buffers: the library's (counted).
  unsigned long long before = calls("allreduce");
  MPI_Allreduce(host.data(), host_out.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  CHECK(calls("allreduce") == before + 1, "host Allreduce not intercepted");

  // Device buffers: straight to PMPI, results still right.
  const unsigned long long ar = calls("allreduce"), bc = calls("bcast"), ag = calls("allgather"),
                           sd = calls("send"), rv = calls("recv");
  const long queries_before = fake_cuda_queries();
  const double sum = size * (size + 1) / 2.0;
  for (int round = 0; round < 50; ++round) {
    MPI_Allreduce(dev.data(), dev_out.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(dev_out[0] == sum && dev_out[n - 1] == sum, "device Allreduce: %g", dev_out[0]);
    MPI_Allreduce(MPI_IN_PLACE, dev_out.data(), n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Bcast(dev_out.data(), n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Allgather(dev.data(), n, MPI_DOUBLE, dev_out.data(), n, MPI_DOUBLE, MPI_COMM_WORLD);
    CHECK(dev_out[n * from] == 1.0 + from, "device Allgather: %g", dev_out[n * from]);
    MPI_Request r;
    MPI_Irecv(dev_out.data(), n, MPI_DOUBLE, from, 5, MPI_COMM_WORLD, &r);
    MPI_Send(dev.data() + 1, n - 1, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD);  // inside the range
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(dev_out[0] == 1.0 + from, "device Send/Irecv: %g", dev_out[0]);
    MPI_Sendrecv(dev.data(), n, MPI_DOUBLE, peer, 6, dev_out.data(), n, MPI_DOUBLE, from, 6,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(dev_out[n - 1] == 1.0 + from, "device Sendrecv: %g", dev_out[n - 1]);
  }
  CHECK(calls("allreduce") == ar && calls("bcast") == bc && calls("allgather") == ag &&
            calls("send") == sd && calls("recv") == rv,
        "calls on device buffers reached the library");
  // Two device allocations: each asked about once, then cached by range.
  const long queries = fake_cuda_queries() - queries_before;
  CHECK(queries <= 2 * 3, "driver asked %ld times for 2 device ranges", queries);

  // Host buffers still go through the library afterwards.
  before = calls("allreduce");
  MPI_Allreduce(host.data(), host_out.data(), n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  CHECK(calls("allreduce") == before + 1 && host_out[0] == sum, "host Allreduce after device");
  return finish_test("device");
}
