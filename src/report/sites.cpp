#include "report/sites.h"

#include <execinfo.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

void merge_advice(SiteAdvice* into, const SiteAdvice& a) {
  into->kind = std::max(into->kind, a.kind);
  if (!into->op[0]) std::memcpy(into->op, a.op, sizeof into->op);
  into->samples += a.samples, into->sample_bytes += a.sample_bytes;
  for (int i = 0; i < kAdviseCodecs; ++i)
    into->coded_bytes[i] += a.coded_bytes[i], into->coded_ns[i] += a.coded_ns[i];
}

std::string serialise(const std::vector<SiteRow>& rows) {
  std::ostringstream out;
  for (const SiteRow& r : rows) {
    const SiteAdvice& a = r.advice;
    out << r.site << '\t' << r.call << '\t' << r.calls << '\t' << r.ns << '\t' << r.bytes << '\t'
        << r.raw << '\t' << r.wire << '\t' << r.codec_ns << '\t' << r.lossy << '\t'
        << hexfloat(r.certificate.in_force) << '\t' << hexfloat(r.certificate.rel) << '\t'
        << hexfloat(r.certificate.lo) << '\t' << hexfloat(r.certificate.hi) << '\t'
        << hexfloat(r.certificate.proven) << '\t' << hexfloat(r.certificate.measured) << '\t'
        << a.kind << '\t' << (a.op[0] ? a.op : "-") << '\t' << a.samples << '\t'
        << a.sample_bytes;
    for (int i = 0; i < kAdviseCodecs; ++i) out << '\t' << a.coded_bytes[i] << '\t' << a.coded_ns[i];
    out << '\n';
  }
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
    std::string op;
    SiteAdvice& a = r.advice;
    f >> a.kind >> op >> a.samples >> a.sample_bytes;
    for (int i = 0; i < kAdviseCodecs; ++i) f >> a.coded_bytes[i] >> a.coded_ns[i];
    if (op != "-") std::snprintf(a.op, sizeof a.op, "%s", op.c_str());
    SiteRow& m = (*into)[{r.site, r.call}];
    m.site = r.site, m.call = r.call;
    m.calls += r.calls, m.ns += r.ns, m.bytes += r.bytes;
    m.raw += r.raw, m.wire += r.wire, m.codec_ns += r.codec_ns;
    m.lossy = std::max(m.lossy, r.lossy);  // a collective's ranks each count the call
    merge_certificate(&m.certificate, r.certificate);
    merge_advice(&m.advice, a);
  }
}

// The report's name of a site: its frames' names, innermost first.
std::string joined(const Frames& frames, const std::map<void*, SiteName>& names) {
  std::string site;
  for (void* f : frames) {
    if (!f) break;
    std::string name = names.at(f).printed();
    std::replace(name.begin(), name.end(), '\t', ' ');
    site += (site.empty() ? "" : " < ") + name;
  }
  return site;
}

// The site of call `call` made from `return_address`: that address, or the
// ADACOMP_REPORT_SITE_DEPTH innermost frames of the application's stack
// from there.
SiteKey site_key(int call, void* return_address) {
  SiteKey key{call, {}};
  key.frames[0] = return_address;
  const int depth = config().report_site_depth;
  if (depth > 1) {
    void* stack[kMaxSiteDepth + 16];
    const int n = backtrace(stack, kMaxSiteDepth + 16);
    int i = 0;
    while (i < n && stack[i] != return_address) ++i;
    for (int k = 0; k < depth && i + k < n; ++k) key.frames[k] = stack[i + k];
  }
  return key;
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
    r.site = joined(key.frames, names);
    r.call = call_name(static_cast<CallId>(key.call));
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

void record_site(int call, void* return_address, uint64_t ns, long long bytes,
                 const ThreadTally& coded, const LossyCertificate& certificate,
                 const MPI_Request* persistent) {
  const SiteKey key = site_key(call, return_address);
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

int claim_sample(int call, void* return_address, int limit) {
  const SiteKey key = site_key(call, return_address);
  std::lock_guard<std::mutex> g(g_mu);
  SiteRow& r = g_sites[key];
  const uint64_t n = ++r.offered;
  if ((n & (n - 1)) != 0) return -1;  // not a power of two
  const int turn = __builtin_ctzll(n);
  return turn < limit ? turn : -1;
}

void add_sample(int call, void* return_address, const SiteAdvice& sample) {
  const SiteKey key = site_key(call, return_address);
  std::lock_guard<std::mutex> g(g_mu);
  merge_advice(&g_sites[key].advice, sample);
}

std::string site_name_now(int call, void* return_address) {
  const SiteKey key = site_key(call, return_address);
  std::vector<void*> addresses;
  for (void* f : key.frames)
    if (f) addresses.push_back(f);
  return joined(key.frames, resolve_sites(addresses));
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
