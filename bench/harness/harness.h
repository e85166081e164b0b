// Shared by adacomp-calibrate and adacomp-bench: sample data, and timing of
// one collective under one AdaComp tier with its result checked against
// plain MPI in the same run.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace harness {

// The collectives, plus a ring exchange (each rank sends to rank+1 and
// receives from rank-1 with MPI_Sendrecv); counts are per rank (per block
// for allgather/alltoall/reduce_scatter).
enum class Coll { allreduce, bcast, reduce, allgather, alltoall, reduce_scatter, sendrecv };
const char* coll_name(Coll c);
bool parse_coll(const std::string& s, Coll* out);

// The built-in sample fields, both smooth and different on every rank:
// heat2d, a few explicit diffusion steps of a 2-D plate (values 290-365);
// heat3d, a 3-D temperature field (values about 20-100) of hot spots
// diffusing into a cooler medium, as a simulation's field looks part-way.
enum class Field { heat2d, heat3d };
bool parse_field(const std::string& s, Field* out);

// n values of T (double or float) of the field; or, with a file of raw
// little-endian values of T, that file repeated to length and offset by the
// rank.
template <typename T = double>
std::vector<T> sample_field(size_t n, int rank, const std::string& file,
                            Field field = Field::heat2d);

// The user's error bound for these inputs: ADACOMP_ERROR_BOUND, or
// ADACOMP_REL_ERROR_BOUND times the value range over all ranks of comm.
// 0 when no bound is set (every result must then be lossless).
template <typename T>
double configured_bound(const std::vector<T>& data, MPI_Comm comm);

struct Sample {
  double median_s = 0;  // median over iterations, max over ranks
  double max_err = 0;   // vs plain MPI's result (max over ranks)
  bool ok = false;      // error within what the tier allows
};

// Times `iters` calls (after warm-up) of collective c on `data` (MPI_DOUBLE
// or MPI_FLOAT) with AdaComp's tier override set to `tier` ("raw",
// "lossless", "lossy", "pipelined", "adaptive", "adaptive-pipelined"), or
// "default" (no override: the configured policy, 5 warm-up calls so that the
// adaptive model's first exploration is behind it), or "plain" (PMPI
// directly: the library is not involved at all), and checks the last result
// against PMPI's: data moved bit-exact, sums within summation-order rounding
// of T, or within `bound`, the user's bound (0: lossless expected); NaN and
// Inf only where PMPI has them.
template <typename T>
Sample measure(Coll c, const std::vector<T>& data, const char* tier, int iters, double bound,
               MPI_Comm comm);
// The same for several modes at once, taking turns call by call (so that
// machine noise weighs on all alike); one Sample per mode, in order.
template <typename T>
std::vector<Sample> measure_modes(Coll c, const std::vector<T>& data,
                                  const std::vector<std::string>& modes, int iters, double bound,
                                  MPI_Comm comm);

// Iterations so that one measurement takes about `budget_s` seconds at the
// expected speed (estimated from one raw call), between lo and hi.
int iterations_for(double one_call_s, double budget_s, int lo, int hi);

// Node of every rank of comm (MPI's shared-memory split), numbered 0.. in
// order of each node's lowest rank. Collective.
std::vector<int> node_of_ranks(MPI_Comm comm);

// "1K" → 1024 etc.
bool parse_size(const std::string& s, size_t* out);
std::string size_label(size_t bytes);

}  // namespace harness
