// Per-thread reusable buffers: collectives on different communicators may run
// concurrently under MPI_THREAD_MULTIPLE, so nothing here is shared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace adacomp {

enum class ScratchSlot : int { send_frame, recv_frame, work, accumulator, frames, kCount };

// Sets of the slots, one per ring that runs at once within one call (a
// segmented Allreduce's segment rings, coll/allreduce.cpp).
constexpr int kScratchLanes = 4;

// Returns at least `bytes` of uninitialised memory, valid until the same slot
// of the same lane (0 <= lane < kScratchLanes) is asked for again on this
// thread.
uint8_t* scratch(ScratchSlot slot, size_t bytes, int lane = 0);

}  // namespace adacomp
