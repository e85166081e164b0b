#include "report/advice.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "report/samples.h"

namespace adacomp {
namespace {

const char* kind_name(int kind) {
  return kind == 2 ? "double" : kind == 1 ? "float" : "other";
}

bool float_data(const SiteAdvice& a) { return a.kind == 1 || a.kind == 2; }

// Whether candidate `i` was tried on the site's data (the float codecs and
// the lossy ones only on float and double).
bool tried(const SiteAdvice& a, int i) {
  return a.coded_ns[i] > 0 && (float_data(a) || (std::strcmp(advise_codec_name(i), "zstd") == 0 ||
                                                 std::strcmp(advise_codec_name(i), "lz4") == 0));
}

// Candidate `i`'s figures, extrapolated from the samples to the site's
// bytes: the wire time of the bytes it saves less its coding time, taking
// decoding as long as encoding (the codecs' decoders are at least as fast,
// docs/codecs.md).
CodecFigure figure(const SiteRow& s, int i, const LinkFigures& link) {
  const SiteAdvice& a = s.advice;
  CodecFigure f;
  f.codec = i;
  f.ratio = static_cast<double>(a.sample_bytes) / std::max<uint64_t>(1, a.coded_bytes[i]);
  f.MBps = a.sample_bytes / (a.coded_ns[i] * 1e-9) / 1e6;
  const double coded = s.bytes / f.ratio;
  const double codec_ns = 2 * s.bytes / (f.MBps * 1e6) * 1e9;
  f.saved_s = saved_seconds(link, s.bytes, static_cast<uint64_t>(coded),
                            static_cast<uint64_t>(codec_ns));
  return f;
}

// The better of two: more time saved where the link is known, else the
// higher ratio.
bool better(const CodecFigure& a, const CodecFigure& b) {
  if (b.codec < 0) return true;
  if (!std::isnan(a.saved_s) && !std::isnan(b.saved_s)) return a.saved_s > b.saved_s;
  return a.ratio > b.ratio;
}

std::string figure_json(const char* key, const CodecFigure& f) {
  if (f.codec < 0) return std::string(", \"") + key + "\": null";
  char text[256];
  std::snprintf(text, sizeof text, ", \"%s\": {\"codec\": \"%s\", \"ratio\": %.4g, \"MBps\": %.4g, ",
                key, advise_codec_name(f.codec), f.ratio, f.MBps);
  return text + std::string("\"saved_s\": ") + json_number(f.saved_s) + "}";
}

std::string figure_text(const CodecFigure& f) {
  char text[160];
  std::snprintf(text, sizeof text, "%s %.3gx at %.0f MB/s", advise_codec_name(f.codec), f.ratio,
                f.MBps);
  std::string out = text;
  if (!std::isnan(f.saved_s)) {
    std::snprintf(text, sizeof text, ", saves %.3g s", f.saved_s);
    out += text;
  }
  return out;
}

}  // namespace

SiteAdviceFigures site_advice(const SiteRow& s, const LinkFigures& link) {
  const SiteAdvice& a = s.advice;
  SiteAdviceFigures out;
  // Lossy coding applies to float and double data, reduced by SUM, MIN or
  // MAX (the library's lossy reductions) or moved (no operation).
  const std::string op = a.op;
  out.lossy_possible = float_data(a) && (op.empty() || op == "sum" || op == "min" || op == "max");
  out.why_exact = !float_data(a)        ? "not float or double data"
                  : !out.lossy_possible ? "an operation other than SUM, MIN or MAX"
                                        : "";
  for (int i = 0; i < kAdviseCodecs; ++i) {
    if (!tried(a, i)) continue;
    const CodecFigure f = figure(s, i, link);
    CodecFigure& best = advise_codec_lossy(i) ? out.lossy : out.lossless;
    if (better(f, best)) best = f;
  }
  if (!out.lossy_possible) out.lossy = CodecFigure();
  return out;
}

std::string advice_json(const SiteRow& s, const LinkFigures& link) {
  const SiteAdvice& a = s.advice;
  if (a.samples == 0) return "";
  const SiteAdviceFigures f = site_advice(s, link);
  std::string codecs;
  for (int i = 0; i < kAdviseCodecs; ++i) {
    if (!tried(a, i)) continue;
    const CodecFigure c = figure(s, i, link);
    char text[200];
    std::snprintf(text, sizeof text,
                  "%s{\"codec\": \"%s\", \"lossy\": %s, \"ratio\": %.4g, \"MBps\": %.4g}",
                  codecs.empty() ? "" : ", ", advise_codec_name(i),
                  advise_codec_lossy(i) ? "true" : "false", c.ratio, c.MBps);
    codecs += text;
  }
  // What the advisor's coding cost the run at this site (every rank's).
  uint64_t sampling_ns = 0;
  for (uint64_t ns : a.coded_ns) sampling_ns += ns;
  char head[360];
  std::snprintf(head, sizeof head,
                ", \"advice\": {\"type\": \"%s\", \"op\": \"%s\", \"samples\": %llu, "
                "\"sample_bytes\": %llu, \"sampling_s\": %.6f, \"lossy_possible\": %s, "
                "\"why_exact\": %s, \"bound\": %s, \"codecs\": [",
                kind_name(a.kind), a.op[0] ? a.op : "none", (unsigned long long)a.samples,
                (unsigned long long)a.sample_bytes, sampling_ns * 1e-9,
                f.lossy_possible ? "true" : "false",
                json_string(f.why_exact).c_str(), json_string(advise_bound_text()).c_str());
  return head + codecs + "]" + figure_json("lossless", f.lossless) + figure_json("lossy", f.lossy) +
         "}";
}

std::string advice_line(const SiteRow& s, const LinkFigures& link) {
  const SiteAdvice& a = s.advice;
  if (a.samples == 0) return "";
  const SiteAdviceFigures f = site_advice(s, link);
  char head[96];
  std::snprintf(head, sizeof head, "%s%s%s, %llu samples: ", kind_name(a.kind), a.op[0] ? " " : "",
                a.op, (unsigned long long)a.samples);
  std::string line = head;
  line += f.lossless.codec >= 0 ? "lossless " + figure_text(f.lossless) : "no lossless candidate";
  if (f.lossy.codec >= 0)
    line += "; lossy (" + advise_bound_text() + ") " + figure_text(f.lossy);
  else if (!f.lossy_possible)
    line += std::string("; exact only (") + f.why_exact + ")";
  return line;
}

}  // namespace adacomp
