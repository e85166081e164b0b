// Per-thread reusable buffers: collectives on different communicators may run
// concurrently under MPI_THREAD_MULTIPLE, so nothing here is shared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace adacomp {

// kept_input: a lossy reduction's input in place, kept for a second run
// (coll/lossy_agreement.h SecondRun).
enum class ScratchSlot : int { send_frame, recv_frame, work, accumulator, frames, kept_input, kCount };

// Returns at least `bytes` of uninitialised memory, valid until the same slot
// is asked for again on this thread.
uint8_t* scratch(ScratchSlot slot, size_t bytes);

}  // namespace adacomp
