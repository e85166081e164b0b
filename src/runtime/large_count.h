// The one MPI-4 large-count strategy for a scalar count: the generated _c
// entries (boundary/entry.h) and the library's own sends of a copy over
// INT_MAX bytes (p2p, Sendrecv_replace) go through it.
#pragma once

#include <mpi.h>

#include <climits>

namespace adacomp {

// Runs f(int count, MPI_Datatype type) for `count` elements of `type`. A
// count that fits an int goes as it is (a negative one as -1: MPI's error
// either way); a larger one as one element of a contiguous datatype of
// `count` elements, freed when f returns. That is safe for a request f
// leaves in flight: MPI's own request keeps its reference (a freed datatype
// leaves communication using it unaffected, MPI 4.0 section 5.1.3), and the
// library's requests keep a duplicate of any derived datatype they read at
// MPI_Start or completion (p2p UserMessage::set).
#if MPI_VERSION >= 4
template <class F>
auto with_count(MPI_Count count, MPI_Datatype type, F f) -> decltype(f(0, type)) {
  if (count <= INT_MAX) return f(count < 0 ? -1 : static_cast<int>(count), type);
  // No datatype to make one of: the implementation's argument check reports it.
  if (type == MPI_DATATYPE_NULL) return f(1, type);
  MPI_Datatype whole;
  PMPI_Type_contiguous_c(count, type, &whole);
  PMPI_Type_commit(&whole);
  auto result = f(1, whole);
  PMPI_Type_free(&whole);
  return result;
}
#endif

}  // namespace adacomp
