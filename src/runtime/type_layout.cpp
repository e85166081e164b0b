#include "runtime/type_layout.h"

#include "runtime/datatype.h"

namespace adacomp {

TypeContents::TypeContents(MPI_Datatype t) {
#ifdef ADACOMP_FOR_SMPI
  (void)t;  // SimGrid SMPI 3.32 answers the envelope of no derived datatype
#else
  if (t == MPI_DATATYPE_NULL || is_named(t)) return;
#if MPI_VERSION >= 4
  // The large-count query: MPICH fails the classic one for a type built
  // with a _c constructor, which keeps its counts in large_counts.
  MPI_Count ni = 0, na = 0, nc = 0, nt = 0;
  if (PMPI_Type_get_envelope_c(t, &ni, &na, &nc, &nt, &combiner) != MPI_SUCCESS ||
      combiner == MPI_COMBINER_NAMED)
    return;
  ints.resize(static_cast<size_t>(ni));
  addrs.resize(static_cast<size_t>(na));
  large_counts.resize(static_cast<size_t>(nc));
  types.resize(static_cast<size_t>(nt));
  if (PMPI_Type_get_contents_c(t, ni, na, nc, nt, ints.data(), addrs.data(), large_counts.data(),
                               types.data()) != MPI_SUCCESS) {
    types.clear();  // nothing was returned that needs freeing
    return;
  }
#else
  int ni = 0, na = 0, nt = 0;
  if (PMPI_Type_get_envelope(t, &ni, &na, &nt, &combiner) != MPI_SUCCESS ||
      combiner == MPI_COMBINER_NAMED)
    return;
  ints.resize(static_cast<size_t>(ni));
  addrs.resize(static_cast<size_t>(na));
  types.resize(static_cast<size_t>(nt));
  if (PMPI_Type_get_contents(t, ni, na, nt, ints.data(), addrs.data(), types.data()) !=
      MPI_SUCCESS) {
    types.clear();  // nothing was returned that needs freeing
    return;
  }
#endif
  ok = true;
#endif
}

TypeContents::~TypeContents() {
  for (MPI_Datatype& inner : types)
    if (inner != MPI_DATATYPE_NULL && !is_named(inner)) PMPI_Type_free(&inner);
}

namespace {

// A basic type's map is in order (MPI_DOUBLE_INT: the double, then the
// int); dense where its bytes fill its true extent.
std::optional<ByteRun> basic_run(MPI_Datatype t) {
  MPI_Count size = 0;
  MPI_Aint true_lb = 0, true_extent = 0;
  PMPI_Type_size_x(t, &size);
  PMPI_Type_get_true_extent(t, &true_lb, &true_extent);
  if (true_extent != size) return std::nullopt;
  return ByteRun{true_lb, static_cast<MPI_Aint>(size)};
}

MPI_Aint extent_of(MPI_Datatype t) {
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(t, &lb, &extent);
  return extent;
}

// Runs of bytes joined in the order a type map lists them: the whole stays
// one run only while each next run starts where the last one ended.
class RunChain {
 public:
  // `count` copies of `element`, `step` bytes apart, from `displacement`.
  void add(std::optional<ByteRun> element, MPI_Aint count, MPI_Aint step, MPI_Aint displacement) {
    if (count <= 0 || !ordered_) return;
    if (!element) {
      ordered_ = false;
      return;
    }
    if (element->bytes == 0) return;  // no byte of the type map
    if (count > 1 && step != element->bytes) {
      ordered_ = false;
      return;
    }
    const MPI_Aint first = displacement + element->first;
    if (started_ && first != run_.first + run_.bytes) {
      ordered_ = false;
      return;
    }
    if (!started_) run_.first = first;
    started_ = true;
    run_.bytes += count * element->bytes;
  }
  std::optional<ByteRun> result() const {
    if (!ordered_) return std::nullopt;
    return run_;  // no byte at all: an empty run
  }

 private:
  ByteRun run_;
  bool started_ = false;
  bool ordered_ = true;
};

// A subarray's elements lie in increasing address order in either storage
// order; they form one run when, from the fastest-varying dimension on, the
// dimensions are whole up to one that is cut, and every slower one is one
// deep.
std::optional<ByteRun> subarray_run(const TypeContents& c, std::optional<ByteRun> element,
                                    MPI_Aint extent) {
  const int ndims = c.ints[0];
  const int* sizes = &c.ints[1];
  const int* subsizes = &c.ints[1 + ndims];
  const int* starts = &c.ints[1 + 2 * ndims];
  const bool fortran = c.ints[1 + 3 * ndims] == MPI_ORDER_FORTRAN;
  MPI_Aint offset = 0, stride = 1, elements = 1;
  bool cut = false;
  for (int k = 0; k < ndims; ++k) {
    const int d = fortran ? k : ndims - 1 - k;  // fastest-varying first
    if (subsizes[d] == 0) return ByteRun{};
    if (cut && subsizes[d] != 1) return std::nullopt;
    if (subsizes[d] != sizes[d]) cut = true;
    offset += starts[d] * stride;
    stride *= sizes[d];
    elements *= subsizes[d];
  }
  RunChain chain;
  chain.add(element, elements, extent, offset * extent);
  return chain.result();
}

}  // namespace

std::optional<ByteRun> ordered_run(MPI_Datatype t) {
  if (t == MPI_DATATYPE_NULL) return std::nullopt;
  if (is_named(t)) return basic_run(t);
  const TypeContents c(t);
  if (!c.ok) return std::nullopt;
  if (!c.large_counts.empty()) {
    // Of the large-count constructors only MPI_Type_contiguous_c (count in
    // large_counts[0]) is read: the one the library builds for a count
    // over INT_MAX (runtime/large_count.h).
    if (c.combiner != MPI_COMBINER_CONTIGUOUS) return std::nullopt;
    RunChain chain;
    chain.add(ordered_run(c.types[0]), c.large_counts[0], extent_of(c.types[0]), 0);
    return chain.result();
  }
  const auto& n = c.ints;
  const auto& a = c.addrs;
  RunChain chain;
  switch (c.combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:  // a new extent; the type map is the old one
      return ordered_run(c.types[0]);
    case MPI_COMBINER_CONTIGUOUS:
      chain.add(ordered_run(c.types[0]), n[0], extent_of(c.types[0]), 0);
      break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
      const MPI_Aint extent = extent_of(c.types[0]);
      const MPI_Aint stride = c.combiner == MPI_COMBINER_VECTOR ? n[2] * extent : a[0];
      RunChain block;
      block.add(ordered_run(c.types[0]), n[1], extent, 0);
      chain.add(block.result(), n[0], stride, 0);
      break;
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: {
      // ints: count, then one block length (_BLOCK) or count of them, then
      // the displacements in extents (not H*); addrs: those in bytes (H*).
      const bool one_length =
          c.combiner == MPI_COMBINER_INDEXED_BLOCK || c.combiner == MPI_COMBINER_HINDEXED_BLOCK;
      const bool in_bytes =
          c.combiner == MPI_COMBINER_HINDEXED || c.combiner == MPI_COMBINER_HINDEXED_BLOCK;
      const std::optional<ByteRun> element = ordered_run(c.types[0]);
      const MPI_Aint extent = extent_of(c.types[0]);
      const int blocks = n[0], displacements = one_length ? 2 : 1 + blocks;
      for (int i = 0; i < blocks; ++i)
        chain.add(element, n[one_length ? 1 : 1 + i], extent,
                  in_bytes ? a[i] : n[displacements + i] * extent);
      break;
    }
    case MPI_COMBINER_STRUCT:
      for (int i = 0; i < n[0]; ++i)
        chain.add(ordered_run(c.types[i]), n[1 + i], extent_of(c.types[i]), a[i]);
      break;
    case MPI_COMBINER_SUBARRAY:
      return subarray_run(c, ordered_run(c.types[0]), extent_of(c.types[0]));
    case MPI_COMBINER_F90_REAL:
    case MPI_COMBINER_F90_COMPLEX:
    case MPI_COMBINER_F90_INTEGER:  // a basic type under another name
      return basic_run(t);
    default:  // darray, and any constructor not proven here
      return std::nullopt;
  }
  return chain.result();
}

}  // namespace adacomp
