// adacomp-codecs FILE --type f64|f32 [--abs-bound X | --rel-bound X]
//                [--json] [--codecs a,b,...] [--min-time S]
//                [--fpc-bits N] [--zstd-level N] [--portable] [--threads N]
//
// Runs every float-capable codec configuration on one raw little-endian
// array, single-threaded, and reports the ratio, the compression and
// decompression throughput (median of repeats, MB/s of uncompressed data,
// MB = 1e6 bytes), the maximum absolute error, and memcpy throughput from
// the same run for scale. Every round trip is verified: bit-exact for
// lossless codecs, within the bound for error-bounded ones. Exits nonzero
// if a verification fails. --portable runs the SIMD codecs' portable path
// instead of AVX2. --threads N codes whole frames as the library does under
// ADACOMP_THREADS=N (wire/segments.h: up to N segments of at least 256 KiB,
// coded and decoded on N threads; the ratio counts the frame header and
// segment table).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "transfer/pool.h"
#include "wire/frame.h"

using namespace adacomp;

namespace {

struct Config {
  std::string label;
  CodecId id;
  int truncate_bits = 32;
  CodecId inner = CodecId::stored;
  bool f64_only = false;
  // truncate / to_f32: run under the bound (as the lossy codec) or with
  // their own relative error (fixed truncate_bits).
  bool bounded = false;
};

const Config kConfigs[] = {
    {"zstd", CodecId::zstd},
    {"lz4", CodecId::lz4},
    {"blosc", CodecId::blosc},
    {"fpc", CodecId::fpc},
    {"bitplane", CodecId::bitplane},
    {"quant", CodecId::quant},
    {"quant_fast", CodecId::quant_fast},
    {"quant_zstd", CodecId::quant_zstd},
    {"zfp", CodecId::zfp},
    {"truncate16", CodecId::truncate, 16},
    {"truncate16+blosc", CodecId::truncate, 16, CodecId::blosc},
    {"to_f32", CodecId::to_f32, 0, CodecId::stored, true},
    {"to_f32+fpc", CodecId::to_f32, 0, CodecId::fpc, true},
    {"truncate(bound)", CodecId::truncate, 0, CodecId::stored, false, true},
    {"truncate(bound)+blosc", CodecId::truncate, 0, CodecId::blosc, false, true},
    {"to_f32(bound)", CodecId::to_f32, 0, CodecId::stored, true, true},
};

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Median seconds of one call of f, repeated for at least min_time seconds
// (and at least 5 times).
template <typename F>
double median_time(F&& f, double min_time) {
  std::vector<double> t;
  double start = now();
  while (t.size() < 5 || (now() - start < min_time && t.size() < 1001)) {
    double a = now();
    f();
    t.push_back(now() - a);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double value(const std::vector<uint8_t>& b, ElemKind k, size_t i) {
  if (k == ElemKind::f64) {
    double d;
    std::memcpy(&d, b.data() + 8 * i, 8);
    return d;
  }
  float f;
  std::memcpy(&f, b.data() + 4 * i, 4);
  return f;
}

const char kHelp[] =
    "usage: adacomp-codecs FILE --type f64|f32 [--abs-bound X | --rel-bound X] [--json]\n"
    "                      [--codecs a,b] [--min-time S] [--fpc-bits N] [--zstd-level N]\n"
    "                      [--portable] [--threads N]\n"
    "\n"
    "Does my data compress? Runs every codec AdaComp has on FILE, raw little-endian\n"
    "doubles (f64) or floats (f32), on one core, and prints ratio, compression and\n"
    "decompression speed (MB/s), and the largest error; every round trip is checked\n"
    "(bit-exact for lossless codecs, within the bound for lossy ones).\n"
    "\n"
    "  --type f64|f32      element type of FILE\n"
    "  --rel-bound X       lossy bound relative to the value range (default 1e-4)\n"
    "  --abs-bound X       absolute lossy bound instead\n"
    "  --codecs a,b        only these (zstd lz4 blosc fpc quant zfp truncate16 ...)\n"
    "  --min-time S        seconds of repeats per measurement (default 0.3)\n"
    "  --fpc-bits N        fpc predictor table bits\n"
    "  --zstd-level N      zstd level for the zstd-based codecs\n"
    "  --portable          the portable (non-SIMD) paths of the SIMD codecs\n"
    "  --threads N         frames in N segments on N threads (ADACOMP_THREADS)\n"
    "  --json              one JSON object per codec instead of the table\n"
    "  -h, --help          this text;  -V, --version  version\n";

int usage() {
  std::fputs(kHelp, stderr);
  return 2;
}

// --threads: the frames' segments on this many threads.
size_t g_threads = 1;
void on_threads(size_t n, const std::function<void(size_t)>& task) { pool_run(g_threads, n, task); }

}  // namespace

int main(int argc, char** argv) {
  std::string file, type, only;
  double abs_bound = 0, rel_bound = 1e-4, min_time = 0.3;
  int fpc_bits = EncodeParams().fpc_table_bits;
  int zstd_level = EncodeParams().zstd_level;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "-h" || a == "--help") return std::fputs(kHelp, stdout), 0;
    if (a == "-V" || a == "--version") {
      std::printf("adacomp-codecs %s (codecs only, no MPI)\n", ADACOMP_VERSION);
      return 0;
    }
    if (a == "--json")
      json = true;
    else if (a == "--type" && (v = next()))
      type = v;
    else if (a == "--abs-bound" && (v = next()))
      abs_bound = std::atof(v), rel_bound = 0;
    else if (a == "--rel-bound" && (v = next()))
      rel_bound = std::atof(v), abs_bound = 0;
    else if (a == "--codecs" && (v = next()))
      only = "," + std::string(v) + ",";
    else if (a == "--min-time" && (v = next()))
      min_time = std::atof(v);
    else if (a == "--fpc-bits" && (v = next()))
      fpc_bits = std::atoi(v);
    else if (a == "--zstd-level" && (v = next()))
      zstd_level = std::atoi(v);
    else if (a == "--portable")
      codec_force_portable(true);
    else if (a == "--threads" && (v = next()) && std::atoi(v) >= 1 && std::atoi(v) <= 64)
      g_threads = static_cast<size_t>(std::atoi(v));
    else if (a[0] != '-' && file.empty())
      file = a;
    else
      return usage();
  }
  if (file.empty() || (type != "f64" && type != "f32")) return usage();
  const ElemKind kind = type == "f64" ? ElemKind::f64 : ElemKind::f32;
  const size_t esize = kind == ElemKind::f64 ? 8 : 4;

  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", file.c_str());
    return 2;
  }
  std::vector<uint8_t> src((std::istreambuf_iterator<char>(in)), {});
  src.resize(src.size() / esize * esize);
  const size_t n = src.size() / esize;

  // A relative bound is taken against the finite value range, as the core
  // does per message.
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = 0; i < n; ++i) {
    double x = value(src, kind, i);
    if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
  }
  double range = hi >= lo ? hi - lo : 0;
  if (rel_bound > 0) abs_bound = rel_bound * range;

  std::vector<uint8_t> copy(src.size());
  double memcpy_s =
      median_time([&] { std::memcpy(copy.data(), src.data(), src.size()); }, min_time);
  const double mb = src.size() / 1e6;
  const double memcpy_mbps = mb / memcpy_s;
  if (!json) {
    std::printf("file %s: %zu x %s (%.2f MB), range %.6g, abs bound %.6g%s\n", file.c_str(), n,
                type.c_str(), mb, range, abs_bound, rel_bound > 0 ? " (from --rel-bound)" : "");
    std::printf(
        "memcpy %.0f MB/s%s\n", memcpy_mbps,
        g_threads > 1 ? (", frames on " + std::to_string(g_threads) + " threads").c_str() : "");
    std::printf("%-22s %8s %10s %10s %12s  %s\n", "codec", "ratio", "comp MB/s", "dec MB/s",
                "max_abs_err", "check");
  }

  int failures = 0;
  for (const Config& c : kConfigs) {
    if (!only.empty() && only.find("," + c.label + ",") == std::string::npos) continue;
    if (c.f64_only && kind != ElemKind::f64) continue;
    const Codec* codec = find_codec(c.id);
    EncodeParams p;
    p.kind = kind;
    const bool truncation = c.id == CodecId::truncate || c.id == CodecId::to_f32;
    p.abs_bound = truncation && !c.bounded ? 0 : abs_bound;
    p.truncate_bits = c.truncate_bits;
    p.lossy_inner = c.inner;
    p.fpc_table_bits = fpc_bits;
    p.zstd_level = zstd_level;
    std::vector<uint8_t> enc(std::max(codec->max_encoded(src.size()), frame_capacity(src.size())));
    std::vector<uint8_t> dec(src.size());
    // The codec alone, or (--threads) whole frames as the library sends them.
    auto encode = [&]() -> long {
      if (g_threads == 1) return codec->encode(p, src.data(), src.size(), enc.data(), enc.size());
      return static_cast<long>(encode_segmented(*codec, p, src.data(), src.size(), enc.data(),
                                                segment_count(g_threads, src.size()), on_threads));
    };
    auto decode = [&](long size) -> long {
      if (g_threads == 1) return codec->decode(kind, enc.data(), size, dec.data(), dec.size());
      const long r = decode_frame(enc.data(), size, dec.data(), dec.size(), on_threads);
      return r == kCodecOk ? static_cast<long>(dec.size()) : r;
    };
    long size = encode();
    if (size < 0) {
      std::printf("%-22s %s\n", c.label.c_str(), codec_status_string(size));
      continue;
    }
    double enc_s = median_time([&] { encode(); }, min_time);
    long r = decode(size);
    double dec_s = median_time([&] { decode(size); }, min_time);

    // Verify: lossless bit-exact; lossy within the bound for finite values
    // and bit-exact for NaN/Inf (truncation: no absolute bound to check).
    double max_err = 0;
    bool ok = r == static_cast<long>(src.size());
    bool bounded = !truncation || c.bounded;
    for (size_t i = 0; ok && i < n; ++i) {
      double a = value(src, kind, i), b = value(dec, kind, i);
      if (!std::isfinite(a)) {
        if (truncation && !c.bounded)
          ok = std::isnan(a) ? std::isnan(b) : a == b;
        else
          ok = std::memcmp(&src[i * esize], &dec[i * esize], esize) == 0;
        continue;
      }
      max_err = std::max(max_err, std::fabs(a - b));
    }
    const char* check;
    if (!codec->lossy) {
      ok = ok && src == dec;
      check = ok ? "bit-exact" : "MISMATCH";
    } else if (bounded) {
      ok = ok && max_err <= abs_bound;
      check = ok ? "within bound" : "BOUND VIOLATED";
    } else {
      check = ok ? "lossy, no abs bound" : "DECODE FAILED";
    }
    failures += !ok;
    double ratio = static_cast<double>(src.size()) / size;
    if (json)
      std::printf(
          "{\"codec\": \"%s\", \"ratio\": %.4f, \"compress_MBps\": %.1f, "
          "\"decompress_MBps\": %.1f, \"max_abs_err\": %.6g, "
          "\"memcpy_MBps\": %.1f, \"verified\": %s, \"file\": \"%s\", "
          "\"abs_bound\": %.6g, \"threads\": %zu}\n",
          c.label.c_str(), ratio, mb / enc_s, mb / dec_s, max_err, memcpy_mbps,
          ok ? "true" : "false", file.c_str(), bounded ? abs_bound : 0.0, g_threads);
    else
      std::printf("%-22s %8.3f %10.0f %10.0f %12.4g  %s\n", c.label.c_str(), ratio, mb / enc_s,
                  mb / dec_s, max_err, check);
  }
  return failures ? 1 : 0;
}
