// What the implementation of an intercepted MPI call returns.
#pragma once

#include <optional>

namespace adacomp {

// An MPI return code, or kDeclined: the library does not take this call.
// An implementation declines before it has touched any user buffer or sent
// anything, so the generated entry point (tools/gen_entries.py) can call
// PMPI with the very same arguments.
using CallResult = std::optional<int>;
inline constexpr std::nullopt_t kDeclined = std::nullopt;

}  // namespace adacomp
