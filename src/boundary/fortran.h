// Shared by the generated Fortran entry points (tools/gen_entries.py).
#pragma once

#include <mpi.h>

#include <vector>

#include "boundary/entry.h"

#ifndef MPI_F_STATUS_SIZE
#define MPI_F_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))
#endif

namespace adacomp {
// Translates the Fortran MPI_IN_PLACE and MPI_BOTTOM sentinels (addresses of
// the MPI library's Fortran common blocks) to their C values.
void* fortran_buffer(void* p);
// Before MPI_Init from Fortran: MPICH records the sentinels' addresses.
void fortran_setup();
}  // namespace adacomp

inline void* fbuf(void* p) { return adacomp::fortran_buffer(p); }
inline const void* fbuf(const void* p) { return adacomp::fortran_buffer(const_cast<void*>(p)); }

// MPI_STATUS(ES)_IGNORE as a Fortran status argument. MPICH's `use mpi_f08`
// has its own objects for them (MPI_F08_STATUS(ES)_IGNORE); Open MPI's
// mpi_f08 shares mpif.h's.
inline bool fstatus_ignored(const MPI_Fint* s) {
#ifdef MPICH
  if (static_cast<const void*>(s) == MPI_F08_STATUS_IGNORE) return true;
#endif
  return s == MPI_F_STATUS_IGNORE;
}
inline bool fstatuses_ignored(const MPI_Fint* s) {
#ifdef MPICH
  if (static_cast<const void*>(s) == MPI_F08_STATUSES_IGNORE) return true;
#endif
  return s == MPI_F_STATUSES_IGNORE;
}
