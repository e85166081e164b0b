// adacomp-scale: one collective, one size, one tier, timed under SimGrid SMPI
// (simulated time) and checked against plain MPI; one CSV line from rank 0.
//
//   smpirun ... adacomp-scale --op allreduce --bytes 8M --tier lossless [--iters 3]
//
// Tiers as in adacomp-bench: plain (PMPI, SMPI's own collective selector),
// default (the configured policy), raw, lossless, lossy, pipelined.
// ADACOMP_HIERARCHY picks flat or node-aware algorithms. Columns: op, bytes
// per rank, ranks, nodes, tier, hierarchy, median seconds (max over ranks),
// max error vs PMPI, bound, ok, coded bytes sent per call (max and mean over
// ranks), payload bytes coded per call (max over ranks). Exits 1 if the
// result is wrong.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "adacomp.h"
#include "harness/harness.h"

using namespace harness;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::string op = "allreduce", tier = "lossless", bytes_arg = "1M", data_file;
  int iters = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--op")
      op = v;
    else if (a == "--bytes")
      bytes_arg = v;
    else if (a == "--tier")
      tier = v;
    else if (a == "--iters")
      iters = std::atoi(v.c_str());
    else if (a == "--data")
      data_file = v;
    else {
      if (rank == 0) std::fprintf(stderr, "adacomp-scale: unknown option %s\n", a.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  Coll c;
  size_t bytes = 0;
  if (!parse_coll(op, &c) || !parse_size(bytes_arg, &bytes) || iters < 1) {
    if (rank == 0) std::fprintf(stderr, "adacomp-scale: bad --op, --bytes or --iters\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  // Per-rank doubles, a multiple of the rank count for the block collectives.
  size_t n = bytes / sizeof(double);
  n -= n % size;
  if (n == 0) n = size;
  const std::vector<double> data = sample_field(n, rank, data_file);
  const std::vector<int> nodes = node_of_ranks(MPI_COMM_WORLD);
  const double bound = tier == "plain" ? 0 : configured_bound(data, MPI_COMM_WORLD);

  adacomp_op_stats before{}, after{};
  const char* stats_op = op == "reduce_scatter" ? "reduce_scatter_block" : op.c_str();
  adacomp_get_stats(stats_op, &before);
  const Sample s = measure(c, data, tier.c_str(), iters, bound, MPI_COMM_WORLD);
  adacomp_get_stats(stats_op, &after);

  const double calls = double(after.compressed_calls - before.compressed_calls);
  // SCALE_PHASES=1: each rank's real coding time per compressed call
  // (the library's own clock, wall time), to set against the simulated time
  // (docs/scale.md, "Validation").
  if (std::getenv("SCALE_PHASES") && calls > 0)
    std::fprintf(stderr, "phases,rank %d,encode s %.6f,decode s %.6f per call\n", rank,
                 (after.seconds_compress - before.seconds_compress) / calls,
                 (after.seconds_decompress - before.seconds_decompress) / calls);
  const double wire = calls > 0 ? (after.bytes_wire - before.bytes_wire) / calls : 0;
  const double in = calls > 0 ? (after.bytes_in - before.bytes_in) / calls : 0;
  double wire_max = 0, wire_sum = 0, in_max = 0;
  PMPI_Reduce(&wire, &wire_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  PMPI_Reduce(&wire, &wire_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  PMPI_Reduce(&in, &in_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    const char* h = std::getenv("ADACOMP_HIERARCHY");
    std::printf("%s,%zu,%d,%d,%s,%s,%.9g,%.3g,%.3g,%d,%.0f,%.0f,%.0f\n", op.c_str(),
                n * sizeof(double), size, nodes.back() + 1, tier.c_str(), h ? h : "auto",
                s.median_s, s.max_err, bound, s.ok ? 1 : 0, wire_max, wire_sum / size, in_max);
  }
  MPI_Finalize();
  return s.ok ? 0 : 1;
}
