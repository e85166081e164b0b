#include "runtime/site_names.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace adacomp {
namespace {

// The ELF file of a loaded module, for addr2line: the main program's
// dladdr name is argv[0], which need not be a path.
std::string module_file(const Dl_info& info) {
  static const std::string self = [] {
    char path[4096];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    return n > 0 ? std::string(path, n) : std::string();
  }();
  const std::string name = info.dli_fname ? info.dli_fname : "";
  if (name.empty() || name.find('/') == std::string::npos) return self;
  return name;
}

// Whether addresses in `file` are given to addr2line as offsets from its
// load base (a shared object or position-independent program), not as
// absolute addresses (a fixed-address program).
bool relocatable(const std::string& file) {
  Elf64_Ehdr h{};
  FILE* f = std::fopen(file.c_str(), "rb");
  if (!f) return true;
  const bool read = std::fread(&h, sizeof h, 1, f) == 1;
  std::fclose(f);
  return !read || h.e_type != ET_EXEC;
}

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string hex(uintptr_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// addr2line -f on `addrs` of `file`: "function\nfile:line\n" per address,
// "??" where it does not know. Empty when addr2line is missing or fails.
// Started with posix_spawn, not popen: no fork of an MPI process (its
// pinned memory, its atfork handlers), and none of its descriptors (the
// MPI's sockets) open in the child; without the preload that loaded this
// library (and MPI) into the job.
std::vector<std::pair<std::string, std::string>> addr2line(const std::string& file,
                                                           const std::vector<uintptr_t>& addrs) {
  std::vector<std::string> args = {"addr2line", "-f", "-C", "-e", file};
  for (uintptr_t a : addrs) args.push_back(hex(a));
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "LD_PRELOAD=", 11) != 0) envp.push_back(*e);
  envp.push_back(nullptr);

  std::vector<std::pair<std::string, std::string>> out;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return out;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclosefrom_np(&actions, STDERR_FILENO + 1);
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, "addr2line", &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (spawned != 0) {
    close(fds[0]);
    return out;
  }
  FILE* p = fdopen(fds[0], "r");
  char line[4096];
  std::string function;
  for (bool first = true; p && std::fgets(line, sizeof line, p); first = !first) {
    std::string text(line);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    if (first) {
      function = text;
      continue;
    }
    out.emplace_back(function, text);
  }
  if (p)
    std::fclose(p);
  else
    close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || out.size() != addrs.size()) out.clear();
  return out;
}

}  // namespace

std::map<void*, SiteName> resolve_sites(const std::vector<void*>& addresses) {
  struct Place {
    void* address;
    uintptr_t lookup;  // for addr2line
    std::string module, symbol, where;
  };
  std::map<std::string, std::vector<Place>> by_file;
  std::map<void*, SiteName> names;
  for (void* a : addresses) {
    const uintptr_t pc = reinterpret_cast<uintptr_t>(a) - 1;
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(pc), &info) || !info.dli_fbase) {
      names[a] = {"", hex(pc)};
      continue;
    }
    const std::string file = module_file(info);
    const uintptr_t offset = pc - reinterpret_cast<uintptr_t>(info.dli_fbase);
    by_file[file].push_back({a, relocatable(file) ? offset : pc, base_name(file),
                             info.dli_sname ? info.dli_sname : "",
                             base_name(file) + "+" + hex(offset)});
  }
  for (auto& [file, places] : by_file) {
    std::vector<uintptr_t> lookups;
    for (const Place& p : places) lookups.push_back(p.lookup);
    const auto lines = addr2line(file, lookups);
    for (size_t i = 0; i < places.size(); ++i) {
      Place& p = places[i];
      std::string function = p.symbol, where = p.where;
      if (!lines.empty()) {
        if (lines[i].first != "??") function = lines[i].first;
        std::string at = lines[i].second;
        at = at.substr(0, at.find(" (discriminator"));
        if (at.compare(0, 2, "??") != 0 && at.find(":?") == std::string::npos &&
            at.substr(at.rfind(':') + 1) != "0")
          where = base_name(at);
      }
      names[p.address] = {function, where};
    }
  }
  return names;
}

}  // namespace adacomp
