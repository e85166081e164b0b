// Thin exported C entry points, generated from c_calls.def.
#include <mpi.h>

#include "coll/coll.h"
#include "interpose/lifecycle.h"
#include "p2p/p2p.h"
#include "runtime/device.h"

namespace {

// Buffers are the untyped pointer arguments: a call with one in device
// memory goes to PMPI unchanged (runtime/device.h).
template <class T>
bool device_arg(const T&) { return false; }
bool device_arg(const void* p) { return adacomp::on_device(p); }
bool device_arg(void* p) { return adacomp::on_device(p); }
template <class... A>
bool device_args(const A&... a) { return (device_arg(a) || ...); }
bool device_args() { return false; }

constexpr bool same(const char* a, const char* b) {
  return *a == *b && (*a == '\0' || same(a + 1, b + 1));
}
// A matched receive of a message the library took off the wire has no PMPI
// form: its message handle is the library's.
constexpr bool may_pass(const char* name) {
  return !same(name, "Mrecv") && !same(name, "Imrecv") && !same(name, "Mrecv_c") &&
         !same(name, "Imrecv_c");
}

}  // namespace

#define ADACOMP_C_CALL(Name, impl, params, args)                            \
  extern "C" __attribute__((visibility("default"))) int MPI_##Name params { \
    if (may_pass(#Name) && device_args args) return PMPI_##Name args;      \
    return adacomp::impl args;                                              \
  }
#include "interpose/c_calls.def"
#if MPI_VERSION >= 4
#include "interpose/c_calls_mpi4.def"
#endif
#undef ADACOMP_C_CALL
