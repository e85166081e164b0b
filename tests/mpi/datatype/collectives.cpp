// Rooted and gathering collectives: Bcast, Gather(v), Scatter(v),
// Allgather(v), in every form, and in place. The v forms give each rank
// its own count and lay the blocks out in decreasing order.
#include "forms.h"

namespace fuzz {
namespace {

template <Form F>
void bcast(const Api& api, const Case& c, Outcome& out) {
  const int root = root_of(c);
  const MPI_Datatype type = c.rank == root ? c.stype : c.rtype;
  void* buf = out.region(type, c.count);
  MPI_Request req;
  if constexpr (F == Form::blocking) api.Bcast(buf, c.count, type, root, c.comm);
  if constexpr (F == Form::nonblocking) api.Ibcast(buf, c.count, type, root, c.comm, &req);
  FUZZ_MPI4(if constexpr (F == Form::persistent)
                api.Bcast_init(buf, c.count, type, root, c.comm, MPI_INFO_NULL, &req);
            if constexpr (F == Form::large) api.Bcast_c(buf, c.count, type, root, c.comm);)
  complete<F>(api, &req);
}

// Rank i's block of a v form: one more element on odd ranks.
template <class Count>
std::vector<Count> counts_of(const Case& c) {
  std::vector<Count> n(static_cast<size_t>(c.size));
  for (int i = 0; i < c.size; ++i) n[i] = c.count + i % 2;
  return n;
}

// Blocks in decreasing order: rank 0's last.
template <class Displ>
std::vector<Displ> reversed_displs(const Case& c) {
  std::vector<Displ> d(static_cast<size_t>(c.size));
  for (int i = 0; i < c.size; ++i) d[i] = (c.size - 1 - i) * (c.count + 1);
  return d;
}

template <class Displ>
std::vector<Displ> packed_displs(const Case& c) {
  std::vector<Displ> d(static_cast<size_t>(c.size));
  for (int i = 0; i < c.size; ++i) d[i] = i * c.count;
  return d;
}

// Gather (v: counts_of, reversed_displs); in place at the root.
template <Form F, bool v, bool in_place = false>
void gather(const Api& api, const Case& c, Outcome& out) {
  const int root = root_of(c);
  const auto counts = counts_of<CountOf<F>>(c);
  const auto displs = v ? reversed_displs<DisplOf<F>>(c) : packed_displs<DisplOf<F>>(c);
  const int mine = v ? static_cast<int>(counts[c.rank]) : c.count;
  const bool at_root_in_place = in_place && c.rank == root;
  const void* sbuf = at_root_in_place ? MPI_IN_PLACE : out.region(c.stype, mine);
  void* rbuf = c.rank == root ? out.region(c.rtype, c.count + 1, bytes_at(displs, c.rtype))
                              : nullptr;
  MPI_Request req;
  if constexpr (!v) {
    if constexpr (F == Form::blocking)
      api.Gather(sbuf, c.count, c.stype, rbuf, c.count, c.rtype, root, c.comm);
    if constexpr (F == Form::nonblocking)
      api.Igather(sbuf, c.count, c.stype, rbuf, c.count, c.rtype, root, c.comm, &req);
    FUZZ_MPI4(if constexpr (F == Form::persistent) api.Gather_init(
                  sbuf, c.count, c.stype, rbuf, c.count, c.rtype, root, c.comm, MPI_INFO_NULL, &req);
              if constexpr (F == Form::large)
                  api.Gather_c(sbuf, c.count, c.stype, rbuf, c.count, c.rtype, root, c.comm);)
  } else {
    const auto* n = counts.data();
    const auto* d = displs.data();
    if constexpr (F == Form::blocking)
      api.Gatherv(sbuf, mine, c.stype, rbuf, n, d, c.rtype, root, c.comm);
    if constexpr (F == Form::nonblocking)
      api.Igatherv(sbuf, mine, c.stype, rbuf, n, d, c.rtype, root, c.comm, &req);
    FUZZ_MPI4(if constexpr (F == Form::persistent) api.Gatherv_init(
                  sbuf, mine, c.stype, rbuf, n, d, c.rtype, root, c.comm, MPI_INFO_NULL, &req);
              if constexpr (F == Form::large)
                  api.Gatherv_c(sbuf, mine, c.stype, rbuf, n, d, c.rtype, root, c.comm);)
  }
  complete<F>(api, &req);
}

// Scatter (v: counts_of, reversed_displs); in place at the root.
template <Form F, bool v, bool in_place = false>
void scatter(const Api& api, const Case& c, Outcome& out) {
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
  // MPICH 4.0's own Scatter_init fails on 3 ranks and more ("Invalid
  // communicator" in its schedule): no oracle there.
  if (F == Form::persistent && !v && c.size > 2) return;
#endif
  const int root = root_of(c);
  const auto counts = counts_of<CountOf<F>>(c);
  const auto displs = v ? reversed_displs<DisplOf<F>>(c) : packed_displs<DisplOf<F>>(c);
  const int mine = v ? static_cast<int>(counts[c.rank]) : c.count;
  const void* sbuf = c.rank == root ? out.region(c.stype, c.count + 1, bytes_at(displs, c.stype))
                                    : nullptr;
  void* rbuf = in_place && c.rank == root ? MPI_IN_PLACE : out.region(c.rtype, mine);
  MPI_Request req;
  if constexpr (!v) {
    if constexpr (F == Form::blocking)
      api.Scatter(sbuf, c.count, c.stype, rbuf, c.count, c.rtype, root, c.comm);
    if constexpr (F == Form::nonblocking)
      api.Iscatter(sbuf, c.count, c.stype, rbuf, c.count, c.rtype, root, c.comm, &req);
    FUZZ_MPI4(if constexpr (F == Form::persistent) api.Scatter_init(
                  sbuf, c.count, c.stype, rbuf, c.count, c.rtype, root, c.comm, MPI_INFO_NULL,
                  &req);)
  } else {
    const auto* n = counts.data();
    const auto* d = displs.data();
    if constexpr (F == Form::blocking)
      api.Scatterv(sbuf, n, d, c.stype, rbuf, mine, c.rtype, root, c.comm);
    if constexpr (F == Form::nonblocking)
      api.Iscatterv(sbuf, n, d, c.stype, rbuf, mine, c.rtype, root, c.comm, &req);
    FUZZ_MPI4(if constexpr (F == Form::persistent) api.Scatterv_init(
                  sbuf, n, d, c.stype, rbuf, mine, c.rtype, root, c.comm, MPI_INFO_NULL, &req);
              if constexpr (F == Form::large)
                  api.Scatterv_c(sbuf, n, d, c.stype, rbuf, mine, c.rtype, root, c.comm);)
  }
  complete<F>(api, &req);
}

// Allgather (v: counts_of, reversed_displs); in place: each rank's block
// already in the output.
template <Form F, bool v, bool in_place = false>
void allgather(const Api& api, const Case& c, Outcome& out) {
  const auto counts = counts_of<CountOf<F>>(c);
  const auto displs = v ? reversed_displs<DisplOf<F>>(c) : packed_displs<DisplOf<F>>(c);
  const int mine = v ? static_cast<int>(counts[c.rank]) : c.count;
  const void* sbuf = in_place ? MPI_IN_PLACE : out.region(c.stype, mine);
  void* rbuf = out.region(c.rtype, c.count + 1, bytes_at(displs, c.rtype));
  MPI_Request req;
  if constexpr (!v) {
    if constexpr (F == Form::blocking)
      api.Allgather(sbuf, c.count, c.stype, rbuf, c.count, c.rtype, c.comm);
    if constexpr (F == Form::nonblocking)
      api.Iallgather(sbuf, c.count, c.stype, rbuf, c.count, c.rtype, c.comm, &req);
    FUZZ_MPI4(if constexpr (F == Form::persistent) api.Allgather_init(
                  sbuf, c.count, c.stype, rbuf, c.count, c.rtype, c.comm, MPI_INFO_NULL, &req);
              if constexpr (F == Form::large)
                  api.Allgather_c(sbuf, c.count, c.stype, rbuf, c.count, c.rtype, c.comm);)
  } else {
    const auto* n = counts.data();
    const auto* d = displs.data();
    if constexpr (F == Form::blocking)
      api.Allgatherv(sbuf, mine, c.stype, rbuf, n, d, c.rtype, c.comm);
    if constexpr (F == Form::nonblocking)
      api.Iallgatherv(sbuf, mine, c.stype, rbuf, n, d, c.rtype, c.comm, &req);
    FUZZ_MPI4(if constexpr (F == Form::persistent) api.Allgatherv_init(
                  sbuf, mine, c.stype, rbuf, n, d, c.rtype, c.comm, MPI_INFO_NULL, &req);
              if constexpr (F == Form::large)
                  api.Allgatherv_c(sbuf, mine, c.stype, rbuf, n, d, c.rtype, c.comm);)
  }
  complete<F>(api, &req);
}

}  // namespace

void add_collective_families(std::vector<Family>& f) {
  f.push_back({"Bcast", bcast<Form::blocking>, false});
  f.push_back({"Ibcast", bcast<Form::nonblocking>, false});
  f.push_back({"Gather", gather<Form::blocking, false>, false});
  f.push_back({"Gather in place", gather<Form::blocking, false, true>, false});
  f.push_back({"Igather", gather<Form::nonblocking, false>, false});
  f.push_back({"Gatherv", gather<Form::blocking, true>, false});
  f.push_back({"Gatherv in place", gather<Form::blocking, true, true>, false});
  f.push_back({"Igatherv", gather<Form::nonblocking, true>, false});
  f.push_back({"Scatter", scatter<Form::blocking, false>, false});
  f.push_back({"Scatter in place", scatter<Form::blocking, false, true>, false});
  f.push_back({"Iscatter", scatter<Form::nonblocking, false>, false});
  f.push_back({"Scatterv", scatter<Form::blocking, true>, false});
  f.push_back({"Iscatterv", scatter<Form::nonblocking, true>, false});
  f.push_back({"Allgather", allgather<Form::blocking, false>, false});
  f.push_back({"Allgather in place", allgather<Form::blocking, false, true>, false});
  f.push_back({"Iallgather", allgather<Form::nonblocking, false>, false});
  f.push_back({"Allgatherv", allgather<Form::blocking, true>, false});
  f.push_back({"Allgatherv in place", allgather<Form::blocking, true, true>, false});
  f.push_back({"Iallgatherv", allgather<Form::nonblocking, true>, false});
#if FUZZ_HAS_MPI4
  f.push_back({"Bcast_init", bcast<Form::persistent>, false});
  f.push_back({"Bcast_c", bcast<Form::large>, false});
  f.push_back({"Gather_init", gather<Form::persistent, false>, false});
  f.push_back({"Gather_c", gather<Form::large, false>, false});
  f.push_back({"Gatherv_init", gather<Form::persistent, true>, false});
  f.push_back({"Gatherv_c", gather<Form::large, true>, false});
  f.push_back({"Scatter_init", scatter<Form::persistent, false>, false});
  f.push_back({"Scatterv_init", scatter<Form::persistent, true>, false});
  f.push_back({"Scatterv_c", scatter<Form::large, true>, false});
  // MPICH 4.0's own Allgather_init fails its datatype engine's
  // assertions on derived datatypes: no oracle there.
#if !defined(MPICH_NUMVERSION) || MPICH_NUMVERSION >= 40100000
  f.push_back({"Allgather_init", allgather<Form::persistent, false>, false});
#endif
  f.push_back({"Allgather_c", allgather<Form::large, false>, false});
  f.push_back({"Allgatherv_init", allgather<Form::persistent, true>, false});
  f.push_back({"Allgatherv_c", allgather<Form::large, true>, false});
#endif
}

}  // namespace fuzz
