#include "decision/config.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <functional>
#include <sstream>
#include <vector>

#include "decision/config_sources.h"
#include "decision/config_values.h"

namespace adacomp {
namespace {

// ADACOMP_LINK_PROBE_OUTLIER: "none", or NODE:FACTOR (a node index, a
// positive factor).
bool parse_probe_outlier(const std::string& v, Config* c) {
  c->probe_outlier_node = -1;
  c->probe_outlier_factor = 1;
  if (v == "none") return true;
  const size_t colon = v.find(':');
  double factor = 0;
  return colon != std::string::npos &&
         parse_int(v.substr(0, colon), 0, 1 << 30, &c->probe_outlier_node) &&
         parse_positive(v.substr(colon + 1), &factor) && factor > 0 &&
         (c->probe_outlier_factor = factor, true);
}

// One row per setting: the key, what it accepts (for the error message),
// and how it is applied.
struct Setting {
  const char* key;
  const char* default_text;  // the report's value of a setting nobody set
  const char* accepts;
  std::function<bool(const std::string&, Config&)> apply;
};

const Setting kSettings[] = {
    {"ADACOMP_MODE", "pipelined", "raw|lossless|lossy|adaptive|pipelined (or 0 to 4)",
     [](const std::string& v, Config& c) {
       return parse_choice(v,
                           {{"raw", Mode::raw},
                            {"0", Mode::raw},
                            {"lossless", Mode::lossless},
                            {"1", Mode::lossless},
                            {"lossy", Mode::lossy},
                            {"2", Mode::lossy},
                            {"adaptive", Mode::adaptive},
                            {"3", Mode::adaptive},
                            {"pipelined", Mode::adaptive_pipelined},
                            {"4", Mode::adaptive_pipelined}},
                           &c.mode);
     }},
    {"ADACOMP_THRESHOLD_LOSSLESS", "64K; 8K across a link below 6.4 Gbit/s",
     "a byte count with optional K, M or G suffix, or never",
     [](const std::string& v, Config& c) {
       c.threshold_lossless_auto = false;
       return parse_threshold(v, &c.threshold_lossless);
     }},
    {"ADACOMP_THRESHOLD_P2P", "64K", "a byte count with optional K, M or G suffix, or never",
     [](const std::string& v, Config& c) { return parse_threshold(v, &c.threshold_p2p); }},
    {"ADACOMP_THRESHOLD_LOSSY", "1M", "a byte count with optional K, M or G suffix, or never",
     [](const std::string& v, Config& c) { return parse_threshold(v, &c.threshold_lossy); }},
    {"ADACOMP_THRESHOLD_PIPELINE", "256K", "a byte count with optional K, M or G suffix, or never",
     [](const std::string& v, Config& c) { return parse_threshold(v, &c.threshold_pipeline); }},
    {"ADACOMP_PIPELINE_CHUNKS", "4", "an integer from 1 to 1024",
     [](const std::string& v, Config& c) {
       c.pipeline_eager = false;  // a count replaces the default chunk size
       c.pipeline_chunk_bytes = 0;
       return parse_int(v, 1, 1024, &c.pipeline_chunks);
     }},
    {"ADACOMP_PIPELINE_CHUNK_BYTES", "eager",
     "eager, or a byte count of at least 4K (K, M or G suffix)",
     [](const std::string& v, Config& c) {
       c.pipeline_eager = v == "eager";
       if (c.pipeline_eager) return true;
       return parse_bytes(v, &c.pipeline_chunk_bytes) && c.pipeline_chunk_bytes >= 4096;
     }},
    {"ADACOMP_LOSSLESS_CODEC", "auto", "auto|fpc|bitplane|blosc|zstd|lz4",
     [](const std::string& v, Config& c) {
       c.lossless_auto = v == "auto";
       if (c.lossless_auto) return true;
       const Codec* codec = find_codec(v);
       if (!codec || codec->lossy || codec->id == CodecId::stored) return false;
       c.lossless_codec = codec->id;
       return true;
     }},
    {"ADACOMP_LOSSY_CODEC", "auto", "auto|quant|quant_fast|quant_zstd|zfp|truncate|to_f32",
     [](const std::string& v, Config& c) {
       using C = CodecId;
       c.lossy_auto = v == "auto";
       if (c.lossy_auto) return true;
       return parse_choice(v,
                           {{"quant", C::quant},
                            {"quant_fast", C::quant_fast},
                            {"quant_zstd", C::quant_zstd},
                            {"zfp", C::zfp},
                            {"truncate", C::truncate},
                            {"to_f32", C::to_f32}},
                           &c.lossy_codec);
     }},
    {"ADACOMP_REDUCE_ON_CODES", "on", "on|off",
     [](const std::string& v, Config& c) { return parse_on_off(v, &c.reduce_on_codes); }},
    {"ADACOMP_LOSSY_CHECK", "off", "on|off",
     [](const std::string& v, Config& c) { return parse_on_off(v, &c.lossy_check); }},
    {"ADACOMP_ERROR_BOUND", "none (lossless only)", "a positive absolute error bound, e.g. 1e-4",
     [](const std::string& v, Config& c) {
       return parse_positive(v, &c.abs_error_bound) && c.abs_error_bound > 0;
     }},
    {"ADACOMP_REL_ERROR_BOUND", "none (lossless only)",
     "a bound relative to the value range, in (0, 1)",
     [](const std::string& v, Config& c) {
       return parse_positive(v, &c.rel_error_bound) && c.rel_error_bound > 0 &&
              c.rel_error_bound < 1;
     }},
    {"ADACOMP_LOSSY_RULES", "none (the job's bound applies to every call it can)",
     "rules separated by ';' (docs/lossy-scopes.md), or @FILE holding one a line",
     [](const std::string& v, Config& c) { return read_rules_text(v, &c.lossy_rules.text); }},
    {"ADACOMP_MPI", "this build's",
     "openmpi|openmpi5|mpich|impi|mpiabi (the MPI whose settings these are, as "
     "adacomp-calibrate writes)",
     [](const std::string& v, Config&) { return mpi_display_name(v) != nullptr; }},
    {"ADACOMP_ZSTD_LEVEL", "1", "an integer from -7 to 22",
     [](const std::string& v, Config& c) { return parse_int(v, -7, 22, &c.zstd_level); }},
    {"ADACOMP_THREADS", "1", "an integer from 1 to 64 (threads coding one message)",
     [](const std::string& v, Config& c) { return parse_int(v, 1, 64, &c.threads); }},
    {"ADACOMP_MODEL", "on", "on|off",
     [](const std::string& v, Config& c) { return parse_on_off(v, &c.model); }},
    {"ADACOMP_LINK_BANDWIDTH", "measured at MPI_Init",
     "bytes per second (written by adacomp-calibrate)",
     [](const std::string& v, Config& c) { return parse_positive(v, &c.link.bandwidth_Bps); }},
    {"ADACOMP_LINK_LATENCY", "measured at MPI_Init", "seconds (written by adacomp-calibrate)",
     [](const std::string& v, Config& c) { return parse_positive(v, &c.link.latency_s); }},
    {"ADACOMP_INTRA_BANDWIDTH", "unknown",
     "bytes per second inside a node (written by adacomp-calibrate)",
     [](const std::string& v, Config& c) { return parse_positive(v, &c.intra.bandwidth_Bps); }},
    {"ADACOMP_INTRA_LATENCY", "unknown", "seconds inside a node (written by adacomp-calibrate)",
     [](const std::string& v, Config& c) { return parse_positive(v, &c.intra.latency_s); }},
    {"ADACOMP_HIERARCHY", "auto", "auto|rails|leaders|flat",
     [](const std::string& v, Config& c) {
       using H = Hierarchy;
       return parse_choice(v,
                           {{"auto", H::automatic},
                            {"rails", H::rails},
                            {"leaders", H::leaders},
                            {"flat", H::flat}},
                           &c.hierarchy);
     }},
    {"ADACOMP_P2P_ROUTE", "auto", "auto|direct|framed",
     [](const std::string& v, Config& c) {
       using R = P2PRoute;
       return parse_choice(
           v, {{"auto", R::automatic}, {"direct", R::direct}, {"framed", R::framed}}, &c.p2p_route);
     }},
    {"ADACOMP_NODE_MAP", "MPI's shared-memory split",
     "comma-separated ranks per node, e.g. 1,2,3 (consecutive world ranks)",
     [](const std::string& v, Config& c) { return parse_node_map(v, &c.node_map); }},
    {"ADACOMP_INTERSTEP", "on", "on|off",
     [](const std::string& v, Config& c) { return parse_on_off(v, &c.interstep); }},
    {"ADACOMP_INTERSTEP_MEMORY", "64M", "a byte count with optional K, M or G suffix",
     [](const std::string& v, Config& c) { return parse_bytes(v, &c.interstep_memory); }},
    {"ADACOMP_NONBLOCKING", "off", "on|off",
     [](const std::string& v, Config& c) { return parse_on_off(v, &c.nonblocking); }},
    {"ADACOMP_PROGRESS", "poll", "poll|thread",
     [](const std::string& v, Config& c) {
       return parse_choice(v, {{"poll", false}, {"thread", true}}, &c.progress_thread);
     }},
    {"ADACOMP_INIT_TIMEOUT", "60", "seconds, more than 0",
     [](const std::string& v, Config& c) {
       return parse_positive(v, &c.init_timeout_s) && c.init_timeout_s > 0;
     }},
    {"ADACOMP_VERBOSE", "0", "0, 1 or 2",
     [](const std::string& v, Config& c) { return parse_int(v, 0, 2, &c.verbose); }},
    {"ADACOMP_REPORT", "none", "a file path",
     [](const std::string& v, Config& c) {
       c.report_path = v;
       return !v.empty();
     }},
    {"ADACOMP_REPORT_SITE_DEPTH", "1", "an integer from 1 to 8 (stack frames per call site)",
     [](const std::string& v, Config& c) {
       return parse_int(v, 1, kMaxSiteDepth, &c.report_site_depth);
     }},
    {"ADACOMP_ADVISE", "off", "on|off (each call site's payloads sampled and coded: the report's advice)",
     [](const std::string& v, Config& c) { return parse_on_off(v, &c.advise); }},
    {"ADACOMP_CAPTURE", "none", "a directory (sampled payloads written there, one file each)",
     [](const std::string& v, Config& c) {
       c.capture_dir = v;
       return !v.empty();
     }},
    {"ADACOMP_SAMPLE_COUNT", "4", "an integer from 1 to 16 (payloads sampled per call site)",
     [](const std::string& v, Config& c) { return parse_int(v, 1, 16, &c.sample_count); }},
    {"ADACOMP_SAMPLE_BYTES", "1M", "a byte count from 1K to 64M (bytes of one sample)",
     [](const std::string& v, Config& c) {
       return parse_bytes(v, &c.sample_bytes) && c.sample_bytes >= 1024 &&
              c.sample_bytes <= (size_t{64} << 20);
     }},
    {"ADACOMP_LINK_PROBE_OUTLIER", "none",
     "NODE:FACTOR (tests: node NODE's leader scales its link probe's bandwidth by FACTOR)",
     [](const std::string& v, Config& c) { return parse_probe_outlier(v, &c); }},
    {"ADACOMP_FAULT", "none", "corrupt-frames|none",
     [](const std::string& v, Config& c) {
       c.fault_corrupt_frames = v == "corrupt-frames";
       return v == "corrupt-frames" || v == "none";
     }},
};

// Former names, still accepted (docs/user-guide.md, man adacomp.conf): the feature
// they set is called inter-step coding everywhere else.
const std::pair<const char*, const char*> kAliases[] = {
    {"ADACOMP_XOR", "ADACOMP_INTERSTEP"}, {"ADACOMP_XOR_MEMORY", "ADACOMP_INTERSTEP_MEMORY"}};

const Setting* find_setting(const std::string& key) {
  for (const auto& [former, now] : kAliases)
    if (key == former) return find_setting(now);
  for (const Setting& s : kSettings)
    if (key == s.key) return &s;
  return nullptr;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
      diag = up;
    }
  }
  return row[b.size()];
}

// "unknown ... KEY; did you mean ADACOMP_X?" (the closest setting, if close).
std::string unknown_key(const std::string& what, const std::string& key) {
  const Setting* best = nullptr;
  size_t best_d = 0;
  for (const Setting& s : kSettings) {
    size_t d = edit_distance(key, s.key);
    if (!best || d < best_d) best = &s, best_d = d;
  }
  std::string msg = "unknown " + what + " " + key;
  if (best && best_d <= std::max<size_t>(3, key.size() / 3))
    msg += "; did you mean " + std::string(best->key) + "?";
  return msg + " (every setting: man adacomp.conf)";
}

// One source's keys, for the banner: "ADACOMP_CONFIG a.conf: ADACOMP_MODE ...".
std::string describe(const std::string& source, const Settings& s) {
  std::string out = source + ":";
  for (const auto& kv : s) out += " " + kv.first;
  return out;
}

}  // namespace

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::raw:
      return "raw";
    case Mode::lossless:
      return "lossless";
    case Mode::lossy:
      return "lossy";
    case Mode::adaptive:
      return "adaptive";
    case Mode::adaptive_pipelined:
      return "pipelined";
  }
  return "?";
}

bool apply_setting(const std::string& key, const std::string& value, Config* c,
                   std::string* error, const std::string& shown_as) {
  const Setting* setting = find_setting(key);
  if (!setting) {
    *error = unknown_key("setting", key);
    return false;
  }
  if (setting->apply(value, *c)) return true;
  *error = (shown_as.empty() ? key : shown_as) + "='" + value + "' is invalid; accepts " +
           setting->accepts;
  return false;
}

bool load_config(Config* out, std::string* error) {
  Config c;
  std::vector<Source> sources;
  if (!read_sources(&sources, error)) return false;
  // Every key known (a misspelt one is an error, not a setting silently
  // ignored); later sources override earlier ones key by key.
  Settings s;
  std::map<std::string, std::string> origin;  // canonical key: environment or file path
  for (const Source& source : sources) {
    for (const auto& kv : source.settings)
      if (!find_setting(kv.first)) {
        *error = source.path.empty() ? unknown_key("environment variable", kv.first)
                                     : source.path + ": " + unknown_key("setting", kv.first);
        return false;
      }
    for (const auto& kv : source.settings) {
      s[kv.first] = kv.second;
      origin[find_setting(kv.first)->key] = source.path.empty() ? "environment" : source.path;
    }
    c.source += (c.source.empty() ? "" : "; ") + describe(source.label, source.settings);
  }
  if (sources.empty()) c.source = "defaults";

  for (const auto& [key, value] : s)
    if (!apply_setting(key, value, &c, error)) return false;
  for (const Setting& setting : kSettings) {
    const auto from = origin.find(setting.key);
    if (from == origin.end()) {
      c.settings.push_back({setting.key, setting.default_text, "default"});
      continue;
    }
    // The value as given, under whichever name (a former one included).
    std::string value;
    for (const auto& [key, v] : s)
      if (find_setting(key) == &setting) value = v;
    c.settings.push_back({setting.key, value, from->second});
  }
  if (c.abs_error_bound > 0 && c.rel_error_bound > 0) {
    *error = "ADACOMP_ERROR_BOUND and ADACOMP_REL_ERROR_BOUND are both set; set one";
    return false;
  }
  if (c.mode == Mode::lossy && !c.lossy_enabled()) {
    *error =
        "ADACOMP_MODE=lossy needs an error bound: set ADACOMP_ERROR_BOUND or "
        "ADACOMP_REL_ERROR_BOUND";
    return false;
  }
  // A bound the user believes applies, and a mode that never applies one.
  if (c.mode == Mode::lossless && c.lossy_enabled()) {
    const std::string bound =
        c.abs_error_bound > 0 ? "ADACOMP_ERROR_BOUND" : "ADACOMP_REL_ERROR_BOUND";
    *error = "ADACOMP_MODE=lossless and " + bound + " are both set: the lossless mode never " +
             "uses an error bound; unset " + bound + ", or set ADACOMP_MODE=adaptive or lossy";
    return false;
  }
  // Tiers are ordered: raising T1 alone also raises the tiers above it.
  // Without a bound there is no lossy tier, and T2 places nothing (a
  // calibration without one writes none).
  if (c.threshold_lossy < c.threshold_lossless) c.threshold_lossy = c.threshold_lossless;
  const size_t below_pipeline = c.lossy_enabled() ? c.threshold_lossy : c.threshold_lossless;
  if (c.threshold_pipeline < below_pipeline) c.threshold_pipeline = below_pipeline;
  *out = c;
  return true;
}

std::string config_fingerprint(const Config& c) {
  std::ostringstream f;
  f.precision(17);
  f << "mode=" << mode_name(c.mode) << ";t=" << c.threshold_lossless << "," << c.threshold_lossy
    << "," << c.threshold_pipeline << ";chunks=" << c.pipeline_chunks << ","
    << c.pipeline_chunk_bytes << "," << c.pipeline_eager
    << ";lossless=" << (c.lossless_auto ? -1 : int(c.lossless_codec))
    << ";lossy=" << (c.lossy_auto ? -1 : int(c.lossy_codec)) << ";eb=" << c.abs_error_bound << ","
    << c.rel_error_bound << ";rules=" << c.lossy_rules.text << ";codes=" << c.reduce_on_codes << ";check=" << c.lossy_check << ";zstd=" << c.zstd_level
    << ";model=" << c.model << ";link=" << c.link.bandwidth_Bps << "," << c.link.latency_s
    << ";intra=" << c.intra.bandwidth_Bps << "," << c.intra.latency_s
    << ";hier=" << int(c.hierarchy) << ";nonblocking=" << c.nonblocking
    << ";route=" << int(c.p2p_route) << ";outlier=" << c.probe_outlier_node << ","
    << c.probe_outlier_factor << ";nodes=";
  for (int n : c.node_map) f << n << ",";
  return f.str();
}

}  // namespace adacomp
