#include "decision/config_values.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "decision/config.h"

namespace adacomp {

// Digits first: strtoull would accept blanks and a sign ("-1" is 2^64 - 1).
bool parse_bytes(const std::string& v, size_t* out) {
  if (v.empty() || v[0] < '0' || v[0] > '9') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (errno || end == v.c_str()) return false;
  std::string suffix = end;
  unsigned long long mult = 1;
  if (suffix == "" || suffix == "B")
    mult = 1;
  else if (suffix == "K" || suffix == "k" || suffix == "KB" || suffix == "KiB")
    mult = 1ull << 10;
  else if (suffix == "M" || suffix == "MB" || suffix == "MiB")
    mult = 1ull << 20;
  else if (suffix == "G" || suffix == "GB" || suffix == "GiB")
    mult = 1ull << 30;
  else
    return false;
  if (n > (~0ull) / mult) return false;
  *out = static_cast<size_t>(n * mult);
  return true;
}

// A tier threshold: a byte count, or `never` (as adacomp-calibrate writes
// for a tier that does not pay).
bool parse_threshold(const std::string& v, size_t* out) {
  if (v == "never") {
    *out = kNever;
    return true;
  }
  return parse_bytes(v, out);
}

bool parse_int(const std::string& v, long lo, long hi, int* out) {
  errno = 0;
  char* end = nullptr;
  long n = std::strtol(v.c_str(), &end, 10);
  if (errno || v.empty() || *end != '\0' || n < lo || n > hi) return false;
  *out = static_cast<int>(n);
  return true;
}

bool parse_positive(const std::string& v, double* out) {
  errno = 0;
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (errno || v.empty() || *end != '\0' || !std::isfinite(d) || d < 0) return false;
  *out = d;
  return true;
}

// ADACOMP_NODE_MAP: comma-separated positive block sizes.
bool parse_node_map(const std::string& text, std::vector<int>* blocks) {
  blocks->clear();
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find(',', i);
    if (j == std::string::npos) j = text.size();
    const std::string part = text.substr(i, j - i);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) return false;
    const long v = std::strtol(part.c_str(), nullptr, 10);
    if (v < 1 || v > 1 << 20) return false;
    blocks->push_back(static_cast<int>(v));
    i = j + 1;
  }
  return !blocks->empty() && text.back() != ',';
}

}  // namespace adacomp
