// Reads arbitrary bytes as adacomp-codecs reads a capture file
// (bench/codecs/capture_file.h): read_capture must refuse what does not
// hold, and what it accepts must: every required header line, a known
// type, and a payload of exactly count elements that is the file's tail.
#include <cstdlib>
#include <string>
#include <vector>

#include "capture_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<uint8_t> file(data, data + size);
  Capture c;
  std::string error;
  if (!read_capture(file, &c, &error)) {
    if (error.empty()) std::abort();  // a refusal always says why
    return 0;
  }
  const size_t esize = c.type == "f64" ? 8 : c.type == "f32" ? 4 : c.type == "bytes" ? 1 : 0;
  if (esize == 0 || c.payload.size() > size ||
      std::strtoull(c.header["count"].c_str(), nullptr, 10) * esize != c.payload.size() ||
      !std::equal(c.payload.begin(), c.payload.end(), file.end() - c.payload.size()))
    std::abort();
  return 0;
}
