// Shared by the suites of test_p2p (tests/mpi/p2p.cpp runs them in order):
// the ranks of the ring, the mode flags, and the payload helpers.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace p2p_test {

extern int rank_, size_, next_, prev_;
extern bool raw_;  // --raw: the library passes everything through
// --mixed: some peers share this rank's node (ADACOMP_NODE_MAP); messages
// to them are never coded, so fewer are.
extern bool mixed_;

// Compressible, seed-dependent bytes.
inline void fill(void* buf, size_t bytes, int seed) {
  auto* p = static_cast<uint8_t*>(buf);
  for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(seed * 31 + (i / 24) + (i % 3));
}
inline bool same(const void* a, const void* b, size_t n) {
  return n == 0 || std::memcmp(a, b, n) == 0;
}

// basics.cpp: datatypes, special floats, ordering, PROC_NULL/cancel/free.
void basic_types();
void special_floats();
void ordering_and_wildcards();
void proc_null_cancel_free();
// completion.cpp: Wait/Test families, persistent requests and send modes, probes.
void completion_families();
void persistent_and_modes();
void probes();
// comms.cpp: derived datatypes, truncation, communicators, the other send modes.
void derived_and_replace();
void truncation();
void split_comms();
void more_modes_and_comms();
#if MPI_VERSION >= 4
// mpi4.cpp: large-count variants and Isendrecv.
void mpi4_calls();
#endif

}  // namespace p2p_test
