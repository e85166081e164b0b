// The progress engine of the compressed collectives.
//
// Every compressed collective is a Schedule: a state machine that posts its
// point-to-point messages on the communicator's private duplicate (or one of
// its node-aware splits), codes, decodes and reduces as they complete, and
// runs its node-local PMPI stages. Each algorithm is written once, as its
// schedule (coll/ring.h, ring_codes.h, tree.h, exchange.h, and the calls'
// files): the blocking call builds it and runs it to the end at once
// (advance(true), blocking waits, MPICH's "blocking = nonblocking schedule +
// wait"); the nonblocking and persistent calls hand it to this engine, which
// advances it without blocking (advance(false)). The application holds a
// generalized request (PMPI_Grequest_start) for it, registered in the
// library's registry of requests (requests/registry.h); the engine completes
// that request (PMPI_Grequest_complete) when the schedule is done, so PMPI's
// own Wait/Test over mixed arrays sees it.
//
// Progress is driven from the application's own MPI calls:
//  - on entry to every intercepted MPI call (one relaxed atomic load when
//    nothing is outstanding);
//  - in the Wait/Test family (requests/wait_test.cpp, through the
//    registry's Progress, requests/registry.h) and the intercepted blocking
//    point-to-point calls, which poll while anything is outstanding
//    (boundary/completion_calls.cpp, namespace polled);
//  - inside the library's blocking compressed collectives while they wait;
// and, with ADACOMP_PROGRESS=thread under MPI_THREAD_MULTIPLE, by a library
// thread (coll/progress_thread.cpp). Without it a rank blocked in an MPI
// call the library does not intercept does not advance its schedules
// meanwhile, hence ADACOMP_NONBLOCKING (off by default; docs/nonblocking.md).
#pragma once

#include <atomic>
#include <functional>
#include <memory>

#include <mpi.h>

#include "report/op_stats.h"
#include "decision/call_result.h"
#include "runtime/comm_state.h"

namespace adacomp {

class Schedule {
 public:
  virtual ~Schedule() = default;
  // Does whatever is ready; true once the collective is done on this rank
  // (result in place, its own messages complete). With `wait` it blocks
  // instead and always returns true (the blocking call); without, it never
  // blocks (the engine).
  virtual bool advance(bool wait) = 0;
  // Reports a failure through the application's error handler, records the
  // call in the runtime model, and returns the code for the call that
  // completes the request (the blocking call's return code).
  virtual int finish() = 0;
  // Once a blocking call's advance is done: whether its result must be
  // made again by a new schedule of the same call, alike on every rank (a
  // lossy reduction that started on a kept grid its inputs did not agree
  // on, coll/lossy_agreement.h). It has restored any input it overwrote.
  virtual bool rerun() { return false; }
};

// How a call runs: blocking (no request), nonblocking (`request` gets a
// generalized request), or persistent (MPI-4 *_init: gated once, at init;
// its schedule is built again at each MPI_Start, reading the buffers then).
struct Launch {
  MPI_Request* request = nullptr;
  bool persistent = false;
  bool blocking() const { return request == nullptr; }
  CallForm form() const {
    return blocking()   ? CallForm::blocking
           : persistent ? CallForm::persistent
                        : CallForm::nonblocking;
  }
};

// Builds the schedule of one run of a call under `tag`, reading its
// buffers now.
using ScheduleBuilder = std::function<std::unique_ptr<Schedule>(int tag)>;

// Runs a gated call on the application's `comm`, whose library state is
// `state`, as `how` says:
//  - blocking: the schedule built under `blocking_tag` runs to the end on
//    this thread; its finish() is the call's result;
//  - nonblocking: hands the application a generalized request for the
//    schedule built now under the call's own tag, and advances it once;
//  - persistent: makes `*how.request` a persistent zero-byte receive from
//    this rank itself on the private communicator (so MPI_Start, the
//    Wait/Test family and mixed arrays treat it as MPI does any persistent
//    request); each MPI_Start posts it and runs a freshly built schedule,
//    whose end sends the zero-byte message that completes it.
int launch(CommState& state, MPI_Comm comm, Launch how, int blocking_tag, ScheduleBuilder build);
// MPI_Start of a persistent request launch made; kDeclined for any
// other.
CallResult collective_start(MPI_Request* req);

// Tag of the next nonblocking collective on `s`: each outstanding call has
// its own, distinct from the blocking calls' (coll/compressed_call.h), so their
// messages never match another call's.
int next_collective_tag(CommState& s);

extern std::atomic<int> g_outstanding_collectives;
void progress_collectives_slow();

inline bool collectives_outstanding() {
  return g_outstanding_collectives.load(std::memory_order_relaxed) != 0;
}
// Advances every outstanding schedule this thread can get at.
// (The load itself, not collectives_outstanding(): every intercepted call
// pays this, and it calls nothing while nothing is outstanding.)
inline void progress_collectives() {
  if (g_outstanding_collectives.load(std::memory_order_relaxed) != 0)
    progress_collectives_slow();
}

// Runs `pass` (one pass over a call's steps, each started nonblocking; true
// once all are done) to the end: once without `wait`. A blocking call
// polls, advancing the nonblocking calls outstanding elsewhere as its
// blocking waits do (a peer may need one of them before it can take part in
// this call).
template <class Pass>
bool run_passes(bool wait, Pass pass) {
  while (!pass()) {
    if (!wait) return false;
    progress_collectives();
  }
  return true;
}

void settle_collectives_slow(MPI_Comm comm);
// Every blocking collective on `comm` first completes the nonblocking ones
// outstanding on it (the gates in coll/plan.h call this). Every rank starts
// those before this call, so waiting for them cannot deadlock a correct
// program, while a rank blocked in this call's PMPI form would no longer
// advance them for peers still waiting in theirs.
inline void settle_collectives(MPI_Comm comm) {
  if (collectives_outstanding()) settle_collectives_slow(comm);
}

// ---- the progress thread (coll/progress_thread.cpp) ----
// Messages the engine's calls completed (CompressedCall::complete, node stages):
// the thread's backoff resets when this moves.
extern std::atomic<unsigned> g_engine_moves;
inline void note_engine_move() { g_engine_moves.fetch_add(1, std::memory_order_relaxed); }
// At MPI_Init: starts the thread when configured and MPI_THREAD_MULTIPLE was
// provided, else (configured) warns on rank 0 that polling stays.
void progress_thread_start();
// At MPI_Finalize, before the private communicators go: joins it.
void progress_thread_stop();
extern std::atomic<bool> g_progress_thread;  // running
void wake_progress_thread_slow();
// After a schedule starts: the thread sleeps while nothing is outstanding.
inline void wake_progress_thread() {
  if (g_progress_thread.load(std::memory_order_relaxed)) wake_progress_thread_slow();
}

// Completes outstanding schedules whose requests the application freed
// (they still owe their peers messages); before the private communicators go.
void drain_collectives();

// Freeing an active collective request (erroneous in MPI, so made safe):
// the schedule still runs to the end, as its peers need, then is dropped.
// kDeclined: not the engine's request.
CallResult collective_request_free(MPI_Request* req);

}  // namespace adacomp
