#include "runtime/device.h"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include <mpi.h>

namespace adacomp {
namespace {

// The driver entry points, with the layouts the vendors' headers give them.
using CuPointerGetAttribute = int (*)(void* data, int attribute, unsigned long long ptr);
constexpr int kCuMemoryType = 2, kCuRangeStart = 11, kCuRangeSize = 12;
constexpr unsigned kCuMemoryTypeDevice = 2;
struct HipPointerAttributes {  // the leading fields, alike in ROCm 5 and 6
  int memory_type;
  int device;
  void* device_pointer;
  void* host_pointer;
  int is_managed;
  unsigned allocation_flags;
  char reserved[64];  // later versions may append fields
};
using HipPointerGetAttributes = int (*)(HipPointerAttributes* attr, const void* ptr);

std::atomic<bool> g_found{false};
std::atomic<unsigned> g_calls{0};  // on_device calls while no runtime is found
std::atomic<unsigned long long> g_loads_seen{~0ull};
CuPointerGetAttribute g_cu = nullptr;
HipPointerGetAttributes g_hip = nullptr;
std::mutex g_mu;
std::map<uintptr_t, uintptr_t> g_ranges;  // device ranges seen: start -> end

// Looks for a runtime the process has loaded (never loads one).
void find_runtime() {
  std::lock_guard<std::mutex> g(g_mu);
  if (g_found.load(std::memory_order_relaxed)) return;
  if (void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD))
    g_cu = reinterpret_cast<CuPointerGetAttribute>(dlsym(h, "cuPointerGetAttribute"));
  for (const char* name : {"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"}) {
    if (g_hip) break;
    if (void* h = dlopen(name, RTLD_LAZY | RTLD_NOLOAD))
      g_hip = reinterpret_cast<HipPointerGetAttributes>(dlsym(h, "hipPointerGetAttributes"));
  }
  if (g_cu || g_hip) g_found.store(true, std::memory_order_release);
}

// Objects the dynamic loader has loaded so far (glibc's dlpi_adds): a
// runtime can only have appeared when this grew. Asking costs the loader's
// lock and one callback, a small part of find_runtime's four dlopen calls.
unsigned long long loads_so_far() {
  unsigned long long adds = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t size, void* out) {
        if (size >= offsetof(dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
          *static_cast<unsigned long long*>(out) = info->dlpi_adds;
        return 1;  // the first object is enough
      },
      &adds);
  return adds;
}

bool in_cached_range(uintptr_t a) {
  std::lock_guard<std::mutex> g(g_mu);
  auto it = g_ranges.upper_bound(a);
  return it != g_ranges.begin() && a < std::prev(it)->second;
}

// Asks the driver; a device allocation's whole range is cached.
bool ask_runtime(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  uintptr_t start = 0;
  size_t size = 0;
  if (g_cu) {
    unsigned type = 0;
    if (g_cu(&type, kCuMemoryType, a) != 0 || type != kCuMemoryTypeDevice) return false;
    unsigned long long s = 0;
    if (g_cu(&s, kCuRangeStart, a) == 0 && g_cu(&size, kCuRangeSize, a) == 0) start = s;
  } else {
    // Device memory has a device address and no host one, whatever the
    // version's numbering of memory types.
    HipPointerAttributes attr{};
    if (g_hip(&attr, p) != 0 || !attr.device_pointer || attr.host_pointer) return false;
  }
  if (size == 0) start = a, size = 1;
  std::lock_guard<std::mutex> g(g_mu);
  g_ranges[start] = start + size;
  return true;
}

// Out of line, so that the common answer (no runtime, not this call's
// turn to look) costs no stack frame.
__attribute__((noinline)) bool look_up(const void* p, bool found) {
  if (!found) {
    const unsigned long long loads = loads_so_far();
    if (g_loads_seen.exchange(loads, std::memory_order_relaxed) == loads) return false;
    find_runtime();
    if (!g_found.load(std::memory_order_acquire)) return false;
  }
  return in_cached_range(reinterpret_cast<uintptr_t>(p)) || ask_runtime(p);
}

}  // namespace

bool on_device(const void* p) {
  if (!p || p == MPI_IN_PLACE) return false;
  const bool found = g_found.load(std::memory_order_acquire);
  if (!found) {
    // A sampling count, not an exact one: a load and a store cost less than
    // an atomic increment, and an increment lost between threads only
    // shifts the next look.
    const unsigned calls = g_calls.load(std::memory_order_relaxed);
    g_calls.store(calls + 1, std::memory_order_relaxed);
    if (calls % 256 != 0) return false;
  }
  return look_up(p, found);
}

}  // namespace adacomp
