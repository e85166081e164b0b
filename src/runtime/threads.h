// Coding threads (ADACOMP_THREADS, docs/codecs.md): a message of at least
// kMinSegmentBytes per thread is coded as that many segments
// (wire/segments.h), one per thread, and segmented frames are decoded with
// as many threads as the receiver has. The pool is made on first use and
// joined at MPI_Finalize; with one thread there is none. Its threads are
// named adacomp-code.
#pragma once

#include <cstddef>
#include <functional>

namespace adacomp {

// Below this per segment, a thread's start-up costs more than it saves.
constexpr size_t kMinSegmentBytes = 256 * 1024;

// How many segments a sender cuts a message of `bytes` into: 1 unless
// ADACOMP_THREADS > 1 and the message is large enough.
size_t segments_for(size_t bytes);

// Runs task(i) for every i in [0, n) on the pool and the calling thread,
// and returns when all have run (wire/segments.h's ForEach). One call at a
// time uses the pool; a concurrent one (another application thread) runs
// its tasks on its own thread.
void parallel_for(size_t n, const std::function<void(size_t)>& task);

// Joins the pool (MPI_Finalize).
void stop_threads();

}  // namespace adacomp
