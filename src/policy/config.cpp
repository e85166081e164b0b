#include "policy/config.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace adacomp {
namespace {

using Settings = std::map<std::string, std::string>;

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool read_file(const std::string& path, bool must_exist, Settings* out,
               std::string* error) {
  std::ifstream in(path);
  if (!in) {
    if (must_exist) *error = "ADACOMP_CONFIG: cannot open '" + path + "'";
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

bool parse_bytes(const std::string& v, size_t* out) {
  if (v.empty()) return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (errno || end == v.c_str() || v[0] == '-') return false;
  std::string suffix = end;
  unsigned long long mult = 1;
  if (suffix == "" || suffix == "B") mult = 1;
  else if (suffix == "K" || suffix == "k" || suffix == "KB" || suffix == "KiB") mult = 1ull << 10;
  else if (suffix == "M" || suffix == "MB" || suffix == "MiB") mult = 1ull << 20;
  else if (suffix == "G" || suffix == "GB" || suffix == "GiB") mult = 1ull << 30;
  else return false;
  if (n > (~0ull) / mult) return false;
  *out = static_cast<size_t>(n * mult);
  return true;
}

bool parse_int(const std::string& v, long lo, long hi, int* out) {
  errno = 0;
  char* end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (errno || v.empty() || *end != '\0' || n < lo || n > hi) return false;
  *out = static_cast<int>(n);
  return true;
}

bool parse_mode(const std::string& v, Mode* out) {
  static const std::pair<const char*, Mode> names[] = {
      {"raw", Mode::raw},     {"0", Mode::raw},
      {"lossless", Mode::lossless}, {"1", Mode::lossless},
      {"adaptive", Mode::adaptive}, {"3", Mode::adaptive},
  };
  for (const auto& [name, mode] : names)
    if (v == name) { *out = mode; return true; }
  return false;
}

std::string invalid(const char* key, const std::string& v, const char* accepts) {
  return std::string(key) + "='" + v + "' is invalid; accepts " + accepts;
}

}  // namespace

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::raw: return "raw";
    case Mode::lossless: return "lossless";
    case Mode::lossy: return "lossy";
    case Mode::adaptive: return "adaptive";
    case Mode::pipelined: return "pipelined";
  }
  return "?";
}

bool load_config(Config* out, std::string* error) {
  Config c;
  Settings s;
  const char* file_env = std::getenv("ADACOMP_CONFIG");
  std::string path = file_env ? file_env : "adacomp.conf";
  if (!read_file(path, file_env != nullptr, &s, error)) return false;
  c.source = s.empty() ? "environment" : path + " + environment";

  // Environment overrides the file key by key.
  static const char* const kKeys[] = {
      "ADACOMP_MODE", "ADACOMP_THRESHOLD_LOSSLESS", "ADACOMP_LOSSLESS_CODEC",
      "ADACOMP_ZSTD_LEVEL", "ADACOMP_VERBOSE", "ADACOMP_REPORT",
      "ADACOMP_FAULT"};
  for (const char* k : kKeys)
    if (const char* v = std::getenv(k)) s[k] = v;

  for (const auto& [key, value] : s) {
    bool ok = true;
    const char* accepts = "";
    if (key == "ADACOMP_MODE") {
      ok = parse_mode(value, &c.mode);
      accepts = "raw|lossless|adaptive (or 0|1|3)";
    } else if (key == "ADACOMP_THRESHOLD_LOSSLESS") {
      ok = parse_bytes(value, &c.threshold_lossless);
      accepts = "a byte count with optional K, M or G suffix";
    } else if (key == "ADACOMP_LOSSLESS_CODEC") {
      const Codec* codec = find_codec(value);
      ok = codec && !codec->lossy && codec->id != CodecId::stored;
      if (ok) c.lossless_codec = codec->id;
      accepts = "zstd|lz4";
    } else if (key == "ADACOMP_ZSTD_LEVEL") {
      ok = parse_int(value, -7, 22, &c.zstd_level);
      accepts = "an integer from -7 to 22";
    } else if (key == "ADACOMP_VERBOSE") {
      ok = parse_int(value, 0, 2, &c.verbose);
      accepts = "0, 1 or 2";
    } else if (key == "ADACOMP_REPORT") {
      ok = !value.empty();
      c.report_path = value;
      accepts = "a file path";
    } else if (key == "ADACOMP_FAULT") {
      ok = value == "corrupt-frames" || value == "none";
      c.fault_corrupt_frames = value == "corrupt-frames";
      accepts = "corrupt-frames|none";
    } else {
      *error = "unknown setting '" + key + "' in " + path;
      return false;
    }
    if (!ok) {
      *error = invalid(key.c_str(), value, accepts);
      return false;
    }
  }
  *out = c;
  return true;
}

std::string config_fingerprint(const Config& c) {
  std::ostringstream f;
  f << "mode=" << mode_name(c.mode) << ";t1=" << c.threshold_lossless
    << ";codec=" << static_cast<int>(c.lossless_codec)
    << ";zstd=" << c.zstd_level;
  return f.str();
}

}  // namespace adacomp
