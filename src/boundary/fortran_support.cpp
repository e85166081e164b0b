// The Fortran sentinels MPI_IN_PLACE and MPI_BOTTOM.
#include "boundary/fortran.h"

extern "C" {
#ifdef OPEN_MPI
// Open MPI: the Fortran constants are common blocks defined in libmpi.
extern char mpi_fortran_in_place_ __attribute__((weak));
extern char mpi_fortran_bottom_ __attribute__((weak));
#else
// MPICH: mpirinitf_ (libmpichfort) records the Fortran common-block
// addresses; its own mpi_init_ calls it first, and so do we.
extern void* MPIR_F_MPI_IN_PLACE __attribute__((weak));
extern void* MPIR_F_MPI_BOTTOM __attribute__((weak));
extern int MPIR_F_NeedInit __attribute__((weak));
void mpirinitf_() __attribute__((weak));
#endif
}

namespace adacomp {

void* fortran_buffer(void* p) {
#ifdef OPEN_MPI
  if (&mpi_fortran_in_place_ && p == &mpi_fortran_in_place_) return MPI_IN_PLACE;
  if (&mpi_fortran_bottom_ && p == &mpi_fortran_bottom_) return MPI_BOTTOM;
#else
  if (&MPIR_F_MPI_IN_PLACE && p == MPIR_F_MPI_IN_PLACE && p) return MPI_IN_PLACE;
  if (&MPIR_F_MPI_BOTTOM && p == MPIR_F_MPI_BOTTOM && p) return MPI_BOTTOM;
#endif
  return p;
}

void fortran_setup() {
#ifndef OPEN_MPI
  if (mpirinitf_ && (!&MPIR_F_NeedInit || MPIR_F_NeedInit)) {
    mpirinitf_();
    if (&MPIR_F_NeedInit) MPIR_F_NeedInit = 0;
  }
#endif
}

}  // namespace adacomp
