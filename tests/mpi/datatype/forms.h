// A collective in its four forms: blocking, nonblocking (then waited),
// persistent (MPI-4 *_init: started twice, then freed) and large-count
// (MPI-4 _c). A family is written once as a template over the form.
#pragma once

#include <type_traits>
#include <vector>

#include "fuzz.h"

namespace fuzz {

enum class Form { blocking, nonblocking, persistent, large };

#if FUZZ_HAS_MPI4
#define FUZZ_MPI4(...) __VA_ARGS__
#else
#define FUZZ_MPI4(...)
#endif

// The count and displacement types of a form's count arrays.
template <Form F>
using CountOf = std::conditional_t<F == Form::large, MPI_Count, int>;
template <Form F>
using DisplOf = std::conditional_t<F == Form::large, MPI_Aint, int>;

// Completes what the form started: a nonblocking request is waited; a
// persistent one is started and waited twice, then freed.
template <Form F>
void complete(const Api& api, MPI_Request* req) {
  if constexpr (F == Form::nonblocking) api.Wait(req, MPI_STATUS_IGNORE);
  if constexpr (F == Form::persistent) {
    for (int round = 0; round < 2; ++round) {
      api.Start(req);
      api.Wait(req, MPI_STATUS_IGNORE);
    }
    api.Request_free(req);
  }
}

// Byte displacements of `displs` (in extents of `type`).
template <class D>
std::vector<MPI_Aint> bytes_at(const std::vector<D>& displs, MPI_Datatype type) {
  MPI_Aint lb, extent;
  PMPI_Type_get_extent(type, &lb, &extent);
  std::vector<MPI_Aint> at;
  for (D d : displs) at.push_back(static_cast<MPI_Aint>(d) * extent);
  return at;
}

inline MPI_Aint extent(MPI_Datatype t) {
  MPI_Aint lb, e;
  PMPI_Type_get_extent(t, &lb, &e);
  return e;
}

// The root of a rooted collective: it moves with the case.
inline int root_of(const Case& c) { return static_cast<int>(c.seed % static_cast<uint64_t>(c.size)); }

}  // namespace fuzz
