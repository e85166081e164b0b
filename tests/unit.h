// The check of the unit tests that run without MPI (tests/wire, tests/policy):
// plain executables that report every failed expectation and exit nonzero.
#pragma once

#include <cstdio>

namespace unit {
inline int failures = 0;
inline int finish(const char* name) {
  std::printf("%s: %s\n", name, failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
}  // namespace unit

#define EXPECT(cond)                                                                 \
  do {                                                                               \
    if (!(cond)) {                                                                   \
      ++unit::failures;                                                              \
      std::fprintf(stderr, "%s:%d: EXPECT(%s) failed\n", __FILE__, __LINE__, #cond); \
    }                                                                                \
  } while (0)
