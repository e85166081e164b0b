#include "report/sites.h"

#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>

#include "report/stats.h"
#include "runtime/runtime.h"

namespace adacomp {
namespace {

using Frames = std::array<void*, kMaxSiteDepth>;  // innermost first, null-padded

struct SiteKey {
  int call;
  Frames frames;
  bool operator<(const SiteKey& o) const {
    return call != o.call ? call < o.call : frames < o.frames;
  }
};

std::mutex g_mu;
std::map<SiteKey, SiteRow> g_sites;  // figures only; names come at MPI_Finalize
// The persistent requests made while timing: their _init's site and the
// bytes of one start.
struct Persistent {
  SiteKey site;
  uint64_t bytes;
};
std::map<MPI_Request, Persistent> g_persistent;

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

// "func (file.c:123)", "func (module+0xoff)" or "module+0xoff" for each
// address (a return address: its call instruction is the byte before).
std::map<void*, std::string> resolve(const std::vector<void*>& addresses) {
  struct Place {
    void* address;
    uintptr_t lookup;  // for addr2line
    std::string module, symbol, where;
  };
  std::map<std::string, std::vector<Place>> by_file;
  std::map<void*, std::string> names;
  for (void* a : addresses) {
    const uintptr_t pc = reinterpret_cast<uintptr_t>(a) - 1;
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(pc), &info) || !info.dli_fbase) {
      names[a] = hex(pc);
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
      names[p.address] = function.empty() ? where : function + " (" + where + ")";
    }
  }
  return names;
}

std::string serialise(const std::vector<SiteRow>& rows) {
  std::ostringstream out;
  for (const SiteRow& r : rows)
    out << r.site << '\t' << r.call << '\t' << r.calls << '\t' << r.ns << '\t' << r.bytes << '\t'
        << r.raw << '\t' << r.wire << '\t' << r.codec_ns << '\n';
  return out.str();
}

void merge(const std::string& text, std::map<std::pair<std::string, std::string>, SiteRow>* into) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    SiteRow r;
    if (!std::getline(f, r.site, '\t') || !std::getline(f, r.call, '\t')) continue;
    f >> r.calls >> r.ns >> r.bytes >> r.raw >> r.wire >> r.codec_ns;
    SiteRow& m = (*into)[{r.site, r.call}];
    m.site = r.site, m.call = r.call;
    m.calls += r.calls, m.ns += r.ns, m.bytes += r.bytes;
    m.raw += r.raw, m.wire += r.wire, m.codec_ns += r.codec_ns;
  }
}

// This rank's sites, named.
std::vector<SiteRow> local_rows() {
  std::map<SiteKey, SiteRow> sites;
  {
    std::lock_guard<std::mutex> g(g_mu);
    sites = g_sites;
  }
  std::vector<void*> addresses;
  for (const auto& [key, row] : sites)
    for (void* f : key.frames)
      if (f) addresses.push_back(f);
  std::sort(addresses.begin(), addresses.end());
  addresses.erase(std::unique(addresses.begin(), addresses.end()), addresses.end());
  const std::map<void*, std::string> names = resolve(addresses);
  std::vector<SiteRow> rows;
  for (const auto& [key, row] : sites) {
    SiteRow r = row;
    for (void* f : key.frames) {
      if (!f) break;
      std::string name = names.at(f);
      std::replace(name.begin(), name.end(), '\t', ' ');
      r.site += (r.site.empty() ? "" : " < ") + name;
    }
    r.call = call_name(static_cast<CallId>(key.call));
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

void record_site(int call, void* return_address, uint64_t ns, long long bytes,
                 const ThreadTally& coded, const MPI_Request* persistent) {
  SiteKey key{call, {}};
  key.frames[0] = return_address;
  const int depth = config().report_site_depth;
  if (depth > 1) {
    // The application's frames from the entry point's caller outwards.
    void* stack[kMaxSiteDepth + 16];
    const int n = backtrace(stack, kMaxSiteDepth + 16);
    int i = 0;
    while (i < n && stack[i] != return_address) ++i;
    for (int k = 0; k < depth && i + k < n; ++k) key.frames[k] = stack[i + k];
  }
  std::lock_guard<std::mutex> g(g_mu);
  SiteRow& r = g_sites[key];
  ++r.calls;
  r.ns += ns;
  r.raw += coded.raw, r.wire += coded.wire, r.codec_ns += coded.codec_ns;
  if (persistent && bytes > 0)
    g_persistent[*persistent] = {key, static_cast<uint64_t>(bytes)};
  else if (bytes > 0)
    r.bytes += static_cast<uint64_t>(bytes);
}

void count_starts(const MPI_Request* requests, int n) {
  std::lock_guard<std::mutex> g(g_mu);
  if (g_persistent.empty()) return;
  for (int i = 0; i < n; ++i) {
    const auto it = g_persistent.find(requests[i]);
    if (it == g_persistent.end()) continue;
    g_sites[it->second.site].bytes += it->second.bytes;
    g_call_times.bytes[it->second.site.call].fetch_add(it->second.bytes, std::memory_order_relaxed);
  }
}

void forget_persistent(MPI_Request request) {
  std::lock_guard<std::mutex> g(g_mu);
  g_persistent.erase(request);
}

std::vector<SiteRow> gather_sites(MPI_Comm world) {
  int rank, size;
  PMPI_Comm_rank(world, &rank);
  PMPI_Comm_size(world, &size);
  const std::string mine = serialise(local_rows());
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(rank == 0 ? size : 1), offsets(rank == 0 ? size : 1);
  PMPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, world);
  size_t total = 0;
  if (rank == 0)
    for (int r = 0; r < size; ++r) offsets[r] = static_cast<int>(total), total += lengths[r];
  std::vector<char> all(total + 1);
  PMPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
               0, world);
  if (rank != 0) return {};
  std::map<std::pair<std::string, std::string>, SiteRow> merged;
  merge(std::string(all.data(), total), &merged);
  std::vector<SiteRow> rows;
  for (auto& [key, row] : merged) rows.push_back(row);
  std::sort(rows.begin(), rows.end(),
            [](const SiteRow& a, const SiteRow& b) { return a.ns > b.ns; });
  return rows;
}

}  // namespace adacomp
