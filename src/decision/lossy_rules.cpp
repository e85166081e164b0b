#include "decision/lossy_rules.h"

#include <fnmatch.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace adacomp {
namespace {

constexpr const char* kSyntax =
    "exact|lossy [abs=X|rel=X] [op=NAME,...] [size=LO..HI] [type=float,double,other] "
    "[comm=GLOB] [after=N] [pcontrol=LEVEL]";

std::vector<std::string> split(const std::string& s, char by) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(s);
  while (std::getline(in, part, by)) parts.push_back(part);
  return parts;
}

bool parse_number(const std::string& v, double* out) {
  errno = 0;
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (errno || v.empty() || *end != '\0' || !std::isfinite(d)) return false;
  *out = d;
  return true;
}

// A byte count with an optional K, M or G suffix.
bool parse_size(const std::string& v, size_t* out) {
  if (v.empty() || v[0] < '0' || v[0] > '9') return false;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  const std::string suffix = end;
  const unsigned shift = suffix == "" ? 0 : suffix == "K" ? 10 : suffix == "M" ? 20
                                         : suffix == "G" ? 30 : 64;
  if (shift == 64) return false;
  *out = static_cast<size_t>(n) << shift;
  return true;
}

bool parse_count(const std::string& v, long long lo, long long* out) {
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (errno || v.empty() || *end != '\0' || n < lo) return false;
  *out = n;
  return true;
}

// One selector or bound KEY=VALUE of `r`; false with *why on an error.
bool apply(const std::string& token, bool (*known_op)(const std::string&), LossyRule* r,
           std::string* why) {
  const size_t eq = token.find('=');
  const std::string key = token.substr(0, eq), value = eq == std::string::npos ? "" : token.substr(eq + 1);
  if (eq == std::string::npos || value.empty()) {
    *why = "'" + token + "' is not KEY=VALUE";
    return false;
  }
  if (key == "abs" || key == "rel") {
    double& bound = key == "abs" ? r->abs : r->rel;
    if (!r->lossy || !parse_number(value, &bound) || !(bound > 0) || (key == "rel" && bound >= 1) ||
        r->abs * r->rel != 0) {
      *why = key + "=" + value + ": a lossy rule's one bound, positive" +
             (key == "rel" ? " and below 1" : "");
      return false;
    }
    return true;
  }
  if (key == "op") {
    for (const std::string& op : split(value, ','))
      if (!known_op(op)) {
        *why = "unknown operation '" + op + "' (the report's names: allreduce, send, alltoall, ...)";
        return false;
      }
    r->ops = split(value, ',');
    return true;
  }
  if (key == "size") {
    const size_t dots = value.find("..");
    bool ok = dots != std::string::npos;
    if (ok && dots > 0) ok = parse_size(value.substr(0, dots), &r->min_bytes);
    if (ok && dots + 2 < value.size()) ok = parse_size(value.substr(dots + 2), &r->max_bytes);
    if (!ok || r->min_bytes > r->max_bytes) {
      *why = "size=" + value + ": LO..HI in bytes (K, M or G suffix; either side may be left out)";
      return false;
    }
    return true;
  }
  if (key == "type") {
    r->floats = r->doubles = r->others = false;
    for (const std::string& t : split(value, ',')) {
      bool* on = t == "float" ? &r->floats : t == "double" ? &r->doubles
                                           : t == "other"  ? &r->others : nullptr;
      if (!on) {
        *why = "type=" + t + ": float, double or other";
        return false;
      }
      *on = true;
    }
    return true;
  }
  if (key == "comm") {
    r->comm = value;
    return true;
  }
  if (key == "after" || key == "pcontrol") {
    long long n = 0;
    if (!parse_count(value, 0, &n) || (key == "pcontrol" && n > 1 << 30)) {
      *why = key + "=" + value + ": a count of 0 or more";
      return false;
    }
    if (key == "after")
      r->after = n;
    else
      r->pcontrol = static_cast<int>(n);
    return true;
  }
  *why = "unknown selector '" + key + "'";
  return false;
}

}  // namespace

bool read_rules_text(const std::string& v, std::string* text) {
  if (v.empty() || v[0] != '@') {
    *text = v;
    return !v.empty();
  }
  std::ifstream in(v.substr(1));
  std::stringstream all;
  all << in.rdbuf();
  *text = all.str();
  return static_cast<bool>(in);
}

bool LossyRules::rank_local() const {
  for (const LossyRule& r : rules)
    if (!r.comm.empty() || r.after > 0 || r.pcontrol >= 0 || !(r.floats && r.doubles && r.others))
      return true;
  return false;
}

bool LossyRules::names_comm() const {
  for (const LossyRule& r : rules)
    if (!r.comm.empty()) return true;
  return false;
}

bool parse_lossy_rules(const std::string& text, bool (*known_op)(const std::string&),
                       LossyRules* out, std::string* error) {
  LossyRules parsed;
  parsed.text = text;
  std::string all = text;
  for (char& ch : all)
    if (ch == '\n') ch = ';';
  int number = 0;
  for (std::string line : split(all, ';')) {
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string action, token;
    if (!(words >> action)) continue;
    ++number;
    LossyRule r;
    r.text = line;
    std::string why;
    bool ok = action == "exact" || action == "lossy";
    if (!ok) why = "a rule starts with exact or lossy, not '" + action + "'";
    r.lossy = action == "lossy";
    while (ok && words >> token) ok = apply(token, known_op, &r, &why);
    if (!ok) {
      *error = "rule " + std::to_string(number) + " '" + line + "': " + why + "; a rule is " + kSyntax;
      return false;
    }
    parsed.rules.push_back(r);
  }
  *out = parsed;
  return true;
}

bool selects(const LossyRule& r, const RuleCall& call) {
  if (!r.ops.empty()) {
    bool named = false;
    for (const std::string& op : r.ops) named |= op == call.op;
    if (!named) return false;
  }
  if (call.bytes < r.min_bytes || call.bytes > r.max_bytes) return false;
  const bool typed = call.kind == ElemKind::f32   ? r.floats
                     : call.kind == ElemKind::f64 ? r.doubles
                                                  : r.others;
  if (!typed) return false;
  if (!r.comm.empty() && fnmatch(r.comm.c_str(), call.comm_name, 0) != 0) return false;
  return r.pcontrol < 0 || r.pcontrol == call.pcontrol_level;
}

}  // namespace adacomp
