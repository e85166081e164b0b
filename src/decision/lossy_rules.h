// Rules for unmodified binaries (ADACOMP_LOSSY_RULES, docs/lossy-scopes.md):
// which calls are exact and which lossy under which bound, selected by
// operation, size, datatype, communicator name, phase (from the Nth call a
// rule selects on) and MPI_Pcontrol level; the first rule that selects a
// call decides. MPI-free: the text, its errors, and whether a rule selects
// a call; runtime/comm_hints.h applies them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "codec/codec.h"

namespace adacomp {

// What a rule can select a call by.
struct RuleCall {
  const char* op = "";       // the report's operation name: "allreduce", "send", ...
  size_t bytes = 0;          // the call's message (a collective: as every rank knows it)
  ElemKind kind = ElemKind::bytes;
  const char* comm_name = "";  // MPI_Comm_set_name's (asked only when a rule names one)
  int pcontrol_level = 1;      // the last MPI_Pcontrol level (1 before any)
};

struct LossyRule {
  bool lossy = false;          // else exact
  double abs = 0, rel = 0;     // lossy: its bound (neither: the job's)
  std::vector<std::string> ops;  // empty: any
  size_t min_bytes = 0, max_bytes = SIZE_MAX;
  bool floats = true, doubles = true, others = true;  // type=
  std::string comm;            // a glob of the communicator's name; empty: any
  long long after = 0;         // selects from the (after+1)th call its other selectors select
  int pcontrol = -1;           // -1: any level
  std::string text;            // as written
};

struct LossyRules {
  std::vector<LossyRule> rules;
  std::string text;  // the setting as given (agreed across ranks with the configuration)
  // Whether ranks may see a call differently (a communicator's name, their
  // own call counts or MPI_Pcontrol, Bcast's datatypes): a collective then
  // agrees on the rule it takes.
  bool rank_local() const;
  bool names_comm() const;
};

// The setting's value: the rules, or @FILE's contents (false: unreadable).
bool read_rules_text(const std::string& value, std::string* text);

// Parses rules separated by ';' or new lines ('#' starts a comment):
//   exact|lossy [abs=X|rel=X] [op=NAME,...] [size=LO..HI] [type=float,double,other]
//         [comm=GLOB] [after=N] [pcontrol=LEVEL]
// On an error returns false with `error` naming the rule and what it accepts.
// `known_op` says whether an operation name is one the report prints.
bool parse_lossy_rules(const std::string& text, bool (*known_op)(const std::string&),
                       LossyRules* out, std::string* error);

// Whether `rule`'s selectors other than `after` select `call`.
bool selects(const LossyRule& rule, const RuleCall& call);

}  // namespace adacomp
