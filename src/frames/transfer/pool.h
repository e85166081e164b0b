// The threads that code and decode the segments of one frame
// (wire/segments.h): a persistent pool, started on first use with as many
// workers as asked for and stopped on request. A layer of its own (exec),
// below transfer: wire knows only its ForEach type, which transfer/threads.h
// fills from here. Its threads are named adacomp-code (top -H; the tests
// look for them). The library sizes it from ADACOMP_THREADS
// (transfer/threads.h), adacomp-codecs from --threads.
#pragma once

#include <cstddef>
#include <functional>

namespace adacomp {

// Runs task(i) for every i in [0, n) on the calling thread and up to
// threads - 1 workers, and returns when all have run. One call at a time
// uses the pool; a concurrent one (another application thread) runs its
// tasks on its own thread.
void pool_run(size_t threads, size_t n, const std::function<void(size_t)>& task);

// Joins the workers; a later pool_run starts them again.
void pool_stop();

}  // namespace adacomp
