// Where a datatype's bytes lie, proven from its constructors: whether its
// type map is one run of bytes in increasing address order, and the one
// basic datatype it is made of. A datatype whose size, extent and true
// extent agree is dense but not necessarily in memory order
// (MPI_Type_vector(n, 1, -1, MPI_INT) lists its elements backwards): copying
// it as one run of bytes reverses the message, so only a proof lets the
// library skip MPI_Pack.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include <mpi.h>

namespace adacomp {

// A type map's bytes: [first, first + bytes) relative to the buffer
// address, every byte once, in the order the type map lists them.
struct ByteRun {
  MPI_Aint first = 0;
  MPI_Aint bytes = 0;
};

// The run one element of `t` occupies, or nothing where its type map is
// not in increasing address order without gaps, or cannot be proven so: a
// darray, a type built with a large-count (_c) constructor other than
// MPI_Type_contiguous_c, or an MPI without the envelope queries (SMPI).
// Those are packed, which is always right.
std::optional<ByteRun> ordered_run(MPI_Datatype t);

// A derived datatype's constructor and arguments (MPI_Type_get_envelope and
// MPI_Type_get_contents); the derived datatypes it names are freed with it.
// `ok` is false for a predefined datatype and where MPI cannot tell.
struct TypeContents {
  explicit TypeContents(MPI_Datatype t);
  ~TypeContents();
  TypeContents(const TypeContents&) = delete;
  TypeContents& operator=(const TypeContents&) = delete;

  bool ok = false;
  int combiner = MPI_COMBINER_NAMED;
  std::vector<int> ints;
  std::vector<MPI_Aint> addrs;
  std::vector<MPI_Count> large_counts;  // a type built with a _c constructor
  std::vector<MPI_Datatype> types;
};

}  // namespace adacomp
