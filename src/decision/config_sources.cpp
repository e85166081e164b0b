#include "decision/config_sources.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <sys/stat.h>

extern char** environ;

namespace adacomp {
namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

// Reads KEY=VALUE lines into *out; false with *error on a malformed line or
// when a file that must exist cannot be opened. *found: it existed.
bool read_file(const std::string& path, bool must_exist, Settings* out, bool* found,
               std::string* error) {
  // A directory opens as an empty stream: it is no configuration.
  struct stat info;
  if (stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) {
    *error = "ADACOMP_CONFIG: '" + path + "' is a directory";
    return false;
  }
  std::ifstream in(path);
  *found = static_cast<bool>(in);
  if (!in) {
    if (must_exist) *error = "ADACOMP_CONFIG: cannot open '" + path + "': " + std::strerror(errno);
    return !must_exist;
  }
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    line = trim(line.substr(0, line.find('#')));
    if (line.empty()) continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos) {
      *error = path + ":" + std::to_string(lineno) + ": expected KEY=VALUE";
      return false;
    }
    (*out)[trim(line.substr(0, eq))] = trim(line.substr(eq + 1));
  }
  return true;
}

// PREFIX/etc, found from where this library is installed, named canonically
// (the launcher preloads bin/./../lib/..., and etc need not exist). Empty if
// unknown.
std::string site_dir() {
  Dl_info info;
  char real[PATH_MAX];
  if (!dladdr(reinterpret_cast<void*>(&site_dir), &info) || !info.dli_fname ||
      !realpath(info.dli_fname, real))
    return "";
  std::string dir = real;
  dir.erase(dir.rfind('/'));
  std::istringstream parts(ADACOMP_SITE_CONFIG_DIR_FROM_LIB);
  for (std::string part; std::getline(parts, part, '/');) {
    if (part == "..")
      dir.erase(std::max<size_t>(dir.rfind('/'), 1));
    else if (!part.empty() && part != ".")
      dir += (dir == "/" ? "" : "/") + part;
  }
  return dir;
}

// Set by module systems for every package ({name}_ROOT, _DIR, _HOME), or
// read here: not settings, never an error.
bool ignored_variable(const std::string& key) {
  return key == "ADACOMP_CONFIG" || key == "ADACOMP_ROOT" || key == "ADACOMP_DIR" ||
         key == "ADACOMP_HOME";
}

// False with *error when `source` records an MPI other than this build's.
// An unknown value is left to the setting's own check.
bool for_this_mpi(const Source& source, const std::string& site, std::string* error) {
  auto mpi = source.settings.find("ADACOMP_MPI");
  if (mpi == source.settings.end() || mpi->second == ADACOMP_MPI_FLAVOR) return true;
  const char* theirs = mpi_display_name(mpi->second);
  if (!theirs) return true;
  *error = (source.path.empty() ? std::string("the environment") : source.path) +
           " holds settings for " + theirs + " (ADACOMP_MPI = " + mpi->second +
           "), and this library is built for " ADACOMP_MPI_BUILT_FOR
           ": one MPI's calibration does not fit the other; use the " +
           theirs + " build (adacomp-" + mpi->second +
           "), or calibrate this one (adacomp-calibrate-" ADACOMP_MPI_FLAVOR ") into " +
           (site.empty() ? "PREFIX/etc" : site) + "/adacomp-" ADACOMP_MPI_FLAVOR ".conf";
  return false;
}

}  // namespace

const char* mpi_display_name(const std::string& flavor) {
  // The flavours of cmake/mpi_flavor.cmake.
  if (flavor == "openmpi") return "Open MPI 4";
  if (flavor == "openmpi5") return "Open MPI 5";
  if (flavor == "mpich") return "MPICH";
  if (flavor == "impi") return "Intel MPI";
  if (flavor == "mpiabi") return "MPI standard ABI";
  return nullptr;
}

bool read_sources(std::vector<Source>* out, std::string* error) {
  const std::string site = site_dir();
  const char* file_env = std::getenv("ADACOMP_CONFIG");
  struct File {
    std::string label, path;
    bool must_exist;
  };
  std::vector<File> files;
  if (!site.empty())
    for (const char* name : {"/adacomp.conf", "/adacomp-" ADACOMP_MPI_FLAVOR ".conf"})
      files.push_back({"site ", site + name, false});
  files.push_back({file_env ? "ADACOMP_CONFIG " : "", file_env ? file_env : "adacomp.conf",
                   file_env != nullptr});
  out->clear();
  for (const File& file : files) {
    Source source{file.label + file.path, file.path, {}};
    bool found = false;
    if (!read_file(file.path, file.must_exist, &source.settings, &found, error)) return false;
    if (found) out->push_back(source);
  }

  Source env{"environment", "", {}};
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, "ADACOMP_", 8) != 0) continue;
    const char* eq = std::strchr(*e, '=');
    std::string key(*e, eq ? eq - *e : std::strlen(*e));
    if (!ignored_variable(key)) env.settings[key] = trim(eq ? eq + 1 : "");
  }
  if (!env.settings.empty()) out->push_back(env);
  for (const Source& source : *out)
    if (!for_this_mpi(source, site, error)) return false;
  return true;
}

}  // namespace adacomp
