#include "runtime/mpi_abi.h"

#include <dlfcn.h>

namespace adacomp {

MPI_Errhandler mpi_errors_abort() {
#if defined(OPEN_MPI)
  static const MPI_Errhandler handle = [] {
    void* address = dlsym(RTLD_DEFAULT, "ompi_mpi_errors_abort");
    return address ? reinterpret_cast<MPI_Errhandler>(address) : MPI_ERRHANDLER_NULL;
  }();
  return handle;
#elif defined(MPI_ERRORS_ABORT)
  return MPI_ERRORS_ABORT;
#else
  return MPI_ERRHANDLER_NULL;
#endif
}

}  // namespace adacomp
