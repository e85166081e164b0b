// Capture file layout (read by adacomp-codecs, bench/codecs/capture_file.h):
// a text header of "key value" lines, ended by an empty line, then the raw
// little-endian payload.
//
//   adacomp-capture 1
//   call Allreduce            the MPI call (the report's name)
//   site cg_dot (cg.c:88)     the call site as the report prints it
//   type f64                  f64 | f32 | bytes
//   count 8192                elements in this file
//   call_count 65536          elements of the call's buffer (the file may hold a prefix)
//   op sum                    sum | min | max | other | none
//   rank 0
//   bytes 65536               payload bytes after the empty line (count x element size)
//   <empty line>
//   <payload>
#include "report/samples.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "report/sites.h"
#include "report/stats.h"
#include "runtime/datatype.h"
#include "runtime/device.h"

namespace adacomp {
namespace detail {
std::atomic<bool> g_sampling{false};
}
namespace {

struct Candidate {
  CodecId id;
  bool lossy;
};
// Lossless: the general byte codecs and the float ones the library chooses
// among; lossy: the library's default lossy pair (ADACOMP_LOSSY_CODEC).
constexpr Candidate kCandidates[kAdviseCodecs] = {
    {CodecId::zstd, false},     {CodecId::lz4, false},        {CodecId::fpc, false},
    {CodecId::bitplane, false}, {CodecId::quant_zstd, true}, {CodecId::quant_fast, true}};

// A capture writes at most this many files per rank, whatever the sites.
constexpr int kMaxCaptureFiles = 256;

bool g_advise = false;
std::string g_capture_dir;
int g_sample_count = 4;
size_t g_sample_bytes = 1 << 20;
double g_rel_bound = 1e-4, g_abs_bound = 0;  // the lossy candidates' bound
int g_rank = 0;
std::atomic<int> g_captured{0};

const char* op_text(MPI_Op op) {
  if (op == MPI_OP_NULL) return "";
  if (op == MPI_SUM) return "sum";
  if (op == MPI_MIN) return "min";
  if (op == MPI_MAX) return "max";
  return "other";
}

const char* kind_text(ElemKind k) {
  return k == ElemKind::f64 ? "f64" : k == ElemKind::f32 ? "f32" : "bytes";
}

// The bound over the sample's own finite values, as a transfer takes it.
double sample_bound(const char* data, size_t n, ElemKind kind) {
  if (g_abs_bound > 0) return g_abs_bound;
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < n; ++i) {
    double x;
    if (kind == ElemKind::f64) {
      std::memcpy(&x, data + 8 * i, 8);
    } else {
      float f;
      std::memcpy(&f, data + 4 * i, 4);
      x = f;
    }
    if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
  }
  return hi > lo ? g_rel_bound * (hi - lo) : 0;
}

// Each candidate codes the sample once; one that cannot (a float codec on
// bytes, a lossy one on a constant sample) counts as sent stored.
void code_sample(const char* data, size_t bytes, ElemKind kind, SiteAdvice* a) {
  const size_t esize = kind == ElemKind::f64 ? 8 : kind == ElemKind::f32 ? 4 : 1;
  const double bound = kind == ElemKind::bytes ? 0 : sample_bound(data, bytes / esize, kind);
  std::vector<char> out;
  for (int i = 0; i < kAdviseCodecs; ++i) {
    const Codec* codec = find_codec(kCandidates[i].id);
    uint64_t coded = bytes, ns = 0;
    const bool fits = kind != ElemKind::bytes || !codec->float_only;
    if (fits && (!kCandidates[i].lossy || bound > 0)) {
      EncodeParams p;
      p.kind = kind;
      p.abs_bound = bound;
      out.resize(codec->max_encoded(bytes));
      const auto start = std::chrono::steady_clock::now();
      const long n = codec->encode(p, data, bytes, out.data(), out.size());
      ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                                start)
               .count();
      if (n > 0) coded = std::min<uint64_t>(bytes, static_cast<uint64_t>(n));
    }
    a->coded_bytes[i] += coded;
    a->coded_ns[i] += ns;
  }
}

void capture(int call, void* return_address, const char* data, size_t bytes, ElemKind kind,
             MPI_Count call_count, const char* op) {
  const int seq = g_captured.fetch_add(1, std::memory_order_relaxed);
  if (seq >= kMaxCaptureFiles) return;
  char path[4096];
  std::snprintf(path, sizeof path, "%s/r%d-%03d-%s.acap", g_capture_dir.c_str(), g_rank, seq,
                call_name(static_cast<CallId>(call)));
  FILE* f = std::fopen(path, "wb");
  if (!f) return;
  std::string site = site_name_now(call, return_address);
  std::replace(site.begin(), site.end(), '\n', ' ');
  const size_t esize = kind == ElemKind::f64 ? 8 : kind == ElemKind::f32 ? 4 : 1;
  std::fprintf(f,
               "adacomp-capture 1\ncall %s\nsite %s\ntype %s\ncount %zu\ncall_count %lld\nop %s\n"
               "rank %d\nbytes %zu\n\n",
               call_name(static_cast<CallId>(call)), site.c_str(), kind_text(kind), bytes / esize,
               static_cast<long long>(call_count), op[0] ? op : "none", g_rank, bytes);
  std::fwrite(data, 1, bytes, f);
  std::fclose(f);
}

}  // namespace

const char* advise_codec_name(int i) { return find_codec(kCandidates[i].id)->name; }
bool advise_codec_lossy(int i) { return kCandidates[i].lossy; }

std::string advise_bound_text() {
  char text[48];
  if (g_abs_bound > 0)
    std::snprintf(text, sizeof text, "abs %g", g_abs_bound);
  else
    std::snprintf(text, sizeof text, "rel %g", g_rel_bound);
  return text;
}

bool start_sampling(const Config& c, int world_rank, std::string* error) {
  g_advise = c.advise;
  g_capture_dir = c.capture_dir;
  g_sample_count = c.sample_count;
  g_sample_bytes = c.sample_bytes;
  g_abs_bound = c.rel_error_bound > 0 ? 0 : c.abs_error_bound;
  g_rel_bound = c.rel_error_bound > 0 ? c.rel_error_bound : 1e-4;
  g_rank = world_rank;
  if (!g_capture_dir.empty() && mkdir(g_capture_dir.c_str(), 0777) != 0 && errno != EEXIST) {
    *error = "ADACOMP_CAPTURE: cannot create directory '" + g_capture_dir +
             "': " + std::strerror(errno);
    return false;
  }
  detail::g_sampling.store(g_advise || !g_capture_dir.empty(), std::memory_order_relaxed);
  return true;
}

void stop_sampling() { detail::g_sampling.store(false, std::memory_order_relaxed); }

void offer_payload(int call, void* return_address, const void* buf, MPI_Count count,
                   MPI_Datatype type, MPI_Op op) {
  // Arguments not yet checked by MPI: anything this cannot read as a
  // contiguous predefined type's host buffer is not sampled.
  if (!buf || buf == MPI_IN_PLACE || count <= 0 || type == MPI_DATATYPE_NULL || !is_named(type) ||
      on_device(buf))
    return;
  const TypeInfo t = type_info(type);
  if (!t.contiguous || t.size == 0) return;
  if (claim_sample(call, return_address, g_sample_count) < 0) return;
  const size_t esize = t.kind == ElemKind::f64 ? 8 : t.kind == ElemKind::f32 ? 4 : 1;
  const size_t whole = static_cast<size_t>(count) * t.size;
  const size_t bytes = std::min(whole, g_sample_bytes) / esize * esize;
  if (bytes == 0) return;
  const char* data = static_cast<const char*>(buf) + t.true_lb;
  SiteAdvice a;
  a.kind = static_cast<int>(t.kind);
  std::snprintf(a.op, sizeof a.op, "%s", op_text(op));
  a.samples = 1;
  a.sample_bytes = bytes;
  if (g_advise) code_sample(data, bytes, t.kind, &a);
  if (!g_capture_dir.empty()) capture(call, return_address, data, bytes, t.kind, count, a.op);
  add_sample(call, return_address, a);
}

}  // namespace adacomp
