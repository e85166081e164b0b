#include "report/report.h"

#include <mpi.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>

#include "report/advice.h"
#include "decision/config.h"
#include "decision/plan.h"
#include "runtime/link_check.h"
#include "runtime/runtime.h"

namespace adacomp {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += static_cast<char>(c);
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20)
      out += ' ';
    else
      out += static_cast<char>(c);
  }
  return out + "\"";
}

// A JSON number, or null for NaN (unknown).
std::string json_number(double v) {
  if (std::isnan(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

namespace {

std::time_t g_start_time = 0;
double g_start_wtime = 0;


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


// One operation's counters as the "operations" entries have them.
std::string op_fields(const OpRow& r, const LinkFigures& link) {
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
  return fields + "\"saved_s\": " + json_number(saved_seconds(link, r));
}

// What the model settled on for `op`, by size class.
std::string settled_json(const ReportData& d, const char* op) {
  std::string out;
  for (const Settled& s : d.settled) {
    if (std::strcmp(op_name(s.op), op) != 0) continue;
    out += std::string(out.empty() ? "" : ", ") +
           "{\"size_class\": " + json_string(std::to_string(s.class_bytes)) +
           ", \"codec\": " + json_string(s.codec) + ", \"path\": " + json_string(s.path) + "}";
  }
  return "[" + out + "]";
}

// Mean and coefficient of variation (stddev / mean) over ranks.
double cov(const std::vector<RankRow>& rows, double RankRow::*field) {
  double sum = 0, sq = 0;
  for (const RankRow& r : rows) sum += r.*field;
  const double mean = rows.empty() ? 0 : sum / rows.size();
  for (const RankRow& r : rows) sq += (r.*field - mean) * (r.*field - mean);
  return mean == 0 || std::isnan(mean) ? 0 : std::sqrt(sq / rows.size()) / mean;
}

void write_verdict(FILE* f, const ReportData& d) {
  const Verdict v = judge(d);
  std::fprintf(f,
               "  \"verdict\": {\"saved_s\": %s, \"mpi_s\": %s, \"wall_s\": %s, "
               "\"share_of_run\": %s, \"reason\": \"%s\",\n    \"text\": %s,\n"
               "    \"next_step\": %s},\n",
               json_number(v.saved_s).c_str(), json_number(v.mpi_s).c_str(), json_number(v.wall_s).c_str(),
               json_number(v.wall_s > 0 ? v.saved_s / v.wall_s : NAN).c_str(), v.reason,
               json_string(v.text).c_str(), json_string(v.next_step).c_str());
  // Every call passed through, by the plan's reason (decision/plan.h).
  std::fprintf(f, "  \"passes\": {");
  for (int p = 0; p < kPassReasons; ++p)
    std::fprintf(f, "%s\"%s\": %llu", p ? ", " : "", pass_key(static_cast<PassReason>(p)),
                 static_cast<unsigned long long>(d.passes[p]));
  std::fprintf(f, "},\n");
}

void write_settings(FILE* f) {
  const Config& c = config();
  std::fprintf(f, "  \"settings\": [\n");
  for (size_t i = 0; i < c.settings.size(); ++i) {
    const SettingValue& s = c.settings[i];
    std::fprintf(f, "    {\"key\": %s, \"value\": %s, \"source\": %s}%s\n",
                 json_string(s.key).c_str(), json_string(s.value).c_str(),
                 json_string(s.source).c_str(), i + 1 < c.settings.size() ? "," : "");
  }
  std::fprintf(f, "  ],\n  \"settings_sources\": %s,\n", json_string(c.source).c_str());
}

// A lossy site's certificate (docs/lossy-scopes.md, "Certificates"), or "".
std::string certificate_json(const SiteRow& s) {
  if (!s.lossy) return "";
  const LossyCertificate& c = s.certificate;
  char text[400];
  std::snprintf(text, sizeof text,
                ", \"lossy_calls\": %llu, \"certificate\": {\"bound_abs\": %.17g, "
                "\"bound_rel\": %s, \"range\": [%.17g, %.17g], \"proven_abs\": %.17g, "
                "\"measured_abs\": %s, \"holds\": %s}",
                (unsigned long long)s.lossy, c.in_force,
                c.rel > 0 ? json_number(c.rel).c_str() : "null", c.lo, c.hi, c.proven,
                c.measured < 0                ? "null"
                : std::isfinite(c.measured) ? json_number(c.measured).c_str()
                                            : "\"inf\"",
                c.holds() ? "true" : "false");
  return text;
}

void write_sites(FILE* f, const ReportData& d) {
  std::fprintf(f, "  \"sites\": [");
  for (size_t i = 0; i < d.sites.size(); ++i) {
    const SiteRow& s = d.sites[i];
    // With a lossy site's certificate and the advisor's figures
    // (ADACOMP_ADVISE) inside the object.
    std::fprintf(f,
                 "%s\n    {\"site\": %s, \"call\": %s, \"calls\": %llu, \"time_s\": %.9f, "
                 "\"bytes\": %llu, \"wire_bytes\": %llu, \"saved_s\": %s%s%s}",
                 i ? "," : "", json_string(s.site).c_str(), json_string(s.call).c_str(),
                 (unsigned long long)s.calls, s.ns * 1e-9, (unsigned long long)s.bytes,
                 (unsigned long long)s.wire,
                 json_number(saved_seconds(d.link, s.raw, s.wire, s.codec_ns)).c_str(),
                 certificate_json(s).c_str(), advice_json(s, d.link).c_str());
  }
  std::fprintf(f, "\n  ],\n");
}

void write_ranks(FILE* f, const ReportData& d) {
  std::fprintf(f, "  \"ranks\": [");
  for (size_t r = 0; r < d.rank_rows.size(); ++r) {
    const RankRow& x = d.rank_rows[r];
    std::fprintf(f,
                 "%s\n    {\"rank\": %zu, \"host\": %s, \"wall_s\": %.9f, \"mpi_s\": %.9f, "
                 "\"calls\": %.0f, \"bytes\": %.0f, \"wire_bytes\": %.0f, \"saved_s\": %s}",
                 r ? "," : "", r, json_string(d.hosts[r]).c_str(), x.wall, x.mpi, x.calls, x.bytes,
                 x.wire, json_number(x.saved).c_str());
  }
  std::fprintf(f,
               "\n  ],\n  \"rank_cov\": {\"wall_s\": %.6f, \"mpi_s\": %.6f, \"calls\": %.6f, "
               "\"bytes\": %.6f, \"wire_bytes\": %.6f, \"saved_s\": %s},\n",
               cov(d.rank_rows, &RankRow::wall), cov(d.rank_rows, &RankRow::mpi),
               cov(d.rank_rows, &RankRow::calls), cov(d.rank_rows, &RankRow::bytes),
               cov(d.rank_rows, &RankRow::wire),
               json_number(d.link.bandwidth_Bps > 0 ? cov(d.rank_rows, &RankRow::saved) : NAN).c_str());
}

void write_regions(FILE* f, const ReportData& d) {
  std::fprintf(f, "  \"regions\": [");
  for (size_t g = 0; g < d.regions.size(); ++g) {
    const Region& region = d.regions[g];
    std::string ops;
    for (const OpRow& r : region.ops) {
      if (!r.counters[counter_calls]) continue;
      ops += std::string(ops.empty() ? "" : ",") + "\n      {\"op\": \"" + r.key + "\", " +
             op_fields(r, d.link) + "}";
    }
    std::fprintf(f, "%s\n    {\"level\": %d, \"ops\": [%s]}", g ? "," : "", region.level,
                 ops.c_str());
  }
  std::fprintf(f, "\n  ],\n");
}

}  // namespace

LinkFigures report_link() {
  LinkFigures l;
  const LinkModel inter = inter_node_link();
  const LinkModel& intra = config().intra;
  if (inter.known()) {
    l = {inter.bandwidth_Bps, inter.latency_s, config().link.known() ? "calibrated" : "measured"};
    if (link_measured()) {
      l.probed_Bps = link_at_init().bandwidth_Bps;
      l.raised = l.bandwidth_Bps > l.probed_Bps;
    }
  } else if (intra.known()) {  // a job inside one node, calibrated there
    l = {intra.bandwidth_Bps, intra.latency_s, "calibrated"};
  }
  return l;
}

double saved_seconds(const LinkFigures& link, uint64_t raw, uint64_t wire, uint64_t codec_ns) {
  if (!(link.bandwidth_Bps > 0)) return NAN;
  return (static_cast<double>(raw) - static_cast<double>(wire)) / link.bandwidth_Bps -
         codec_ns * 1e-9;
}

double saved_seconds(const LinkFigures& link, const OpRow& op) {
  return saved_seconds(link, op.counters[counter_bytes_in], op.counters[counter_bytes_wire],
                       op.counters[counter_ns_compress] + op.counters[counter_ns_decompress]);
}

void report_begin() {
  g_start_time = std::time(nullptr);
  g_start_wtime = PMPI_Wtime();
}
double report_start_wtime() { return g_start_wtime; }

bool write_report(const std::string& path, const ReportData& d, std::string* error) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    *error = "cannot write report '" + path + "': " + std::strerror(errno);
    return false;
  }
  // Hosts with their ranks, in rank order of first appearance.
  std::vector<std::pair<std::string, std::string>> hosts;
  for (int r = 0; r < d.ranks; ++r) {
    auto it = hosts.begin();
    while (it != hosts.end() && it->first != d.hosts[r]) ++it;
    if (it == hosts.end())
      hosts.push_back({d.hosts[r], std::to_string(r)});
    else
      it->second += ", " + std::to_string(r);
  }
  std::string host_list;
  for (const auto& [name, ranks] : hosts)
    host_list += std::string(host_list.empty() ? "" : ", ") + "{\"name\": " + json_string(name) +
                 ", \"ranks\": [" + ranks + "]}";

  std::fprintf(f, "{\n  \"schema\": %d,\n", kReportSchema);
  write_verdict(f, d);
  std::fprintf(f, "  \"run\": {\n");
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
  write_settings(f);
  // The link the saved-time estimates use: calibrated, or measured at
  // MPI_Init (then perhaps raised by the check during the run: the probe's
  // figure beside it); and the route point-to-point took between nodes.
  std::fprintf(f,
               "  \"link\": {\"bandwidth_Bps\": %.9g, \"latency_s\": %.9g, \"calibrated\": %s, "
               "\"source\": \"%s\", \"probed_Bps\": %.9g, \"raised_in_run\": %s, "
               "\"p2p_between_nodes\": \"%s\"},\n",
               d.link.bandwidth_Bps, d.link.latency_s,
               std::strcmp(d.link.source, "calibrated") == 0 ? "true" : "false", d.link.source,
               d.link.probed_Bps, d.link.raised ? "true" : "false", p2p_route_name());
  std::fprintf(f, "  \"operations\": {\n");
  for (size_t i = 0; i < d.ops.size(); ++i) {
    const OpRow& r = d.ops[i];
    std::fprintf(f,
                 "    \"%s\": {%s,\n      \"settled\": %s,\n"
                 "      \"per_rank\": {\"calls\": %s, \"bytes_wire\": %s, "
                 "\"codec_seconds\": %s}}%s\n",
                 r.key, op_fields(r, d.link).c_str(), settled_json(d, r.key).c_str(),
                 range_json(r.calls_per_rank).c_str(), range_json(r.bytes_wire_per_rank).c_str(),
                 range_json(r.codec_seconds_per_rank).c_str(), i + 1 < d.ops.size() ? "," : "");
  }
  std::fprintf(f, "  },\n");
  write_regions(f, d);
  write_sites(f, d);
  write_ranks(f, d);
  std::fprintf(f, "  \"mpi_calls\": {\n");
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
