// Reductions on types of one basic type (MPI allows a predefined op on a
// derived datatype whose type map holds one predefined type): Reduce,
// Allreduce, Reduce_scatter(_block), Scan, Exscan, in every form, and in
// place. Integer sums and bitwise ops are exact in any order, so the
// library's result must equal plain MPI's byte for byte.
#include "forms.h"

namespace fuzz {
namespace {

template <Form F, bool in_place = false>
void reduce(const Api& api, const Case& c, Outcome& out) {
  const MPI_Datatype t = c.reduce_type;
#if defined(MPICH_NUMVERSION) && MPICH_NUMVERSION < 40100000
  // MPICH 4.0's own Reduce in place at a root other than 0 crashes from
  // some thousands of elements on: no oracle there.
  const int root = in_place ? 0 : root_of(c);
#else
  const int root = root_of(c);
#endif
  const bool own = in_place && c.rank == root;
  void* rbuf = c.rank == root ? out.region(t, c.count) : nullptr;
  const void* sbuf = own ? MPI_IN_PLACE : out.region(t, c.count);
  MPI_Request req;
  if constexpr (F == Form::blocking) api.Reduce(sbuf, rbuf, c.count, t, c.op, root, c.comm);
  if constexpr (F == Form::nonblocking)
    api.Ireduce(sbuf, rbuf, c.count, t, c.op, root, c.comm, &req);
  FUZZ_MPI4(if constexpr (F == Form::persistent)
                api.Reduce_init(sbuf, rbuf, c.count, t, c.op, root, c.comm, MPI_INFO_NULL, &req);
            if constexpr (F == Form::large) api.Reduce_c(sbuf, rbuf, c.count, t, c.op, root, c.comm);)
  complete<F>(api, &req);
}

template <Form F, bool in_place = false>
void allreduce(const Api& api, const Case& c, Outcome& out) {
  const MPI_Datatype t = c.reduce_type;
  void* rbuf = out.region(t, c.count);
  const void* sbuf = in_place ? MPI_IN_PLACE : out.region(t, c.count);
  MPI_Request req;
  if constexpr (F == Form::blocking) api.Allreduce(sbuf, rbuf, c.count, t, c.op, c.comm);
  if constexpr (F == Form::nonblocking)
    api.Iallreduce(sbuf, rbuf, c.count, t, c.op, c.comm, &req);
  FUZZ_MPI4(if constexpr (F == Form::persistent)
                api.Allreduce_init(sbuf, rbuf, c.count, t, c.op, c.comm, MPI_INFO_NULL, &req);
            if constexpr (F == Form::large) api.Allreduce_c(sbuf, rbuf, c.count, t, c.op, c.comm);)
  complete<F>(api, &req);
}

template <Form F>
void reduce_scatter_block(const Api& api, const Case& c, Outcome& out) {
  const MPI_Datatype t = c.reduce_type;
  const void* sbuf = out.region(t, c.count * c.size);
  void* rbuf = out.region(t, c.count);
  MPI_Request req;
  if constexpr (F == Form::blocking)
    api.Reduce_scatter_block(sbuf, rbuf, c.count, t, c.op, c.comm);
  if constexpr (F == Form::nonblocking)
    api.Ireduce_scatter_block(sbuf, rbuf, c.count, t, c.op, c.comm, &req);
  FUZZ_MPI4(if constexpr (F == Form::persistent) api.Reduce_scatter_block_init(
                sbuf, rbuf, c.count, t, c.op, c.comm, MPI_INFO_NULL, &req);)
  complete<F>(api, &req);
}

// Reduce_scatter: one more element for odd ranks.
template <Form F>
void reduce_scatter(const Api& api, const Case& c, Outcome& out) {
  const MPI_Datatype t = c.reduce_type;
  std::vector<CountOf<F>> counts(static_cast<size_t>(c.size));
  MPI_Aint total = 0;
  for (int i = 0; i < c.size; ++i) total += counts[i] = c.count + i % 2;
  const void* sbuf = out.region(t, total);
  void* rbuf = out.region(t, counts[c.rank]);
  MPI_Request req;
  if constexpr (F == Form::blocking)
    api.Reduce_scatter(sbuf, rbuf, counts.data(), t, c.op, c.comm);
  if constexpr (F == Form::nonblocking)
    api.Ireduce_scatter(sbuf, rbuf, counts.data(), t, c.op, c.comm, &req);
  FUZZ_MPI4(if constexpr (F == Form::large)
                api.Reduce_scatter_c(sbuf, rbuf, counts.data(), t, c.op, c.comm);)
  complete<F>(api, &req);
}

template <Form F, bool exclusive>
void scan(const Api& api, const Case& c, Outcome& out) {
  const MPI_Datatype t = c.reduce_type;
  const void* sbuf = out.region(t, c.count);
  void* rbuf = out.region(t, c.count);
  MPI_Request req;
  auto blocking = exclusive ? api.Exscan : api.Scan;
  auto nonblocking = exclusive ? api.Iexscan : api.Iscan;
  if constexpr (F == Form::blocking) blocking(sbuf, rbuf, c.count, t, c.op, c.comm);
  if constexpr (F == Form::nonblocking) nonblocking(sbuf, rbuf, c.count, t, c.op, c.comm, &req);
  FUZZ_MPI4(if constexpr (F == Form::persistent)
                api.Scan_init(sbuf, rbuf, c.count, t, c.op, c.comm, MPI_INFO_NULL, &req);)
  complete<F>(api, &req);
}

}  // namespace

void add_reduction_families(std::vector<Family>& f) {
  f.push_back({"Reduce", reduce<Form::blocking>, true});
  f.push_back({"Reduce in place", reduce<Form::blocking, true>, true});
  f.push_back({"Ireduce", reduce<Form::nonblocking>, true});
  f.push_back({"Allreduce", allreduce<Form::blocking>, true});
  f.push_back({"Allreduce in place", allreduce<Form::blocking, true>, true});
  f.push_back({"Iallreduce", allreduce<Form::nonblocking>, true});
  f.push_back({"Reduce_scatter_block", reduce_scatter_block<Form::blocking>, true});
  f.push_back({"Ireduce_scatter_block", reduce_scatter_block<Form::nonblocking>, true});
  f.push_back({"Reduce_scatter", reduce_scatter<Form::blocking>, true});
  f.push_back({"Ireduce_scatter", reduce_scatter<Form::nonblocking>, true});
  f.push_back({"Scan", scan<Form::blocking, false>, true});
  f.push_back({"Iscan", scan<Form::nonblocking, false>, true});
  f.push_back({"Exscan", scan<Form::blocking, true>, true});
  f.push_back({"Iexscan", scan<Form::nonblocking, true>, true});
#if FUZZ_HAS_MPI4
  f.push_back({"Reduce_init", reduce<Form::persistent>, true});
  f.push_back({"Reduce_c", reduce<Form::large>, true});
  f.push_back({"Allreduce_init", allreduce<Form::persistent>, true});
  f.push_back({"Allreduce_c", allreduce<Form::large>, true});
  f.push_back({"Reduce_scatter_block_init", reduce_scatter_block<Form::persistent>, true});
  f.push_back({"Reduce_scatter_c", reduce_scatter<Form::large>, true});
  f.push_back({"Scan_init", scan<Form::persistent, false>, true});
#endif
}

}  // namespace fuzz
