/* A stand-in for the CUDA driver (libcuda.so.1), for tests/mpi/device.cpp.
 * No GPU exists on the machines these tests run on: this library answers
 * cuPointerGetAttribute as the driver does, for address ranges the test
 * marks as device memory (ordinary host memory underneath, which is how the
 * MPI can still move it). Everything else is "not device memory". */
#include <stddef.h>
#include <stdint.h>

enum { kMemoryType = 2, kRangeStart = 11, kRangeSize = 12 };
enum { kSuccess = 0, kInvalidValue = 1, kMemoryTypeDevice = 2 };

static uintptr_t g_start[16], g_end[16];
static int g_ranges;
static long g_queries;

void fake_cuda_mark_device(void* p, size_t bytes) {
  g_start[g_ranges] = (uintptr_t)p;
  g_end[g_ranges++] = (uintptr_t)p + bytes;
}
long fake_cuda_queries(void) { return g_queries; }

int cuPointerGetAttribute(void* data, int attribute, unsigned long long ptr) {
  ++g_queries;
  for (int i = 0; i < g_ranges; ++i) {
    if (ptr < g_start[i] || ptr >= g_end[i]) continue;
    switch (attribute) {
      case kMemoryType: *(unsigned*)data = kMemoryTypeDevice; return kSuccess;
      case kRangeStart: *(unsigned long long*)data = g_start[i]; return kSuccess;
      case kRangeSize: *(size_t*)data = g_end[i] - g_start[i]; return kSuccess;
      default: return kInvalidValue;
    }
  }
  return kInvalidValue; /* unregistered host memory */
}
