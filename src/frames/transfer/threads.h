// Coding threads (ADACOMP_THREADS, docs/codecs.md): a large message is
// coded as segments (wire/segments.h), one per thread, and segmented
// frames are decoded with
// as many threads as the receiver has, on the pool of transfer/pool.h: made on
// first use and joined at MPI_Finalize; with one thread there is none.
#pragma once

#include <cstddef>
#include <functional>

namespace adacomp {

// segment_count for ADACOMP_THREADS: 1 unless it is above 1 and the
// message is large enough.
size_t segments_for(size_t bytes);

// pool_run with ADACOMP_THREADS threads (wire/segments.h's ForEach).
void parallel_for(size_t n, const std::function<void(size_t)>& task);

// Joins the pool (MPI_Finalize).
void stop_threads();

}  // namespace adacomp
