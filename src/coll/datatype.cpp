#include "coll/datatype.h"

namespace adacomp {

TypeInfo type_info(MPI_Datatype t) {
  TypeInfo info;
  int size = 0;
  PMPI_Type_size(t, &size);
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  PMPI_Type_get_extent(t, &lb, &extent);
  PMPI_Type_get_true_extent(t, &true_lb, &true_extent);
  info.size = static_cast<size_t>(size);
  info.true_lb = true_lb;
  // Consecutive elements must also follow each other with no gap.
  info.contiguous = size > 0 && true_extent == size && extent == size;
  int nints, naddrs, ntypes, combiner;
  PMPI_Type_get_envelope(t, &nints, &naddrs, &ntypes, &combiner);
  info.named = combiner == MPI_COMBINER_NAMED;
  if (info.named) {
    if (t == MPI_FLOAT || t == MPI_REAL || t == MPI_REAL4)
      info.kind = ElemKind::f32;
    else if (t == MPI_DOUBLE || t == MPI_DOUBLE_PRECISION || t == MPI_REAL8)
      info.kind = ElemKind::f64;
  }
  return info;
}

bool op_commutative(MPI_Op op) {
  int commute = 0;
  PMPI_Op_commutative(op, &commute);
  return commute != 0;
}

}  // namespace adacomp
