#include "report/sites.h"

#include <execinfo.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>

#include "report/stats.h"
#include "runtime/runtime.h"
#include "runtime/site_names.h"

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

// Exact through text: the certificate's bounds are compared with each other.
std::string hexfloat(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

std::string serialise(const std::vector<SiteRow>& rows) {
  std::ostringstream out;
  for (const SiteRow& r : rows)
    out << r.site << '\t' << r.call << '\t' << r.calls << '\t' << r.ns << '\t' << r.bytes << '\t'
        << r.raw << '\t' << r.wire << '\t' << r.codec_ns << '\t' << r.lossy << '\t'
        << hexfloat(r.certificate.in_force) << '\t' << hexfloat(r.certificate.rel) << '\t'
        << hexfloat(r.certificate.lo) << '\t' << hexfloat(r.certificate.hi) << '\t'
        << hexfloat(r.certificate.proven) << '\t' << hexfloat(r.certificate.measured) << '\n';
  return out.str();
}

void merge(const std::string& text, std::map<std::pair<std::string, std::string>, SiteRow>* into) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    SiteRow r;
    if (!std::getline(f, r.site, '\t') || !std::getline(f, r.call, '\t')) continue;
    f >> r.calls >> r.ns >> r.bytes >> r.raw >> r.wire >> r.codec_ns >> r.lossy;
    for (double* v : {&r.certificate.in_force, &r.certificate.rel, &r.certificate.lo,
                      &r.certificate.hi, &r.certificate.proven, &r.certificate.measured}) {
      std::string text;
      f >> text;
      *v = std::strtod(text.c_str(), nullptr);
    }
    SiteRow& m = (*into)[{r.site, r.call}];
    m.site = r.site, m.call = r.call;
    m.calls += r.calls, m.ns += r.ns, m.bytes += r.bytes;
    m.raw += r.raw, m.wire += r.wire, m.codec_ns += r.codec_ns;
    m.lossy = std::max(m.lossy, r.lossy);  // a collective's ranks each count the call
    merge_certificate(&m.certificate, r.certificate);
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
  const std::map<void*, SiteName> names = resolve_sites(addresses);
  std::vector<SiteRow> rows;
  for (const auto& [key, row] : sites) {
    SiteRow r = row;
    for (void* f : key.frames) {
      if (!f) break;
      std::string name = names.at(f).printed();
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
                 const ThreadTally& coded, const LossyCertificate& certificate,
                 const MPI_Request* persistent) {
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
  if (certificate.given()) {
    ++r.lossy;
    merge_certificate(&r.certificate, certificate);
  }
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
