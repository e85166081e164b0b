#include "transfer/threads.h"

#include "transfer/pool.h"
#include "runtime/runtime.h"
#include "wire/segments.h"

namespace adacomp {

size_t segments_for(size_t bytes) {
  const size_t threads = static_cast<size_t>(config().threads);
  return threads <= 1 ? 1 : segment_count(threads, bytes);
}

void parallel_for(size_t n, const std::function<void(size_t)>& task) {
  pool_run(static_cast<size_t>(config().threads), n, task);
}

void stop_threads() { pool_stop(); }

}  // namespace adacomp
