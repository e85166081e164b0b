// Run-time configuration: read once at MPI_Init from ADACOMP_* environment
// variables, which override a key=value file (ADACOMP_CONFIG, default
// ./adacomp.conf). Every value is validated; nothing falls back silently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "codec/codec.h"

namespace adacomp {

enum class Mode : int { raw = 0, lossless = 1, lossy = 2, adaptive = 3, pipelined = 4 };

struct Config {
  Mode mode = Mode::adaptive;
  size_t threshold_lossless = 64 * 1024;  // bytes; below it calls pass through
  CodecId lossless_codec = CodecId::zstd;
  int zstd_level = 1;
  int verbose = 0;
  std::string report_path;  // JSON statistics at MPI_Finalize when non-empty
  std::string source;       // where the file part came from, for messages
  // Test-only fault injection: corrupt outgoing frames so that the error
  // path can be exercised end to end. Not part of the agreed configuration.
  bool fault_corrupt_frames = false;
};

// Parses file then environment. On an invalid value returns false and fills
// `error` with a message naming the variable and what it accepts.
bool load_config(Config* out, std::string* error);

// Canonical text of every setting that must agree across ranks.
std::string config_fingerprint(const Config& c);

const char* mode_name(Mode m);

}  // namespace adacomp
