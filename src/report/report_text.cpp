// The report's answer (verdict and next step) and the text printed at
// MPI_Finalize under ADACOMP_VERBOSE.
#include <cmath>
#include <cstdio>
#include <string>

#include "report/report.h"
#include "decision/config.h"
#include "decision/plan.h"
#include "runtime/runtime.h"

namespace adacomp {
namespace {

std::string setting(const char* key) {
  for (const SettingValue& s : config().settings)
    if (s.key == key) return s.value;
  return "?";
}

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, a, b, c);
  return buf;
}

// Why nothing was coded, when nothing was.
const char* pass_reason(const ReportData& d) {
  const Config& c = config();
  uint64_t calls = 0, off_calls = 0;
  for (const Region& r : d.regions)
    for (const OpRow& op : r.ops) {
      calls += op.counters[counter_calls];
      if (r.level == 0) off_calls += op.counters[counter_calls];
    }
  if (c.mode == Mode::raw || (calls > 0 && off_calls == calls)) return "switched_off";
  // A one-host job under the adaptive policy passes everything by design:
  // neither the thresholds nor the model had a say.
  if (!job_spans_nodes() && c.adaptive() && node_local_raw()) return "one_host";
  int most = 0;
  for (int p = 1; p < kPassReasons; ++p)
    if (d.passes[p] > d.passes[most]) most = p;
  return pass_key(static_cast<PassReason>(most));
}

std::string link_text(const LinkFigures& l) {
  if (!(l.bandwidth_Bps > 0)) return "no link figure (not calibrated, not measured)";
  std::string source = std::string(l.source) == "measured" ? "measured at MPI_Init" : "calibrated";
  if (l.raised)
    source = format(
        "measured: %.4g MB/s at MPI_Init, raised during the run to what the library's "
        "transfers between nodes achieved",
        l.probed_Bps / 1e6);
  return format("%.4g MB/s, %.3g us", l.bandwidth_Bps / 1e6, l.latency_s * 1e6) + " (" + source +
         ")";
}

void coded_verdict(const ReportData& d, uint64_t coded, uint64_t raw, uint64_t wire, Verdict* v) {
  const double share = v->wall_s > 0 ? 100 * std::fabs(v->saved_s) / v->wall_s : 0;
  if (std::isnan(v->saved_s)) {
    v->text = format(
        "AdaComp coded %.0f calls, %.2fx fewer bytes on the wire; the time saved "
        "is unknown: no link figure",
        double(coded), wire ? double(raw) / wire : 0);
    v->next_step =
        "give the link figure: run adacomp-calibrate, or set ADACOMP_LINK_BANDWIDTH "
        "(bytes/s between nodes)";
    return;
  }
  // What the figure counts, in the sentence itself: it is a model, and a
  // side-by-side run usually measures more (docs/report.md).
  const std::string basis = format(
      ", estimated from the bytes coded calls kept off each "
      "node's link at %.4g MB/s, less codec time",
      d.link.bandwidth_Bps / 1e6);
  if (v->saved_s >= 0) {
    v->text = format("AdaComp saved about %.3g s of %.3g s in MPI per rank (%.2g%% of the run)",
                     v->saved_s, v->mpi_s, share) +
              basis;
    v->next_step =
        "to confirm it, rerun with ADACOMP_MODE=raw and compare the two reports: "
        "adacomp-report compare raw.json this.json";
    return;
  }
  v->text = format(
                "AdaComp cost about %.3g s more than it saved, of %.3g s in MPI per rank "
                "(%.2g%% of the run): a net loss",
                -v->saved_s, v->mpi_s, share) +
            basis;
  const OpRow* worst = nullptr;
  double worst_saved = 0;
  for (const OpRow& op : d.ops) {
    const double s = saved_seconds(d.link, op);
    if (s < worst_saved) worst = &op, worst_saved = s;
  }
  v->next_step = std::string(worst ? worst->key : "coding") +
                 " costs more codec time than it saves on this link: " +
                 (config().adaptive() ? "raise ADACOMP_THRESHOLD_LOSSLESS above its messages"
                                      : "leave the choice to the model (unset ADACOMP_MODE)");
}

void pass_verdict(const ReportData& d, Verdict* v) {
  const std::string why = v->reason;
  const Config& c = config();
  std::string because, next;
  if (why == "switched_off") {
    because = "coding was switched off (ADACOMP_MODE=raw, or MPI_Pcontrol(0) for the whole run)";
    next =
        "unset ADACOMP_MODE=raw (the adaptive default codes where it pays), or bracket the "
        "phases to code with MPI_Pcontrol(1)";
  } else if (why == "one_host") {
    because =
        "the job ran on one host: the adaptive policy codes only what crosses the network "
        "between nodes, by design";
    next = "nothing to change here: run the job across nodes to let AdaComp code their traffic";
  } else if (why == "model_no_gain") {
    because =
        "the runtime model measured no gain from coding on this link (" + link_text(d.link) + ")";
    next = c.lossy_enabled()
               ? "nothing to change: on this link coding does not pay for this data"
               : "if the data tolerates an error, set ADACOMP_ERROR_BOUND so that the model "
                 "can try the lossy codecs; otherwise coding does not pay on this link";
  } else if (why == "nonblocking_off") {
    because = c.nonblocking ? "its collectives were nonblocking, which the adaptive policy "
                              "does not code"
                            : "its collectives were nonblocking and ADACOMP_NONBLOCKING is off";
    next = std::string(c.nonblocking ? "" : "set ADACOMP_NONBLOCKING=on") +
           (c.adaptive() ? std::string(c.nonblocking ? "" : " with ") +
                               "a forced mode (ADACOMP_MODE=lossless)"
                         : "") +
           " (docs/nonblocking.md)";
  } else if (why == "unprepared") {
    because =
        "its nonblocking collectives ran on communicators whose first collective was "
        "nonblocking: the library prepares a communicator (its private copy, and its node "
        "groups across nodes) in a blocking collective";
    next =
        "make one blocking collective (MPI_Barrier) on each such communicator before its "
        "nonblocking ones; MPI_COMM_WORLD is prepared at MPI_Init (docs/nonblocking.md)";
  } else if (why == "persistent_across_nodes") {
    because =
        "its reductions and Bcasts were persistent across nodes: their node stages would start "
        "at MPI_Start, which ranks may call in different orders";
    next = "use the blocking or nonblocking form for the large calls between nodes";
  } else if (why == "same_node") {
    because = "its point-to-point messages went to peers on the same node, where shared memory "
              "outruns every codec";
    next = "nothing to change: messages between nodes are coded where that pays";
  } else {
    // T1 as in force: the user's, or the default the link gave (decision/model.h).
    const std::string t1 = c.threshold_lossless_auto
                               ? std::to_string(c.threshold_lossless >> 10) + "K, its default here"
                               : setting("ADACOMP_THRESHOLD_LOSSLESS");
    because = "no message reached the thresholds (ADACOMP_THRESHOLD_LOSSLESS = " + t1 + ")";
    next =
        "check the message sizes (mpi_calls sizes): lower ADACOMP_THRESHOLD_LOSSLESS only if "
        "large calls fall just below it; small messages rarely gain from coding";
  }
  v->text = "AdaComp passed everything through because " + because;
  v->next_step = next;
}

}  // namespace

Verdict judge(const ReportData& d) {
  Verdict v;
  v.mpi_s = d.mpi_seconds.mean;
  v.wall_s = d.wall_seconds.mean;
  uint64_t coded = 0, raw = 0, wire = 0, codec = 0;
  for (const OpRow& op : d.ops) {
    coded += op.counters[counter_compressed_calls];
    raw += op.counters[counter_bytes_in];
    wire += op.counters[counter_bytes_wire];
    codec += op.counters[counter_ns_compress] + op.counters[counter_ns_decompress];
  }
  // Per rank: a node's ranks share its link and wait for it (a collective,
  // a message), so the link time saved on a node, the bytes its ranks did
  // not send over the bandwidth, is what each of them waits less; averaged
  // over nodes. Less each rank's own codec time, on the mean.
  const double nodes = d.nodes > 0 ? d.nodes : 1;
  v.saved_s = d.ranks ? saved_seconds(d.link, raw, wire, 0) / nodes - codec * 1e-9 / d.ranks : 0;
  if (coded > 0) {
    coded_verdict(d, coded, raw, wire, &v);
    return v;
  }
  if (std::isnan(v.saved_s) && raw == 0) v.saved_s = 0;
  v.reason = pass_reason(d);
  pass_verdict(d, &v);
  return v;
}

void print_report(const ReportData& d, int verbose) {
  if (!verbose) return;
  const Verdict v = judge(d);
  std::fprintf(stderr, "adacomp: %s\nadacomp: next step: %s\n", v.text.c_str(),
               v.next_step.c_str());
  std::fprintf(stderr, "adacomp: link: %s; point-to-point between nodes: %s\n",
               link_text(d.link).c_str(), p2p_route_name());
  std::string chosen;
  for (const SettingValue& s : config().settings)
    if (s.source != "default")
      chosen += (chosen.empty() ? "" : ", ") + s.key + " = " + s.value + " (" + s.source + ")";
  std::fprintf(stderr, "adacomp: settings: %s; every other one its default\n",
               chosen.empty() ? "none set" : chosen.c_str());
  std::string head = "adacomp: statistics summed over ranks\n", row;
  char cell[64];
  auto add = [](std::string* line, const char* text) { *line += ' ', *line += text; };
  std::snprintf(cell, sizeof cell, "%-12s", "operation");
  head += cell;
  for (int c = 0; c < kOpCounters; ++c) {
    const OpCounterInfo& f = kOpCounterInfo[c];
    if (c == counter_ns_compress) add(&head, "  ratio");
    std::snprintf(cell, sizeof cell, "%*s", f.width, f.heading);
    add(&head, cell);
  }
  add(&head, "   saved_s");
  std::fprintf(stderr, "%s\n", head.c_str());
  for (const OpRow& r : d.ops) {
    if (r.counters[counter_calls] == 0) continue;
    std::snprintf(cell, sizeof cell, "%-12s", r.key);
    row = cell;
    for (int c = 0; c < kOpCounters; ++c) {
      const OpCounterInfo& f = kOpCounterInfo[c];
      if (c == counter_ns_compress) {
        std::snprintf(cell, sizeof cell, "%7.3f", r.ratio());
        add(&row, cell);
      }
      if (f.unit == CounterUnit::count)
        std::snprintf(cell, sizeof cell, "%*llu", f.width, (unsigned long long)r.counters[c]);
      else
        std::snprintf(cell, sizeof cell, "%*.4f", f.width, r.counters[c] * 1e-9);
      add(&row, cell);
    }
    const double saved = saved_seconds(d.link, r);
    add(&row, std::isnan(saved) ? "         ?" : format("%10.4f", saved).c_str());
    std::fprintf(stderr, "%s\n", row.c_str());
    for (const Settled& s : d.settled)
      if (op_name(s.op) == std::string(r.key))
        std::fprintf(stderr, "  %zu-byte class: %s, %s\n", s.class_bytes, s.codec.c_str(),
                     s.path.c_str());
  }
  std::fprintf(stderr,
               "adacomp: per rank, wall %.3f/%.3f/%.3f s, in intercepted MPI calls "
               "%.3f/%.3f/%.3f s (min/mean/max)\n",
               d.wall_seconds.min, d.wall_seconds.mean, d.wall_seconds.max, d.mpi_seconds.min,
               d.mpi_seconds.mean, d.mpi_seconds.max);
  if (!d.sites.empty()) std::fprintf(stderr, "adacomp: call sites by time (top 10)\n");
  for (size_t i = 0; i < d.sites.size() && i < 10; ++i) {
    const SiteRow& s = d.sites[i];
    std::fprintf(stderr, "  %-16s %8llu calls %10.4f s %14llu bytes %14llu wire  %s\n",
                 s.call.c_str(), (unsigned long long)s.calls, s.ns * 1e-9,
                 (unsigned long long)s.bytes, (unsigned long long)s.wire, s.site.c_str());
  }
  if (verbose < 2) return;
  std::fprintf(stderr,
               "adacomp: per rank: rank host wall_s mpi_s calls bytes wire_bytes saved_s\n");
  for (size_t r = 0; r < d.rank_rows.size(); ++r) {
    const RankRow& x = d.rank_rows[r];
    std::fprintf(stderr, "  %4zu %-16s %9.4f %9.4f %9.0f %14.0f %14.0f %s\n", r, d.hosts[r].c_str(),
                 x.wall, x.mpi, x.calls, x.bytes, x.wire,
                 std::isnan(x.saved) ? "?" : format("%.4f", x.saved).c_str());
  }
}

}  // namespace adacomp
