#include "runtime/eager_limit.h"

#include <dlfcn.h>
#include <mpi.h>  // OPEN_MPI

namespace adacomp {
namespace {

// Answers outside this range are not believed (a misread, or a value that
// would make chunks absurdly small or large).
constexpr uint64_t kMinLimit = 4 * 1024;
constexpr uint64_t kMaxLimit = 16 * 1024 * 1024;

}  // namespace

// Only Open MPI is asked. Not MPICH: its cvars are registered whatever the
// device (4.0 over ch4:ucx shows ch3's MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE,
// which that device never uses), and UCX decides its own threshold; MPICH
// takes the default. SimGrid's SMPI has no such registry at all.
#ifdef OPEN_MPI
// Not through MPI_T: Open MPI's MPI_T_init_thread opens every component of
// every framework to register their variables, 0.2 s of every job's
// MPI_Init. The registry MPI_Init has already filled answers at once,
// through the two exported functions MPI_T_cvar_get_index and
// MPI_T_cvar_read use. btl_tcp_eager_limit (ob1 over TCP) is a size_t; it is
// registered only where the TCP transport was opened (otherwise it carries
// nothing, and MPI_T does not find it either).
uint64_t local_eager_limit() {
  using FindByName = int (*)(const char* full_name, int* index);
  using GetValue = int (*)(int index, const void* value, void* source, const char** file);
  auto find = reinterpret_cast<FindByName>(dlsym(RTLD_DEFAULT, "mca_base_var_find_by_name"));
  auto get = reinterpret_cast<GetValue>(dlsym(RTLD_DEFAULT, "mca_base_var_get_value"));
  int index = -1;
  const size_t* value = nullptr;
  if (!find || !get || find("btl_tcp_eager_limit", &index) != 0 ||
      get(index, &value, nullptr, nullptr) != 0 || !value)
    return 0;
  return *value >= kMinLimit && *value <= kMaxLimit ? *value : 0;
}
#else
uint64_t local_eager_limit() { return 0; }
#endif

}  // namespace adacomp
