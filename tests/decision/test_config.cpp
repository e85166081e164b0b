// Configuration parsing without MPI: defaults, values from the environment
// and from ADACOMP_CONFIG files, which wins, and every error naming the
// variable (or file and line) and what it accepts.
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "decision/config.h"
#include "decision/config_sources.h"
#include "unit.h"

extern char** environ;

using namespace adacomp;

namespace {

std::string g_file;  // ADACOMP_CONFIG of every case: no ./adacomp.conf is read

void clear_environment() {
  std::vector<std::string> keys;
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "ADACOMP_", 8) == 0) keys.emplace_back(*e, std::strcspn(*e, "="));
  for (const std::string& k : keys) unsetenv(k.c_str());
}

// Loads with `file` as the configuration file's text and `env` as the
// ADACOMP_ environment ("KEY=VALUE" each).
bool load(const std::string& file, std::vector<std::string> env, Config* c, std::string* error) {
  clear_environment();
  std::ofstream(g_file) << file;
  setenv("ADACOMP_CONFIG", g_file.c_str(), 1);
  for (const std::string& kv : env) {
    const size_t eq = kv.find('=');
    setenv(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str(), 1);
  }
  error->clear();
  return load_config(c, error);
}

// The load fails and its message holds every one of `parts`.
bool fails_with(const std::string& file, std::vector<std::string> env,
                std::vector<std::string> parts) {
  Config c;
  std::string error;
  if (load(file, env, &c, &error)) return false;
  for (const std::string& p : parts)
    if (error.find(p) == std::string::npos) {
      std::fprintf(stderr, "error '%s' lacks '%s'\n", error.c_str(), p.c_str());
      return false;
    }
  return true;
}

void defaults_and_values() {
  Config c;
  std::string error;
  EXPECT(load("", {}, &c, &error) && error.empty());
  EXPECT(c.mode == Mode::adaptive_pipelined && c.model && c.lossless_auto && c.lossy_auto &&
         !c.lossy_enabled() && !c.nonblocking && c.threads == 1);
  EXPECT(load("", {"ADACOMP_NONBLOCKING=on"}, &c, &error) && c.nonblocking);
  EXPECT(load("", {"ADACOMP_THREADS=64"}, &c, &error) && c.threads == 64);
  EXPECT(c.threshold_lossless == 64 * 1024 && c.threshold_lossy == 1024 * 1024);
  EXPECT(load(
      "",
      {"ADACOMP_MODE=lossless", "ADACOMP_THRESHOLD_LOSSLESS=2K", "ADACOMP_LOSSLESS_CODEC=bitplane",
       "ADACOMP_ZSTD_LEVEL=-7", "ADACOMP_XOR_MEMORY=3M", "ADACOMP_NODE_MAP=1,2,3"},
      &c, &error));
  EXPECT(c.mode == Mode::lossless && c.threshold_lossless == 2048 && !c.lossless_auto &&
         c.lossless_codec == CodecId::bitplane && c.zstd_level == -7 &&
         c.interstep_memory == 3u << 20 && c.node_map == std::vector<int>({1, 2, 3}));
  // Modes by number; every lossy codec by name; tiers kept ordered.
  EXPECT(load("", {"ADACOMP_MODE=4"}, &c, &error) && c.mode == Mode::adaptive_pipelined);
  for (const char* name : {"quant", "quant_fast", "quant_zstd", "zfp", "truncate", "to_f32"}) {
    EXPECT(load("", {std::string("ADACOMP_LOSSY_CODEC=") + name}, &c, &error));
    EXPECT(c.lossy_codec == find_codec(name)->id && !c.lossy_auto);
  }
  // auto: the adaptive model chooses among candidates (decision/tier.h).
  EXPECT(load("", {"ADACOMP_LOSSY_CODEC=auto", "ADACOMP_LOSSLESS_CODEC=auto"}, &c, &error) &&
         c.lossy_auto && c.lossless_auto);
  EXPECT(load("", {"ADACOMP_THRESHOLD_LOSSLESS=8M"}, &c, &error));
  EXPECT(c.threshold_lossy == 8u << 20 && c.threshold_pipeline == 8u << 20);
  EXPECT(load("", {"ADACOMP_THRESHOLD_LOSSLESS=never"}, &c, &error) &&
         c.threshold_lossless == kNever && !c.threshold_lossless_auto);
  // T1 unset is the link's to lower at MPI_Init (decision/model.h); the
  // point-to-point floor is its own setting.
  EXPECT(load("", {}, &c, &error) && c.threshold_lossless_auto &&
         c.threshold_lossless == 64u << 10 && c.threshold_p2p == 64u << 10);
  EXPECT(load("", {"ADACOMP_THRESHOLD_P2P=128K"}, &c, &error) && c.threshold_p2p == 128u << 10 &&
         c.threshold_lossless_auto);
  // T2 places the lossy tier only: without a bound it does not raise T3.
  EXPECT(load("", {"ADACOMP_THRESHOLD_PIPELINE=256K"}, &c, &error) &&
         c.threshold_pipeline == 256u << 10);
  EXPECT(load("", {"ADACOMP_THRESHOLD_PIPELINE=256K", "ADACOMP_ERROR_BOUND=1e-3"}, &c, &error) &&
         c.threshold_pipeline == 1u << 20);
  EXPECT(load("", {"ADACOMP_ROOT=/opt/adacomp"}, &c, &error));  // module systems' variables
}

void files() {
  Config c;
  std::string error;
  EXPECT(load("# comment\n  ADACOMP_MODE = lossy  # trailing\nADACOMP_ERROR_BOUND=1e-3\n\n", {}, &c,
              &error));
  EXPECT(c.mode == Mode::lossy && c.abs_error_bound == 1e-3);
  EXPECT(c.source.find("ADACOMP_CONFIG") != std::string::npos);
  // The environment overrides the file key by key.
  EXPECT(load("ADACOMP_MODE=raw\nADACOMP_ZSTD_LEVEL=5\n", {"ADACOMP_MODE=lossless"}, &c, &error));
  EXPECT(c.mode == Mode::lossless && c.zstd_level == 5);
  EXPECT(fails_with("ADACOMP_MODE=raw\nnonsense\n", {}, {g_file + ":2", "KEY=VALUE"}));
  EXPECT(fails_with("ADACOMP_MODES=raw\n", {}, {g_file, "ADACOMP_MODES", "ADACOMP_MODE?"}));
  EXPECT(fails_with("ADACOMP_MODE=fast\n", {}, {"ADACOMP_MODE='fast' is invalid", "raw|lossless"}));
  // A file or environment for another MPI is refused, naming it and both
  // MPIs; the one for this build's MPI is read.
  int accepted = 0;
  for (const char* mpi : {"openmpi", "openmpi5", "mpich", "impi", "mpiabi"}) {
    if (load(std::string("ADACOMP_MPI = ") + mpi + "\n", {}, &c, &error)) {
      ++accepted;
      continue;
    }
    EXPECT(fails_with(std::string("ADACOMP_MPI = ") + mpi + "\n", {},
                      {g_file + " holds settings for " + mpi_display_name(mpi),
                       "this library is built for",
                       std::string("use the ") + mpi_display_name(mpi) + " build (adacomp-" + mpi + ")"}));
    EXPECT(fails_with("", {std::string("ADACOMP_MPI=") + mpi}, {"the environment holds"}));
  }
  EXPECT(accepted == 1);
  EXPECT(fails_with("ADACOMP_MPI = lam\n", {}, {"ADACOMP_MPI='lam' is invalid", "openmpi|openmpi5|mpich|impi|mpiabi"}));
  clear_environment();
  setenv("ADACOMP_CONFIG", "/nonexistent/adacomp.conf", 1);
  EXPECT(!load_config(&c, &error) && error.find("cannot open") != std::string::npos);
  setenv("ADACOMP_CONFIG", "/", 1);
  EXPECT(!load_config(&c, &error) && error.find("is a directory") != std::string::npos);
}

void errors() {
  // Each names the variable, the value and what it accepts.
  const std::pair<const char*, const char*> bad[] = {
      {"ADACOMP_MODE=fast", "raw|lossless|lossy|adaptive|pipelined"},
      {"ADACOMP_THRESHOLD_LOSSY=-1", "byte count"},
      {"ADACOMP_THRESHOLD_PIPELINE=12X", "byte count"},
      {"ADACOMP_THRESHOLD_P2P=fast", "byte count"},
      {"ADACOMP_PIPELINE_CHUNKS=0", "1 to 1024"},
      {"ADACOMP_PIPELINE_CHUNK_BYTES=1K", "at least 4K"},
      {"ADACOMP_LOSSLESS_CODEC=quant", "auto|fpc"},
      {"ADACOMP_LOSSLESS_CODEC=stored", "auto|fpc"},
      {"ADACOMP_LOSSY_CODEC=zstd", "auto|quant|quant_fast|"},
      {"ADACOMP_LOSSY_CODEC=AUTO", "auto|quant|"},
      {"ADACOMP_LOSSY_CODEC=", "auto|quant|"},
      {"ADACOMP_LOSSLESS_CODEC=automatic", "auto|fpc"},
      {"ADACOMP_ERROR_BOUND=0", "positive"},
      {"ADACOMP_REL_ERROR_BOUND=1", "(0, 1)"},
      {"ADACOMP_ZSTD_LEVEL=23", "-7 to 22"},
      {"ADACOMP_THREADS=0", "1 to 64"},
      {"ADACOMP_THREADS=65", "1 to 64"},
      {"ADACOMP_THREADS=2x", "1 to 64"},
      {"ADACOMP_MODEL=yes", "on|off"},
      {"ADACOMP_LINK_BANDWIDTH=fast", "bytes per second"},
      {"ADACOMP_HIERARCHY=tree", "auto|rails"},
      {"ADACOMP_NODE_MAP=1,,2", "comma-separated"},
      {"ADACOMP_NODE_MAP=2,", "comma-separated"},
      {"ADACOMP_XOR=1", "on|off"},
      {"ADACOMP_NONBLOCKING=yes", "on|off"},
      {"ADACOMP_VERBOSE=3", "0, 1 or 2"},
      {"ADACOMP_INIT_TIMEOUT=0", "more than 0"},
      {"ADACOMP_FAULT=all", "corrupt-frames|none"},
  };
  for (const auto& [kv, accepts] : bad) {
    const std::string s = kv, key = s.substr(0, s.find('='));
    EXPECT(fails_with("", {s}, {key + "='" + s.substr(s.find('=') + 1) + "' is invalid", accepts}));
  }
  EXPECT(fails_with("", {"ADACOMP_MDOE=raw"},
                    {"environment variable ADACOMP_MDOE", "did you mean ADACOMP_MODE?"}));
  EXPECT(fails_with("", {"ADACOMP_MODE=lossy"}, {"ADACOMP_MODE=lossy needs an error bound"}));
  EXPECT(fails_with("", {"ADACOMP_ERROR_BOUND=1", "ADACOMP_REL_ERROR_BOUND=0.1"}, {"both set"}));
  // A bound with a mode that never uses one: both variables named.
  for (const char* bound : {"ADACOMP_ERROR_BOUND", "ADACOMP_REL_ERROR_BOUND"})
    EXPECT(fails_with("ADACOMP_MODE = lossless\n", {std::string(bound) + "=1e-4"},
                      {std::string("ADACOMP_MODE=lossless and ") + bound + " are both set"}));
}

void fingerprint() {
  Config a, b;
  std::string error;
  EXPECT(load("", {}, &a, &error) &&
         load("", {"ADACOMP_XOR=off", "ADACOMP_VERBOSE=2", "ADACOMP_THREADS=4"}, &b, &error));
  EXPECT(config_fingerprint(a) == config_fingerprint(b));  // sender-only and local settings
  EXPECT(load("", {"ADACOMP_ZSTD_LEVEL=3"}, &b, &error));
  EXPECT(config_fingerprint(a) != config_fingerprint(b));
  // A named codec is another configuration than auto, whose first candidate it is.
  EXPECT(load("", {"ADACOMP_LOSSY_CODEC=quant"}, &b, &error));
  EXPECT(config_fingerprint(a) != config_fingerprint(b));
  EXPECT(load("", {"ADACOMP_LOSSLESS_CODEC=zstd"}, &b, &error));
  EXPECT(config_fingerprint(a) != config_fingerprint(b));
  // Which communicators have point-to-point state, and the probe's figure.
  EXPECT(load("", {"ADACOMP_P2P_ROUTE=direct"}, &b, &error));
  EXPECT(config_fingerprint(a) != config_fingerprint(b));
  EXPECT(load("", {"ADACOMP_LINK_PROBE_OUTLIER=0:1e9"}, &b, &error));
  EXPECT(config_fingerprint(a) != config_fingerprint(b));
}

// The probe's test hook: NODE:FACTOR or none; errors name the variable.
void probe_outlier() {
  Config c;
  std::string error;
  EXPECT(load("", {}, &c, &error) && c.probe_outlier_node == -1 && c.probe_outlier_factor == 1);
  EXPECT(load("", {"ADACOMP_LINK_PROBE_OUTLIER=2:1e-6"}, &c, &error) && c.probe_outlier_node == 2 &&
         c.probe_outlier_factor == 1e-6);
  EXPECT(load("", {"ADACOMP_LINK_PROBE_OUTLIER=none"}, &c, &error) && c.probe_outlier_node == -1);
  for (const char* bad : {"2", "2:", ":3", "-1:2", "1:0", "1:-2", "x:2", "1:2x"})
    EXPECT(fails_with("", {std::string("ADACOMP_LINK_PROBE_OUTLIER=") + bad},
                      {"ADACOMP_LINK_PROBE_OUTLIER", "NODE:FACTOR"}));
}

}  // namespace

int main() {
  char dir[] = "/tmp/adacomp_config_test.XXXXXX";
  if (!mkdtemp(dir)) return 2;
  g_file = std::string(dir) + "/adacomp.conf";
  defaults_and_values();
  files();
  errors();
  fingerprint();
  probe_outlier();
  unlink(g_file.c_str());
  rmdir(dir);
  return unit::finish("decision config");
}
