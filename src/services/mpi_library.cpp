#include "services/mpi_library.h"

#include <dlfcn.h>
#include <link.h>
#include <mpi.h>

#include <cstring>
#include <vector>

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

// Sized for any MPI, not this build's: the other MPI may write more
// (MPICH: 8192) than this mpi.h's MPI_MAX_LIBRARY_VERSION_STRING (Open MPI: 256).
char g_text[1 << 16];

// Every MPI library loaded in the process. Both are there when the program
// brought its own MPI (mpi4py dlopens it after the preloaded library's MPI).
int collect_mpi(struct dl_phdr_info* info, size_t, void* out) {
  const char* path = info->dlpi_name;
  const char* base = path ? std::strrchr(path, '/') : nullptr;
  base = base ? base + 1 : path;
  if (base &&
      (std::strncmp(base, "libmpi.so", 9) == 0 || std::strncmp(base, "libmpich.so", 11) == 0))
    static_cast<std::vector<std::string>*>(out)->push_back(path);
  return 0;
}

// MPI_Get_library_version of one loaded library, by its own symbol (MPI
// allows the call before MPI_Init).
MpiLibrary loaded_library(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (!handle) return {"unknown", path};
  using Query = int (*)(char*, int*);
  auto query = reinterpret_cast<Query>(dlsym(handle, "MPI_Get_library_version"));
  int len = 0;
  MpiLibrary lib{"unknown", path};
  if (query && query(g_text, &len) == MPI_SUCCESS) lib = parse_mpi_library(g_text);
  dlclose(handle);
  return lib;
}

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
  const MpiLibrary built = parse_mpi_library(ADACOMP_MPI_BUILT_FOR);
  // Open MPI changes its ABI with the major version; the MPICH ABI
  // (MPICH 3.1+, Intel MPI, MVAPICH) is stable.
  auto differs = [&](const MpiLibrary& running) {
    if (running.flavor == "unknown") return false;
    return running.flavor != built.flavor ||
           (built.flavor == "openmpi" &&
            major(version_after(running.name, "MPI")) != major(version_after(built.name, "MPI")));
  };
  std::vector<MpiLibrary> running;
  int len = 0;
  if (PMPI_Get_library_version(g_text, &len) == MPI_SUCCESS)
    running.push_back(parse_mpi_library(g_text));
  std::vector<std::string> paths;
  dl_iterate_phdr(collect_mpi, &paths);
  for (const std::string& path : paths) running.push_back(loaded_library(path));
  for (const MpiLibrary& other : running)
    if (differs(other))
      return "built for " + built.name + ", this program uses " + other.name + ": use adacomp-" +
             other.flavor + " (libadacomp-" + other.flavor + ".so), the build for " + other.name;
  return "";
}

}  // namespace adacomp
