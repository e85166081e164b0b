#include "runtime/mpi_library.h"

#include <dlfcn.h>
#include <link.h>
#include <mpi.h>

#include <cstdlib>
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

// The MPI-5 standard ABI's library: whatever its vendor, it is the ABI a
// build with mpicc_abi needs, and no other build can use.
constexpr const char* kStandardAbiLibrary = "libmpi_abi.so";

// Sized for any MPI, not this build's: the other MPI may write more
// (MPICH: 8192) than this mpi.h's MPI_MAX_LIBRARY_VERSION_STRING (Open MPI: 256).
char g_text[1 << 16];

// Every MPI library loaded in the process. Both are there when the program
// brought its own MPI (mpi4py dlopens it after the preloaded library's MPI).
int collect_mpi(struct dl_phdr_info* info, size_t, void* out) {
  const char* path = info->dlpi_name;
  const char* base = path ? std::strrchr(path, '/') : nullptr;
  base = base ? base + 1 : path;
  if (base && (std::strncmp(base, "libmpi.so", 9) == 0 || std::strncmp(base, "libmpich.so", 11) == 0 ||
               std::strncmp(base, kStandardAbiLibrary, std::strlen(kStandardAbiLibrary)) == 0))
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
  if (path.find(kStandardAbiLibrary) != std::string::npos)
    lib = {"mpiabi", "the MPI ABI of " + lib.name};
  return lib;
}

}  // namespace

MpiLibrary parse_mpi_library(const std::string& text) {
  if (text.find("MPI ABI") == 0) return {"mpiabi", text};
  if (text.find("Open MPI") != std::string::npos) {
    // Open MPI 5 keeps Open MPI 4's soname (libmpi.so.40) but not its ABI.
    const std::string version = version_after(text, "Open MPI");
    const int release = std::atoi(major(version).c_str());
    return {release >= 5 ? "openmpi" + std::to_string(release) : "openmpi", "Open MPI " + version};
  }
  // Intel MPI first: its text may name the MPICH it derives from.
  if (text.find("Intel(R) MPI") != std::string::npos)
    return {"impi", "Intel(R) MPI " + version_after(text, "Intel(R) MPI")};
  // MVAPICH and Cray MPICH keep MPICH's ABI: one build serves them.
  for (const char* name : {"MVAPICH", "MPICH"})
    if (text.find(name) != std::string::npos)
      return {"mpich", std::string(name) + " " + version_after(text, name)};
  return {"unknown", text.substr(0, text.find_first_of(",\n"))};
}

std::string mpi_library_mismatch() {
  const MpiLibrary built = parse_mpi_library(ADACOMP_MPI_BUILT_FOR);
  // One build per flavour (cmake/mpi_flavor.cmake): Open MPI 4 and 5 differ
  // in ABI; Intel MPI has MPICH's ABI, but its own build, tuned and tested
  // on it, is the one to use.
  auto differs = [&](const MpiLibrary& running) {
    return running.flavor != "unknown" && running.flavor != built.flavor;
  };
  std::vector<MpiLibrary> running;
  int len = 0;
  // The standard ABI is told by the library loaded, not by its vendor's text.
  if (built.flavor != "mpiabi" && PMPI_Get_library_version(g_text, &len) == MPI_SUCCESS)
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
