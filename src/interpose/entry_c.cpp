// Thin exported C entry points, generated from c_calls.def; each timed, with
// its payload size, for the report when one is asked for.
#include <mpi.h>

#include <type_traits>

#include "coll/coll.h"
#include "coll/schedule.h"
#include "interpose/lifecycle.h"
#include "p2p/p2p.h"
#include "runtime/device.h"
#include "runtime/stats.h"

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

// The payload of a call, named by its parameters: inside an entry point its
// own parameters hide these fallbacks, so one expression serves every call.
constexpr int count = -1, sendcount = -1, recvcount = -1;
const MPI_Datatype datatype = MPI_DATATYPE_NULL, sendtype = MPI_DATATYPE_NULL,
                   recvtype = MPI_DATATYPE_NULL;
const void* const sendbuf = nullptr;
const void* const recvbuf = nullptr;

template <typename C>
long long count_of(C c) {
  if constexpr (std::is_integral_v<C>) return static_cast<long long>(c);
  else return -1;  // an array of counts: no single size
}

constexpr bool is_scatter(adacomp::CallId id) {
#if MPI_VERSION >= 4
  if (id == adacomp::call_Scatter_c) return true;
#endif
  return id == adacomp::call_Scatter;
}

long long bytes_of(long long n, MPI_Datatype type) {
  int size = 0;
  if (n < 0 || type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS) return -1;
  return n * size;
}

// Only arguments significant on this rank: Scatter's send side is the
// root's alone, Gather's receive side too, and MPI_IN_PLACE voids a side.
long long payload(bool scatter, long long n, MPI_Datatype type, long long send_n,
                  MPI_Datatype send_type, const void* send_buf, long long recv_n,
                  MPI_Datatype recv_type, const void* recv_buf) {
  if (n >= 0 && type != MPI_DATATYPE_NULL) return bytes_of(n, type);
  if (scatter) return recv_buf == MPI_IN_PLACE ? -1 : bytes_of(recv_n, recv_type);
  if (send_n >= 0 && send_type != MPI_DATATYPE_NULL)
    return send_buf == MPI_IN_PLACE ? -1 : bytes_of(send_n, send_type);
  return bytes_of(recv_n, type);  // Reduce_scatter_block: recvcount of datatype
}

}  // namespace

#define ADACOMP_C_CALL(Name, impl, params, args)                                              \
  extern "C" __attribute__((visibility("default"))) int MPI_##Name params {                   \
    adacomp::progress_collectives(); /* one relaxed load when nothing is outstanding */      \
    if (may_pass(#Name) && device_args args) return PMPI_##Name args;                        \
    adacomp::CallClock clock(adacomp::call_##Name);                                           \
    const int rc = adacomp::impl args;                                                        \
    clock.stop(rc, [&] {                                                                      \
      return payload(is_scatter(adacomp::call_##Name), count_of(count), datatype,               \
                     count_of(sendcount), sendtype, sendbuf, count_of(recvcount), recvtype,   \
                     recvbuf);                                                                \
    });                                                                                       \
    return rc;                                                                                \
  }
#include "interpose/c_calls.def"
#if MPI_VERSION >= 4
#include "interpose/c_calls_mpi4.def"
#endif
#undef ADACOMP_C_CALL
