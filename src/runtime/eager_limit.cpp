#include "runtime/eager_limit.h"

#include <algorithm>
#include <cstdint>

namespace adacomp {
namespace {

// Answers outside this range are not believed (a misread, or a value that
// would make chunks absurdly small or large).
constexpr uint64_t kMinLimit = 4 * 1024;
constexpr uint64_t kMaxLimit = 16 * 1024 * 1024;

// Only Open MPI is asked (SimGrid's SMPI has no tool interface at all).
#ifdef OPEN_MPI
// Control variables that hold the eager limit of the transport between
// nodes. Not MPICH's: its cvars are registered whatever the device (4.0 over
// ch4:ucx shows ch3's MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE, which that device
// never uses), and UCX decides its own threshold; MPICH takes the default.
const char* const kEagerCvars[] = {
    "btl_tcp_eager_limit",  // Open MPI, ob1 over TCP
};

// One integer control variable that applies to the whole process, or 0.
uint64_t read_cvar(const char* name) {
  int index = -1;
  if (PMPI_T_cvar_get_index(name, &index) != MPI_SUCCESS) return 0;
  char text[256], desc[1024];
  int name_len = sizeof text, desc_len = sizeof desc, verbosity = 0, bind = 0, scope = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_T_enum enumtype;
  if (PMPI_T_cvar_get_info(index, text, &name_len, &verbosity, &type, &enumtype, desc,
                           &desc_len, &bind, &scope) != MPI_SUCCESS ||
      bind != MPI_T_BIND_NO_OBJECT)
    return 0;
  MPI_T_cvar_handle handle;
  int count = 0;
  if (PMPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) != MPI_SUCCESS) return 0;
  // Large enough for any one integer; a variable of several values is not
  // read (count checked first).
  alignas(8) unsigned char value[64] = {};
  uint64_t out = 0;
  if (count == 1 && PMPI_T_cvar_read(handle, value) == MPI_SUCCESS) {
    if (type == MPI_INT) out = std::max(0, *reinterpret_cast<int*>(value));
    else if (type == MPI_UNSIGNED) out = *reinterpret_cast<unsigned*>(value);
    else if (type == MPI_UNSIGNED_LONG) out = *reinterpret_cast<unsigned long*>(value);
    else if (type == MPI_UNSIGNED_LONG_LONG) out = *reinterpret_cast<unsigned long long*>(value);
    else if (type == MPI_LONG) out = std::max(0L, *reinterpret_cast<long*>(value));
    else if (type == MPI_LONG_LONG) out = std::max(0LL, *reinterpret_cast<long long*>(value));
  }
  PMPI_T_cvar_handle_free(&handle);
  return out;
}

uint64_t query_eager_limit() {
  // Asked for MPI's own level: Open MPI's MPI_T_init_thread overwrites the
  // level MPI_Init_thread provided (MPI_Query_thread, and its locking under
  // MPI_THREAD_MULTIPLE) with the one it is given.
  int level = MPI_THREAD_SINGLE, provided = 0;
  PMPI_Query_thread(&level);
  if (PMPI_T_init_thread(level, &provided) != MPI_SUCCESS) return 0;
  uint64_t limit = 0;
  for (const char* name : kEagerCvars)
    if ((limit = read_cvar(name)) != 0) break;
  PMPI_T_finalize();
  return limit >= kMinLimit && limit <= kMaxLimit ? limit : 0;
}
#else
uint64_t query_eager_limit() { return 0; }
#endif

}  // namespace

size_t agree_eager_limit(MPI_Comm world) {
  // Unknown counts as above any answer, so that a known limit wins the MIN.
  uint64_t mine = query_eager_limit(), least = 0;
  if (mine == 0) mine = kMaxLimit + 1;
  PMPI_Allreduce(&mine, &least, 1, MPI_UINT64_T, MPI_MIN, world);
  return least > kMaxLimit ? kDefaultEagerLimit : static_cast<size_t>(least);
}

}  // namespace adacomp
