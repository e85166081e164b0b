#include "runtime/report.h"

#include <mpi.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>

#include "policy/config.h"
#include "runtime/runtime.h"

namespace adacomp {
namespace {

std::time_t g_start_time = 0;
double g_start_wtime = 0;

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20) out += ' ';
    else out += static_cast<char>(c);
  }
  return out + "\"";
}

std::string iso_time(std::time_t t) {
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string range_json(const RankRange& r) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "{\"min\": %.9g, \"mean\": %.9g, \"max\": %.9g}", r.min, r.mean,
                r.max);
  return buf;
}

// Job id from the common schedulers' variables.
std::string job_id() {
  for (const char* var : {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "COBALT_JOBID", "FLUX_JOB_ID",
                          "JOB_ID"})
    if (const char* v = std::getenv(var)) return v;
  return "";
}

std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), {}), out;
  for (char c : raw) out += c ? c : ' ';
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string mpi_library() {
  static char text[1 << 16];
  int len = 0;
  if (PMPI_Get_library_version(text, &len) != MPI_SUCCESS) return "";
  std::string s(text);
  return s.substr(0, s.find_first_of("\n"));
}

}  // namespace

void report_begin() {
  g_start_time = std::time(nullptr);
  g_start_wtime = PMPI_Wtime();
}
double report_start_wtime() { return g_start_wtime; }

bool expand_report_path(const std::string& pattern, std::string* path, std::string* error) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%' || i + 1 == pattern.size()) {
      out += pattern[i];
      continue;
    }
    switch (pattern[++i]) {
      case 'p': out += std::to_string(getpid()); break;
      case 'j': out += job_id().empty() ? "nojob" : job_id(); break;
      case 'h': {
        char host[256] = {0};
        gethostname(host, sizeof host - 1);
        out += host;
        break;
      }
      case '%': out += '%'; break;
      default:
        *error = "ADACOMP_REPORT='" + pattern + "': unknown %" + pattern[i] +
                 " (accepts %p pid, %j job id, %h host, %%)";
        return false;
    }
  }
  // Found now, not after the run: the directory must exist and be writable.
  size_t slash = out.rfind('/');
  std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : out.substr(0, slash);
  if (access(dir.c_str(), W_OK | X_OK) != 0 ||
      (access(out.c_str(), F_OK) == 0 && access(out.c_str(), W_OK) != 0)) {
    *error = "ADACOMP_REPORT: cannot write '" + out + "': " + std::strerror(errno);
    return false;
  }
  *path = out;
  return true;
}

bool write_report(const std::string& path, const ReportData& d, std::string* error) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    *error = "cannot write report '" + path + "': " + std::strerror(errno);
    return false;
  }
  const Config& c = config();
  // Hosts with their ranks, in rank order of first appearance.
  std::vector<std::pair<std::string, std::string>> hosts;
  for (int r = 0; r < d.ranks; ++r) {
    auto it = hosts.begin();
    while (it != hosts.end() && it->first != d.hosts[r]) ++it;
    if (it == hosts.end()) hosts.push_back({d.hosts[r], std::to_string(r)});
    else it->second += ", " + std::to_string(r);
  }
  std::string host_list;
  for (const auto& [name, ranks] : hosts)
    host_list += std::string(host_list.empty() ? "" : ", ") + "{\"name\": " + json_string(name) +
                 ", \"ranks\": [" + ranks + "]}";

  std::fprintf(f, "{\n  \"schema\": %d,\n  \"run\": {\n", kReportSchema);
  std::fprintf(f, "    \"version\": %s,\n    \"mpi_built_for\": %s,\n    \"mpi_library\": %s,\n",
               json_string(ADACOMP_VERSION).c_str(), json_string(ADACOMP_MPI_BUILT_FOR).c_str(),
               json_string(mpi_library()).c_str());
  std::fprintf(f, "    \"command\": %s,\n    \"job_id\": %s,\n    \"ranks\": %d,\n",
               json_string(command_line()).c_str(), json_string(job_id()).c_str(), d.ranks);
  std::fprintf(f, "    \"hosts\": [%s],\n", host_list.c_str());
  std::fprintf(f, "    \"start\": %s,\n    \"end\": %s,\n",
               json_string(iso_time(g_start_time)).c_str(),
               json_string(iso_time(std::time(nullptr))).c_str());
  std::fprintf(f, "    \"wall_seconds\": %s,\n    \"mpi_seconds\": %s\n  },\n",
               range_json(d.wall_seconds).c_str(), range_json(d.mpi_seconds).c_str());
  std::fprintf(f, "  \"settings\": {\"values\": %s, \"sources\": %s},\n",
               json_string(config_fingerprint(c)).c_str(), json_string(c.source).c_str());
  // The link between nodes as the library used it: calibrated, or measured
  // at MPI_Init (the saved-time estimates need it either way), and the
  // route point-to-point took between nodes.
  const LinkModel& link = inter_node_link();
  std::fprintf(f,
               "  \"link\": {\"bandwidth_Bps\": %.9g, \"latency_s\": %.9g, \"calibrated\": %s, "
               "\"source\": \"%s\", \"p2p_between_nodes\": \"%s\"},\n",
               link.bandwidth_Bps, link.latency_s, c.link.known() ? "true" : "false",
               c.link.known() ? "calibrated" : link.known() ? "measured" : "none",
               !job_spans_nodes() ? "none" : p2p_direct_between_nodes() ? "direct" : "framed");
  std::fprintf(f, "  \"operations\": {\n");
  for (size_t i = 0; i < d.ops.size(); ++i) {
    const OpRow& r = d.ops[i];
    std::string fields;
    char cell[96];
    for (int c = 0; c < kOpCounters; ++c) {
      const OpCounterInfo& k = kOpCounterInfo[c];
      if (c == counter_ns_compress) {
        std::snprintf(cell, sizeof cell, "\"ratio\": %.6f, ", r.ratio());
        fields += cell;
      }
      if (k.unit == CounterUnit::count)
        std::snprintf(cell, sizeof cell, "\"%s\": %llu, ", k.key, (unsigned long long)r.counters[c]);
      else
        std::snprintf(cell, sizeof cell, "\"%s\": %.9f, ", k.key, r.counters[c] * 1e-9);
      fields += cell;
    }
    fields.resize(fields.size() - 1);  // the last field's space: a line break follows
    std::fprintf(f,
                 "    \"%s\": {%s\n      \"per_rank\": {\"calls\": %s, \"bytes_wire\": %s, "
                 "\"codec_seconds\": %s}}%s\n",
                 r.key, fields.c_str(), range_json(r.calls_per_rank).c_str(),
                 range_json(r.bytes_wire_per_rank).c_str(),
                 range_json(r.codec_seconds_per_rank).c_str(), i + 1 < d.ops.size() ? "," : "");
  }
  std::fprintf(f, "  },\n  \"mpi_calls\": {\n");
  for (size_t i = 0; i < d.calls.size(); ++i) {
    const CallRow& r = d.calls[i];
    std::string sizes;
    for (const SizeRow& z : r.sizes) {
      char row[128];
      std::snprintf(row, sizeof row, "%s{\"bytes_from\": %llu, \"calls\": %llu, \"seconds\": %.9f}",
                    sizes.empty() ? "" : ", ", (unsigned long long)z.bytes_from,
                    (unsigned long long)z.calls, z.seconds);
      sizes += row;
    }
    std::fprintf(f,
                 "    \"%s\": {\"calls\": %llu, \"seconds\": %.9f, \"per_rank_seconds\": %s,\n"
                 "      \"sizes\": [%s]}%s\n",
                 r.name, (unsigned long long)r.calls, r.seconds,
                 range_json(r.seconds_per_rank).c_str(), sizes.c_str(),
                 i + 1 < d.calls.size() ? "," : "");
  }
  std::fprintf(f, "  }\n}\n");
  if (std::fclose(f) != 0) {
    *error = "cannot write report '" + path + "': " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace adacomp
