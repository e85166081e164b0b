// All-to-all exchanges: Alltoall, Alltoallv (each pair its own count,
// blocks in decreasing order) and Alltoallw (per-peer types, byte
// displacements), in every form, Alltoall(v) also in place.
#include <algorithm>

#include "forms.h"

namespace fuzz {
namespace {

// The count between ranks i and j, the same both ways.
int pair_count(const Case& c, int i, int j) { return c.count + (i + j) % 2; }

template <Form F, bool in_place = false>
void alltoall(const Api& api, const Case& c, Outcome& out) {
  std::vector<MPI_Aint> blocks;
  for (int j = 0; j < c.size; ++j) blocks.push_back(j * c.count * extent(c.rtype));
  const void* sbuf = in_place ? MPI_IN_PLACE : out.region(c.stype, c.count * c.size);
  void* rbuf = out.region(c.rtype, c.count, blocks);
  MPI_Request req;
  if constexpr (F == Form::blocking)
    api.Alltoall(sbuf, c.count, c.stype, rbuf, c.count, c.rtype, c.comm);
  if constexpr (F == Form::nonblocking)
    api.Ialltoall(sbuf, c.count, c.stype, rbuf, c.count, c.rtype, c.comm, &req);
  FUZZ_MPI4(if constexpr (F == Form::persistent) api.Alltoall_init(
                sbuf, c.count, c.stype, rbuf, c.count, c.rtype, c.comm, MPI_INFO_NULL, &req);
            if constexpr (F == Form::large)
                api.Alltoall_c(sbuf, c.count, c.stype, rbuf, c.count, c.rtype, c.comm);)
  complete<F>(api, &req);
}

template <Form F, bool in_place = false>
void alltoallv(const Api& api, const Case& c, Outcome& out) {
  std::vector<CountOf<F>> counts(static_cast<size_t>(c.size));
  std::vector<DisplOf<F>> displs(counts.size());
  for (int j = 0; j < c.size; ++j) {
    counts[j] = pair_count(c, c.rank, j);
    displs[j] = (c.size - 1 - j) * (c.count + 1);  // decreasing
  }
  const void* sbuf =
      in_place ? MPI_IN_PLACE : out.region(c.stype, c.count + 1, bytes_at(displs, c.stype));
  void* rbuf = out.region(c.rtype, c.count + 1, bytes_at(displs, c.rtype));
  const auto* n = counts.data();
  const auto* d = displs.data();
  MPI_Request req;
  if constexpr (F == Form::blocking)
    api.Alltoallv(sbuf, n, d, c.stype, rbuf, n, d, c.rtype, c.comm);
  if constexpr (F == Form::nonblocking)
    api.Ialltoallv(sbuf, n, d, c.stype, rbuf, n, d, c.rtype, c.comm, &req);
  FUZZ_MPI4(if constexpr (F == Form::persistent) api.Alltoallv_init(
                sbuf, n, d, c.stype, rbuf, n, d, c.rtype, c.comm, MPI_INFO_NULL, &req);
            if constexpr (F == Form::large)
                api.Alltoallv_c(sbuf, n, d, c.stype, rbuf, n, d, c.rtype, c.comm);)
  complete<F>(api, &req);
}

// Alltoallw: to and from even ranks the case's types, to and from odd
// ones the dense type of the same signature (a receive type need only
// match the sender's signature).
template <Form F>
void alltoallw(const Api& api, const Case& c, Outcome& out) {
  const size_t n = static_cast<size_t>(c.size);
  std::vector<CountOf<F>> counts(n);
  std::vector<DisplOf<F>> sdispls(n), rdispls(n);
  std::vector<MPI_Datatype> stypes(n), rtypes(n);
  MPI_Aint slot = 0;  // bytes per block, any of the types
  for (MPI_Datatype t : {c.stype, c.rtype, c.gen->flat}) {
    MPI_Aint lb, ext, tlb, text;
    PMPI_Type_get_extent(t, &lb, &ext);
    PMPI_Type_get_true_extent(t, &tlb, &text);
    int size = 0;
    PMPI_Type_size(t, &size);
    if (size == 0) tlb = text = 0;  // an empty type's true bounds are no offsets (Open MPI)
    slot = std::max(slot, (c.count + 1) * ext + text + 2 * (tlb < 0 ? -tlb : tlb));
  }
  std::vector<Outcome::Block> sblocks, rblocks;
  for (int j = 0; j < c.size; ++j) {
    counts[j] = pair_count(c, c.rank, j);
    stypes[j] = j % 2 ? c.gen->flat : c.stype;
    rtypes[j] = j % 2 ? c.gen->flat : c.rtype;
    sdispls[j] = static_cast<DisplOf<F>>((c.size - 1 - j) * slot);
    rdispls[j] = static_cast<DisplOf<F>>(j * slot);
    sblocks.push_back({stypes[j], static_cast<MPI_Aint>(counts[j]), sdispls[j]});
    rblocks.push_back({rtypes[j], static_cast<MPI_Aint>(counts[j]), rdispls[j]});
  }
  const void* sbuf = out.region(sblocks);
  void* rbuf = out.region(rblocks);
  const auto* m = counts.data();
  const auto* sd = sdispls.data();
  const auto* rd = rdispls.data();
  MPI_Request req;
  if constexpr (F == Form::blocking)
    api.Alltoallw(sbuf, m, sd, stypes.data(), rbuf, m, rd, rtypes.data(), c.comm);
  if constexpr (F == Form::nonblocking)
    api.Ialltoallw(sbuf, m, sd, stypes.data(), rbuf, m, rd, rtypes.data(), c.comm, &req);
  FUZZ_MPI4(if constexpr (F == Form::persistent)
                api.Alltoallw_init(sbuf, m, sd, stypes.data(), rbuf, m, rd, rtypes.data(), c.comm,
                                   MPI_INFO_NULL, &req);
            if constexpr (F == Form::large) api.Alltoallw_c(sbuf, m, sd, stypes.data(), rbuf, m,
                                                            rd, rtypes.data(), c.comm);)
  complete<F>(api, &req);
}

}  // namespace

void add_exchange_families(std::vector<Family>& f) {
  f.push_back({"Alltoall", alltoall<Form::blocking>, false});
  f.push_back({"Alltoall in place", alltoall<Form::blocking, true>, false});
  f.push_back({"Ialltoall", alltoall<Form::nonblocking>, false});
  f.push_back({"Alltoallv", alltoallv<Form::blocking>, false});
  f.push_back({"Alltoallv in place", alltoallv<Form::blocking, true>, false});
  f.push_back({"Ialltoallv", alltoallv<Form::nonblocking>, false});
  f.push_back({"Alltoallw", alltoallw<Form::blocking>, false});
  f.push_back({"Ialltoallw", alltoallw<Form::nonblocking>, false});
#if FUZZ_HAS_MPI4
  f.push_back({"Alltoall_init", alltoall<Form::persistent>, false});
  f.push_back({"Alltoall_c", alltoall<Form::large>, false});
  f.push_back({"Alltoallv_init", alltoallv<Form::persistent>, false});
  f.push_back({"Alltoallv_c", alltoallv<Form::large>, false});
  f.push_back({"Alltoallw_init", alltoallw<Form::persistent>, false});
  f.push_back({"Alltoallw_c", alltoallw<Form::large>, false});
#endif
}

}  // namespace fuzz
