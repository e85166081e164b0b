#include "runtime/link_check.h"

#include <algorithm>
#include <atomic>

#include "runtime/runtime.h"

namespace adacomp {
namespace {

LinkModel g_at_init;
bool g_measured = false;
std::atomic<double> g_bandwidth{0};
std::atomic<double> g_achieved{0};
std::atomic<unsigned> g_raises{0};

void raise_to(std::atomic<double>& v, double x) {
  double old = v.load(std::memory_order_relaxed);
  while (x > old && !v.compare_exchange_weak(old, x, std::memory_order_relaxed)) {
  }
}

}  // namespace

void link_start(const LinkModel& link, bool measured) {
  g_at_init = link;
  g_measured = measured && link.known();
  g_bandwidth.store(link.bandwidth_Bps, std::memory_order_relaxed);
  g_achieved.store(0, std::memory_order_relaxed);
  g_raises.store(0, std::memory_order_relaxed);
}

LinkModel link_now() {
  LinkModel l = g_at_init;
  l.bandwidth_Bps = g_bandwidth.load(std::memory_order_relaxed);
  return l;
}
LinkModel link_at_init() { return g_at_init; }
bool link_measured() { return g_measured; }

void note_link_transfer(size_t bytes, double seconds) {
  // The part of a message that may have come before the receive was posted:
  // at most the eager limit, which some transports (UCX's rendezvous
  // threshold, say) set higher than the one the library knows; so at least
  // kHead. Bodies under four times that are left out: they might have
  // travelled eagerly, whole, and their time would say nothing.
  constexpr size_t kHead = 256 << 10;
  const size_t head = std::max(eager_limit(), kHead);
  if (!g_measured || bytes < 4 * head || !(seconds > 0)) return;
  raise_to(g_achieved, static_cast<double>(bytes - head) / seconds);
}

double link_achieved() { return g_achieved.load(std::memory_order_relaxed); }

double link_vote() {
  if (!g_measured) return 0;
  return std::max(g_bandwidth.load(std::memory_order_relaxed), link_achieved());
}

void link_agree(double largest_vote) {
  if (!g_measured) return;
  double old = g_bandwidth.load(std::memory_order_relaxed);
  while (largest_vote > old &&
         !g_bandwidth.compare_exchange_weak(old, largest_vote, std::memory_order_relaxed)) {
  }
  if (largest_vote > old) g_raises.fetch_add(1, std::memory_order_relaxed);
}

bool link_agree_at_finalize() {
  static bool agreed = false;
  if (!g_measured || agreed) return false;
  agreed = true;
  double mine = link_vote(), largest = 0;
  PMPI_Allreduce(&mine, &largest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  link_agree(largest);
  return true;
}

unsigned link_raises() { return g_raises.load(std::memory_order_relaxed); }

}  // namespace adacomp
