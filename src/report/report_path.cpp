// The report's file name (ADACOMP_REPORT), expanded and checked at MPI_Init
// so that a path that cannot be written stops the job there, not at the end.
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include "report/report.h"

namespace adacomp {
namespace {

bool is_directory(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// A directory (existing, or written with a final '/') gets a file name of
// its own, as mpiP and Darshan name theirs: PROGRAM.JOBID.PID.DATE.adacomp.json.
bool name_in_directory(std::string* path, std::string* error) {
  const bool slash = !path->empty() && path->back() == '/';
  if (!slash && !is_directory(*path)) return true;
  if (!is_directory(*path)) {
    *error =
        "ADACOMP_REPORT: cannot write into directory '" + *path + "': " + std::strerror(ENOENT);
    return false;
  }
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y%m%d-%H%M%S", std::gmtime(&now));
  const std::string job = job_id().empty() ? "nojob" : job_id();
  *path += std::string(slash ? "" : "/") + program_invocation_short_name + "." + job + "." +
           std::to_string(getpid()) + "." + date + ".adacomp.json";
  return true;
}

// Whether `path` can be written: tried, not guessed (permissions, a
// read-only file system, a directory in the way), leaving no file behind.
bool writable(const std::string& path, std::string* error) {
  struct stat st;
  const bool exists = stat(path.c_str(), &st) == 0;
  int fd = -1;
  if (exists && !S_ISREG(st.st_mode))
    errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
  else
    fd = exists ? open(path.c_str(), O_WRONLY)
                : open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    *error = "ADACOMP_REPORT: cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  close(fd);
  if (!exists) unlink(path.c_str());
  return true;
}

}  // namespace

std::string job_id() {
  for (const char* var :
       {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "COBALT_JOBID", "FLUX_JOB_ID", "JOB_ID"})
    if (const char* v = std::getenv(var)) return v;
  return "";
}

bool expand_report_path(const std::string& pattern, std::string* path, std::string* error) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out += pattern[i];
      continue;
    }
    switch (pattern[++i]) {
      case 'p':
        out += std::to_string(getpid());
        break;
      case 'j':
        out += job_id().empty() ? "nojob" : job_id();
        break;
      case 'h': {
        char host[256] = {0};
        gethostname(host, sizeof host - 1);
        out += host;
        break;
      }
      case '%':
        out += '%';
        break;
      default:
        *error = "ADACOMP_REPORT='" + pattern + "': unknown %" + pattern[i] +
                 " (accepts %p pid, %j job id, %h host, %%)";
        return false;
    }
  }
  if (!name_in_directory(&out, error) || !writable(out, error)) return false;
  *path = out;
  return true;
}

}  // namespace adacomp
