#include "runtime/scratch.h"

namespace adacomp {
namespace {

struct Buffer {
  std::unique_ptr<uint8_t[]> data;
  size_t capacity = 0;
};

}  // namespace

uint8_t* scratch(ScratchSlot slot, size_t bytes) {
  thread_local Buffer buffers[static_cast<int>(ScratchSlot::kCount)];
  Buffer& b = buffers[static_cast<int>(slot)];
  if (bytes > b.capacity) {
    // Grow geometrically so that slowly increasing sizes do not reallocate
    // on every call.
    size_t cap = b.capacity ? b.capacity : 4096;
    while (cap < bytes) cap *= 2;
    b.data.reset(new uint8_t[cap]);
    b.capacity = cap;
  }
  return b.data.get();
}

}  // namespace adacomp
