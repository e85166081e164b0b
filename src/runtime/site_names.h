// The names of call sites, as the report prints them (report/sites.h) and
// rules select them (runtime/call_site.h): for a return address, its
// function and its file:line where debug information allows (dladdr, then
// addr2line), else its module+offset.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace adacomp {

struct SiteName {
  std::string function;  // "" when unknown
  std::string where;     // "file.c:123", "module+0x1a2b" or an address
  // "func (file.c:123)", "func (module+0x1a2b)" or "module+0x1a2b".
  std::string printed() const { return function.empty() ? where : function + " (" + where + ")"; }
};

// The names of `addresses`, return addresses (each call instruction is the
// byte before). Spawns addr2line once per module: a few milliseconds.
std::map<void*, SiteName> resolve_sites(const std::vector<void*>& addresses);

}  // namespace adacomp
