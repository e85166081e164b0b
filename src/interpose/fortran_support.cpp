// Fortran sentinels and the hand-written Fortran Init/Finalize entries.
#include "interpose/fortran.h"

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

namespace {
void fortran_setup() {
#ifndef OPEN_MPI
  if (mpirinitf_ && (!&MPIR_F_NeedInit || MPIR_F_NeedInit)) {
    mpirinitf_();
    if (&MPIR_F_NeedInit) MPIR_F_NeedInit = 0;
  }
#endif
}
}  // namespace

}  // namespace adacomp

#define ADACOMP_FALIASES(fn, params)                                                      \
  extern "C" ADACOMP_FEXPORT void mpi_##fn##_ params __attribute__((alias("adacomp_f_" #fn))); \
  extern "C" ADACOMP_FEXPORT void mpi_##fn##__ params __attribute__((alias("adacomp_f_" #fn)));\
  extern "C" ADACOMP_FEXPORT void mpi_##fn params __attribute__((alias("adacomp_f_" #fn)));

extern "C" void adacomp_f_init(MPI_Fint* ierr) {
  adacomp::fortran_setup();
  int rc = adacomp::init(nullptr, nullptr);
  if (ierr) *ierr = rc;
}
ADACOMP_FALIASES(init, (MPI_Fint * ierr))
extern "C" ADACOMP_FEXPORT void MPI_INIT(MPI_Fint* ierr) __attribute__((alias("adacomp_f_init")));

extern "C" void adacomp_f_init_thread(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr) {
  adacomp::fortran_setup();
  int p = 0;
  int rc = adacomp::init_thread(nullptr, nullptr, *required, &p);
  *provided = p;
  if (ierr) *ierr = rc;
}
ADACOMP_FALIASES(init_thread, (MPI_Fint * required, MPI_Fint* provided, MPI_Fint* ierr))
extern "C" ADACOMP_FEXPORT void MPI_INIT_THREAD(MPI_Fint* required, MPI_Fint* provided,
                                                MPI_Fint* ierr)
    __attribute__((alias("adacomp_f_init_thread")));

extern "C" void adacomp_f_finalize(MPI_Fint* ierr) {
  int rc = adacomp::finalize();
  if (ierr) *ierr = rc;
}
ADACOMP_FALIASES(finalize, (MPI_Fint * ierr))
extern "C" ADACOMP_FEXPORT void MPI_FINALIZE(MPI_Fint* ierr)
    __attribute__((alias("adacomp_f_finalize")));

// use mpi_f08: Open MPI and MPICH both name these mpi_<name>_f08_, and both
// reach PMPI_Init / PMPI_Finalize without the C MPI_Init / MPI_Finalize.
extern "C" ADACOMP_FEXPORT void mpi_init_f08_(MPI_Fint* ierr) __attribute__((alias("adacomp_f_init")));
extern "C" ADACOMP_FEXPORT void mpi_finalize_f08_(MPI_Fint* ierr)
    __attribute__((alias("adacomp_f_finalize")));
extern "C" ADACOMP_FEXPORT void mpi_init_thread_f08_(MPI_Fint* required, MPI_Fint* provided,
                                                     MPI_Fint* ierr)
    __attribute__((alias("adacomp_f_init_thread")));
