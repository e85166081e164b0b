#include "runtime/call_site.h"

#include <mutex>
#include <unordered_map>

#include "runtime/site_names.h"

namespace adacomp {
namespace detail {
std::atomic<bool> g_site_rules{false};
}  // namespace detail

namespace {

const LossyRules* g_rules = nullptr;
std::mutex g_mu;
// Never erased: a program has a few call sites, and each thread keeps a
// pointer to its last one.
std::unordered_map<void*, std::unique_ptr<CallSite>> g_sites;
thread_local void* t_last_address = nullptr;
thread_local CallSite* t_last = nullptr;

std::unique_ptr<CallSite> matched(void* address) {
  const std::vector<LossyRule>& rules = g_rules->rules;
  auto site = std::make_unique<CallSite>();
  site->selected.assign(rules.size(), 0);
  site->calls.reset(new std::atomic<long long>[rules.size()]());
  const SiteName name = resolve_sites({address}).at(address);
  for (size_t i = 0; i < rules.size(); ++i)
    site->selected[i] = site_selects(rules[i], name.function, name.where);
  return site;
}

}  // namespace

void call_site_init(const LossyRules& rules) {
  g_rules = &rules;
  detail::g_site_rules.store(rules.names_site(), std::memory_order_relaxed);
}

CallSite* current_call_site() {
  void* address = detail::t_call_site;
  if (!address || !g_rules) return nullptr;
  if (address == t_last_address) return t_last;
  std::lock_guard<std::mutex> g(g_mu);
  std::unique_ptr<CallSite>& site = g_sites[address];
  if (!site) site = matched(address);
  t_last_address = address;
  t_last = site.get();
  return t_last;
}

}  // namespace adacomp
