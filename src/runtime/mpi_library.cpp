#include "runtime/mpi_library.h"

#include <mpi.h>

#include <cstring>

namespace adacomp {
namespace {

// The version number that follows `after` in `text`, e.g. "4.1.4".
std::string version_after(const std::string& text, const char* after) {
  size_t p = text.find(after);
  if (p == std::string::npos) return "";
  p = text.find_first_of("0123456789", p + std::strlen(after));
  if (p == std::string::npos) return "";
  size_t e = text.find_first_not_of("0123456789.", p);
  return text.substr(p, e == std::string::npos ? std::string::npos : e - p);
}

std::string major(const std::string& version) { return version.substr(0, version.find('.')); }

}  // namespace

MpiLibrary parse_mpi_library(const std::string& text) {
  if (text.find("Open MPI") != std::string::npos)
    return {"openmpi", "Open MPI " + version_after(text, "Open MPI")};
  for (const char* abi : {"MPICH", "Intel(R) MPI", "MVAPICH"})
    if (text.find(abi) != std::string::npos)
      return {"mpich", std::string(abi) + " " + version_after(text, abi)};
  return {"unknown", text.substr(0, text.find_first_of(",\n"))};
}

std::string mpi_library_mismatch() {
  // Sized for any MPI, not this build's: the other MPI may write more
  // (MPICH: 8192) than this mpi.h's MPI_MAX_LIBRARY_VERSION_STRING (Open MPI: 256).
  static char text[1 << 16];
  int len = 0;
  if (PMPI_Get_library_version(text, &len) != MPI_SUCCESS) return "";
  const MpiLibrary running = parse_mpi_library(text);
  const MpiLibrary built = parse_mpi_library(ADACOMP_MPI_BUILT_FOR);
  // Open MPI changes its ABI with the major version; the MPICH ABI
  // (MPICH 3.1+, Intel MPI, MVAPICH) is stable.
  const bool same = running.flavor == built.flavor &&
                    (built.flavor != "openmpi" ||
                     major(version_after(running.name, "MPI")) ==
                         major(version_after(built.name, "MPI")));
  if (same || running.flavor == "unknown") return "";
  return "built for " + built.name + ", this program uses " + running.name + ": use adacomp-" +
         running.flavor + " (libadacomp-" + running.flavor + ".so), the build for " +
         running.name;
}

}  // namespace adacomp
