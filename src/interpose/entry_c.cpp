// Thin exported C entry points, generated from c_calls.def; each timed for
// the report when one is asked for.
#include <mpi.h>

#include "coll/coll.h"
#include "interpose/lifecycle.h"
#include "p2p/p2p.h"
#include "runtime/stats.h"

#define ADACOMP_C_CALL(Name, impl, params, args) \
  extern "C" __attribute__((visibility("default"))) int MPI_##Name params { \
    adacomp::CallClock clock(adacomp::call_##Name);                         \
    return adacomp::impl args;                                              \
  }
#include "interpose/c_calls.def"
#if MPI_VERSION >= 4
#include "interpose/c_calls_mpi4.def"
#endif
#undef ADACOMP_C_CALL
