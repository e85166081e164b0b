// The registry of the library's requests (requests/registry.h).
#include "requests/registry.h"

#include <algorithm>
#include <atomic>
#include <mutex>

#include "requests/handle_table.h"

namespace adacomp {

std::atomic<int> detail::g_registered{0};

namespace {

bool g_threads_share_buffers = false;

using detail::g_registered;
std::mutex g_mu;
HandleTable<MPI_Request, LibraryRequest> g_registry;
std::atomic<const Progress*> g_progress{nullptr};

void count_registered() {
  g_registered.store(static_cast<int>(g_registry.size()), std::memory_order_release);
}

bool none_registered(MPI_Request handle) {
  return !requests_registered() || handle == MPI_REQUEST_NULL;
}

LibraryRequest* take_locked(MPI_Request handle) {
  LibraryRequest* r = g_registry.take(handle);
  if (r) count_registered();
  return r;
}

bool entries_stay() { return !threads_share_buffers(); }

}  // namespace

bool threads_share_buffers() { return g_threads_share_buffers; }
void set_threads_share_buffers(bool shared) { g_threads_share_buffers = shared; }

void register_request(MPI_Request handle, LibraryRequest* r) {
  std::lock_guard<std::mutex> g(g_mu);
  g_registry.put(handle, r);
  count_registered();
}

LibraryRequest* find_request(MPI_Request handle) {
  if (none_registered(handle)) return nullptr;
  std::lock_guard<std::mutex> g(g_mu);
  return g_registry.find(handle);
}

LibraryRequest* take_request_if(MPI_Request handle, bool (*is_owners)(const LibraryRequest*)) {
  if (none_registered(handle)) return nullptr;
  std::lock_guard<std::mutex> g(g_mu);
  const LibraryRequest* r = g_registry.find(handle);
  return r && is_owners(r) ? take_locked(handle) : nullptr;
}

void forget_request(MPI_Request handle, const LibraryRequest* r) {
  std::lock_guard<std::mutex> g(g_mu);
  if (g_registry.find(handle) == r) take_locked(handle);
}

bool claim_requests(int n, const MPI_Request reqs[], LibraryRequest* rs[]) {
  if (!requests_registered()) {
    std::fill_n(rs, n > 0 ? n : 0, nullptr);
    return false;
  }
  const bool take = !entries_stay();
  bool any = false;
  std::lock_guard<std::mutex> g(g_mu);
  for (int i = 0; i < n; ++i) {
    rs[i] = nullptr;
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    rs[i] = take ? g_registry.take(reqs[i]) : g_registry.find(reqs[i]);
    any = any || rs[i];
  }
  if (take) count_registered();
  return any;
}

void release_requests(int n, const MPI_Request handles[], LibraryRequest* const rs[],
                      const char done[]) {
  const bool stay = entries_stay();
  // An entry that stays and did not complete needs nothing: a polling
  // MPI_Test does not take the lock a second time.
  auto moves = [&](int i) { return rs[i] && (stay == (done[i] != 0)); };
  int first = 0;
  while (first < n && !moves(first)) ++first;
  if (first == n) return;
  std::lock_guard<std::mutex> g(g_mu);
  for (int i = first; i < n; ++i) {
    if (!moves(i)) continue;
    if (stay)
      take_locked(handles[i]);
    else
      g_registry.put(handles[i], rs[i]);
  }
  if (!stay) count_registered();
}

void set_progress(const Progress* p) { g_progress.store(p, std::memory_order_release); }
const Progress* progress() { return g_progress.load(std::memory_order_acquire); }

namespace detail {
void visit_requests(void (*visit)(MPI_Request, LibraryRequest*, void*), void* f) {
  std::lock_guard<std::mutex> g(g_mu);
  g_registry.each([&](MPI_Request handle, LibraryRequest* r) { visit(handle, r, f); });
}
}  // namespace detail

}  // namespace adacomp
