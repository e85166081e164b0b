#include "runtime/datatype.h"

#include <array>
#include <initializer_list>

#include "requests/handle_table.h"
#include "runtime/type_layout.h"

namespace adacomp {

namespace {

// The sizes of the predefined datatypes, learned at MPI_Init: every send and
// receive the library routes asks its datatype's size, and PMPI_Type_size_x
// costs about 60 instructions in MPICH 4.0 (callgrind), a fifth of the
// library's work on a small message; whether it is predefined, another 90
// (PMPI_Type_get_envelope). A predefined handle is never freed nor
// given to a derived datatype, so a size found here cannot be stale; filled
// before any other thread runs, then only read.
class PredefinedSizes {
 public:
  void learn(MPI_Datatype t) {
    MPI_Count size = 0;
    if (t == MPI_DATATYPE_NULL || n_ == sizes_.size() ||
        PMPI_Type_size_x(t, &size) != MPI_SUCCESS)
      return;
    sizes_[n_] = size;
    table_.put(t, &sizes_[n_++]);
  }
  // -1: not a predefined datatype (or not learned).
  MPI_Count find(MPI_Datatype t) const {
    const MPI_Count* size = table_.find(t);
    return size ? *size : -1;
  }

 private:
  std::array<MPI_Count, 64> sizes_{};  // more than the types learned
  size_t n_ = 0;
  HandleTable<MPI_Datatype, const MPI_Count> table_;
};

PredefinedSizes g_predefined;

}  // namespace

bool is_named(MPI_Datatype t) {
  if (g_predefined.find(t) >= 0) return true;  // no envelope query
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
  info.named = is_named(t);
  // Consecutive elements must also follow each other with no gap. A
  // derived type that is dense may still list its bytes out of address
  // order (a vector of stride -1): one run only where that is proven.
  info.contiguous = size > 0 && true_extent == size && extent == size;
  if (info.contiguous && !info.named) {
    const std::optional<ByteRun> run = ordered_run(t);
    info.contiguous = run && run->bytes == size && run->first == true_lb;
  }
  if (info.named) info.kind = elem_kind(t);
  return info;
}

void learn_predefined_sizes() {
  for (MPI_Datatype t :
       {MPI_CHAR,         MPI_SIGNED_CHAR,    MPI_UNSIGNED_CHAR,      MPI_BYTE,
        MPI_SHORT,        MPI_UNSIGNED_SHORT, MPI_INT,                MPI_UNSIGNED,
        MPI_LONG,         MPI_UNSIGNED_LONG,  MPI_LONG_LONG,          MPI_UNSIGNED_LONG_LONG,
        MPI_FLOAT,        MPI_DOUBLE,         MPI_LONG_DOUBLE,        MPI_WCHAR,
        MPI_C_BOOL,       MPI_INT8_T,         MPI_INT16_T,            MPI_INT32_T,
        MPI_INT64_T,      MPI_UINT8_T,        MPI_UINT16_T,           MPI_UINT32_T,
        MPI_UINT64_T,     MPI_AINT,           MPI_OFFSET,             MPI_COUNT,
        MPI_C_COMPLEX,    MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX,  MPI_FLOAT_INT,
        MPI_DOUBLE_INT,   MPI_LONG_INT,       MPI_2INT,               MPI_SHORT_INT,
        MPI_PACKED,       MPI_INTEGER,        MPI_REAL,               MPI_DOUBLE_PRECISION,
        MPI_COMPLEX,      MPI_LOGICAL,        MPI_CHARACTER,          MPI_REAL4,
        MPI_REAL8,        MPI_DOUBLE_COMPLEX})
    g_predefined.learn(t);
}

MPI_Count bytes_of(MPI_Count count, MPI_Datatype type) {
  if (count < 0 || type == MPI_DATATYPE_NULL) return -1;
  MPI_Count size = g_predefined.find(type);
  if (size < 0 && PMPI_Type_size_x(type, &size) != MPI_SUCCESS) return -1;
  return count * size;
}

char* block_at(const void* base, MPI_Aint index, MPI_Datatype type) {
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(type, &lb, &extent);
  return const_cast<char*>(static_cast<const char*>(base)) + index * extent;
}

ElemKind elem_kind(MPI_Datatype t) {
  if (t == MPI_FLOAT || t == MPI_REAL || t == MPI_REAL4) return ElemKind::f32;
  if (t == MPI_DOUBLE || t == MPI_DOUBLE_PRECISION || t == MPI_REAL8) return ElemKind::f64;
  return ElemKind::bytes;
}

namespace {

bool one_of(MPI_Datatype t, std::initializer_list<MPI_Datatype> types) {
  for (MPI_Datatype u : types)
    if (t == u) return true;
  return false;
}

// MPI's "C integer" and "Fortran integer" categories (MPI-4 6.9.2).
bool integer_type(MPI_Datatype t) {
  return one_of(t, {MPI_INT,       MPI_LONG,          MPI_SHORT,         MPI_UNSIGNED_SHORT,
                    MPI_UNSIGNED,  MPI_UNSIGNED_LONG, MPI_LONG_LONG_INT, MPI_UNSIGNED_LONG_LONG,
                    MPI_LONG_LONG, MPI_SIGNED_CHAR,   MPI_UNSIGNED_CHAR, MPI_INT8_T,
                    MPI_INT16_T,   MPI_INT32_T,       MPI_INT64_T,       MPI_UINT8_T,
                    MPI_UINT16_T,  MPI_UINT32_T,      MPI_UINT64_T,      MPI_AINT,
                    MPI_OFFSET,    MPI_COUNT,         MPI_INTEGER});
}

bool floating_type(MPI_Datatype t) {
  return one_of(t, {MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_REAL, MPI_DOUBLE_PRECISION,
                    MPI_REAL4, MPI_REAL8});
}

bool complex_type(MPI_Datatype t) {
  return one_of(t, {MPI_C_COMPLEX, MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_COMPLEX,
                    MPI_DOUBLE_COMPLEX});
}

bool logical_type(MPI_Datatype t) { return one_of(t, {MPI_C_BOOL, MPI_LOGICAL}); }

}  // namespace

bool op_defined_for(MPI_Op op, MPI_Datatype type) {
  if (op == MPI_MAX || op == MPI_MIN) return integer_type(type) || floating_type(type);
  if (op == MPI_SUM || op == MPI_PROD)
    return integer_type(type) || floating_type(type) || complex_type(type);
  if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
    return (integer_type(type) && type != MPI_INTEGER) || logical_type(type);
  if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
    return integer_type(type) || type == MPI_BYTE;
  return op != MPI_MAXLOC && op != MPI_MINLOC && op != MPI_REPLACE && op != MPI_NO_OP;
}

bool op_commutative(MPI_Op op) {
  int commute = 0;
  PMPI_Op_commutative(op, &commute);
  return commute != 0;
}

}  // namespace adacomp
