// Reads a capture file (ADACOMP_CAPTURE; its layout is written at the top
// of src/report/samples.cpp): the "key value" header, checked line by
// line, and the payload after it. Every fault is an error naming the file
// and what is wrong, never a read past the data.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

struct Capture {
  std::map<std::string, std::string> header;
  std::string type;  // f64 | f32 | bytes
  std::vector<uint8_t> payload;
};

constexpr char kCaptureMagic[] = "adacomp-capture 1\n";
// A header longer than this is not one the library wrote.
constexpr size_t kMaxCaptureHeader = 8192;

inline bool is_capture(const std::vector<uint8_t>& file) {
  const size_t n = sizeof kCaptureMagic - 1;
  return file.size() >= n && std::string(file.begin(), file.begin() + n) == kCaptureMagic;
}

// A whole number in `text`, in [0, limit].
inline bool capture_number(const std::string& text, uint64_t limit, uint64_t* out) {
  if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos)
    return false;
  *out = std::strtoull(text.c_str(), nullptr, 10);
  return *out <= limit;
}

inline bool read_capture(const std::vector<uint8_t>& file, Capture* c, std::string* error) {
  const std::string head(file.begin(), file.begin() + std::min(file.size(), kMaxCaptureHeader));
  const size_t end = head.find("\n\n");
  if (!is_capture(file)) return *error = "not a capture file (no 'adacomp-capture 1' line)", false;
  if (end == std::string::npos)
    return *error = "header not ended by an empty line within 8192 bytes", false;
  std::istringstream lines(head.substr(sizeof kCaptureMagic - 1, end + 1 - (sizeof kCaptureMagic - 1)));
  std::string line;
  while (std::getline(lines, line)) {
    const size_t space = line.find(' ');
    if (space == std::string::npos || space == 0)
      return *error = "header line '" + line + "' is not 'key value'", false;
    c->header[line.substr(0, space)] = line.substr(space + 1);
  }
  for (const char* key : {"call", "site", "type", "count", "op", "bytes"})
    if (!c->header.count(key)) return *error = std::string("header has no '") + key + "' line", false;
  c->type = c->header["type"];
  const uint64_t esize = c->type == "f64" ? 8 : c->type == "f32" ? 4 : c->type == "bytes" ? 1 : 0;
  if (esize == 0) return *error = "type '" + c->type + "' is not f64, f32 or bytes", false;
  uint64_t count = 0, bytes = 0;
  const uint64_t present = file.size() - (end + 2);
  if (!capture_number(c->header["bytes"], present, &bytes) || bytes != present)
    return *error = "bytes '" + c->header["bytes"] + "' but " + std::to_string(present) +
                    " bytes follow the header",
           false;
  if (!capture_number(c->header["count"], bytes, &count) || count * esize != bytes)
    return *error = "count '" + c->header["count"] + "' of " + c->type + " is not " +
                    std::to_string(bytes) + " bytes",
           false;
  c->payload.assign(file.begin() + static_cast<long>(end + 2), file.end());
  return true;
}
