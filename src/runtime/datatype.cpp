#include "runtime/datatype.h"

namespace adacomp {

bool is_named(MPI_Datatype t) {
  int combiner = MPI_COMBINER_NAMED;
#if MPI_VERSION >= 4
  MPI_Count ni, na, nl, nt;
  PMPI_Type_get_envelope_c(t, &ni, &na, &nl, &nt, &combiner);
#else
  int ni, na, nt;
  PMPI_Type_get_envelope(t, &ni, &na, &nt, &combiner);
#endif
  return combiner == MPI_COMBINER_NAMED;
}

TypeInfo type_info(MPI_Datatype t) {
  TypeInfo info;
  MPI_Count size = 0;  // an int could not hold a large-count type's size
  PMPI_Type_size_x(t, &size);
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  PMPI_Type_get_extent(t, &lb, &extent);
  PMPI_Type_get_true_extent(t, &true_lb, &true_extent);
  info.size = static_cast<size_t>(size);
  info.true_lb = true_lb;
  // Consecutive elements must also follow each other with no gap.
  info.contiguous = size > 0 && true_extent == size && extent == size;
  info.named = is_named(t);
  if (info.named) info.kind = elem_kind(t);
  return info;
}

ElemKind elem_kind(MPI_Datatype t) {
  if (t == MPI_FLOAT || t == MPI_REAL || t == MPI_REAL4) return ElemKind::f32;
  if (t == MPI_DOUBLE || t == MPI_DOUBLE_PRECISION || t == MPI_REAL8) return ElemKind::f64;
  return ElemKind::bytes;
}

bool op_commutative(MPI_Op op) {
  int commute = 0;
  PMPI_Op_commutative(op, &commute);
  return commute != 0;
}

}  // namespace adacomp
