// Where settings come from (config.h), in the order they apply, later ones
// overriding earlier ones key by key:
//   PREFIX/etc/adacomp.conf            the site's, for every build
//   PREFIX/etc/adacomp-<mpi>.conf      the site's for this build's MPI (a
//                                      calibration: it differs between MPIs)
//   $ADACOMP_CONFIG (must exist), else ./adacomp.conf
//   ADACOMP_* environment variables
// PREFIX is found from where this library is installed. A source that
// records another MPI (ADACOMP_MPI, written by adacomp-calibrate) is refused:
// one MPI's calibration applied to the other would be silently wrong.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace adacomp {

using Settings = std::map<std::string, std::string>;

struct Source {
  std::string label;  // for the banner: "site /opt/adacomp/etc/adacomp.conf", "environment"
  std::string path;   // empty for the environment
  Settings settings;
};

// Every source that exists, in order. False with *error on a file that
// cannot be read or parsed, or that is for another MPI.
bool read_sources(std::vector<Source>* out, std::string* error);

// "Open MPI 4", "MPICH", ... for the values ADACOMP_MPI accepts (a build's
// flavour); nullptr otherwise.
const char* mpi_display_name(const std::string& flavor);

}  // namespace adacomp
