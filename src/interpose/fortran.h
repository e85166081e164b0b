// Shared by the generated Fortran entry points (tools/gen_fortran.py).
#pragma once

#include <mpi.h>

#include <vector>

#include "coll/coll.h"
#include "interpose/lifecycle.h"
#include "p2p/p2p.h"

#define ADACOMP_FEXPORT __attribute__((visibility("default")))

#ifndef MPI_F_STATUS_SIZE
#define MPI_F_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))
#endif

namespace adacomp {
// Translates the Fortran MPI_IN_PLACE and MPI_BOTTOM sentinels (addresses of
// the MPI library's Fortran common blocks) to their C values.
void* fortran_buffer(void* p);
}  // namespace adacomp

inline void* fbuf(void* p) { return adacomp::fortran_buffer(p); }
inline const void* fbuf(const void* p) { return adacomp::fortran_buffer(const_cast<void*>(p)); }
