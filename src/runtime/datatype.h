// What the compressed paths need to know about a datatype.
#pragma once

#include <cstddef>

#include <mpi.h>

#include "codec/codec.h"

namespace adacomp {

struct TypeInfo {
  size_t size = 0;          // bytes of data per element
  MPI_Aint true_lb = 0;     // offset of the first byte from the buffer address
  // The data occupies exactly [true_lb, true_lb + size), in address order
  // (runtime/type_layout.h): copied as one run of bytes, never packed.
  bool contiguous = false;
  bool named = false;       // predefined datatype
  ElemKind kind = ElemKind::bytes;
};

TypeInfo type_info(MPI_Datatype t);

// The bytes of `count` elements of `type`: the library's one count x type
// size (MPI_Type_size_x: a type over 2 GiB too; a predefined type's from a
// table learned at MPI_Init), or -1 for a negative count, MPI_DATATYPE_NULL
// or a type MPI gives no size, which the argument checks then report.
MPI_Count bytes_of(MPI_Count count, MPI_Datatype type);
// Learns the predefined datatypes' sizes for bytes_of; at MPI_Init.
void learn_predefined_sizes();
// bytes_of where the arguments were checked: 0 for no data.
inline size_t data_size(MPI_Count count, MPI_Datatype type) {
  const MPI_Count bytes = bytes_of(count, type);
  return bytes > 0 ? static_cast<size_t>(bytes) : 0;
}

// The address `index` elements of `type` (by its extent) after `base`.
char* block_at(const void* base, MPI_Aint index, MPI_Datatype type);

// The element kind of a datatype, from its handle alone (no MPI query: a
// derived datatype is never one of the predefined handles).
ElemKind elem_kind(MPI_Datatype t);

// A predefined datatype. MPI-4 asks large-count types with the _c query
// (MPICH fails the classic one for them).
bool is_named(MPI_Datatype t);

// Reductions are compressed for contiguous predefined types only; elements
// are then independent and blocks can be cut anywhere on element boundaries.
inline bool reducible(const TypeInfo& t) { return t.named && t.contiguous && t.size > 0; }

bool op_commutative(MPI_Op op);
// Whether MPI defines predefined `op` on named `type` (user ops: always).
// Reductions the library would compute on a pair MPI rejects (MPI_MAX on
// MPI_BYTE, say) are declined, so that PMPI reports the error on every
// rank, as it checks arguments before moving data.
bool op_defined_for(MPI_Op op, MPI_Datatype type);

}  // namespace adacomp
