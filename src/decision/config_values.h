// One setting's value from its text: the parsers the settings' table
// (decision/config.cpp) applies, each false on anything it does not accept,
// which the table turns into an error naming the variable.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace adacomp {

// Digits first: strtoull would accept blanks and a sign ("-1" is 2^64 - 1).
bool parse_bytes(const std::string& v, size_t* out);
// A tier threshold: a byte count, or `never` (as adacomp-calibrate writes
// for a tier that does not pay).
bool parse_threshold(const std::string& v, size_t* out);
bool parse_int(const std::string& v, long lo, long hi, int* out);
bool parse_positive(const std::string& v, double* out);
// ADACOMP_NODE_MAP: comma-separated positive block sizes.
bool parse_node_map(const std::string& text, std::vector<int>* blocks);

// One of the named values; *out is left alone on anything else.
template <typename T>
bool parse_choice(const std::string& v, std::initializer_list<std::pair<const char*, T>> names,
                  T* out) {
  for (const auto& [name, value] : names)
    if (v == name) {
      *out = value;
      return true;
    }
  return false;
}

inline bool parse_on_off(const std::string& v, bool* out) {
  return parse_choice(v, {{"on", true}, {"off", false}}, out);
}

}  // namespace adacomp
