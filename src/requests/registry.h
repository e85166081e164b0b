// The one registry of the library's requests: every MPI_Request handle the
// library must act on at completion, mapped to the request it stands for.
// Its owners register there: point-to-point (p2p/internal.h Pending's kinds)
// and the nonblocking collectives' engine (coll/schedule.cpp); a request's
// virtual methods are its owner's hooks. The Wait and Test families complete
// every kind in one loop over it (requests/wait_test.h), which sees neither
// owner (services is below both).
//
// Its lock is held while point-to-point drives receives (for_each_request);
// it may then take a communicator's lock (p2p/internal.h). The engine's lock
// may hold it (a schedule registers under the engine's lock), never the
// other way round.
#pragma once

#include <mpi.h>

#include <atomic>

namespace adacomp {

// Whether MPI provided MPI_THREAD_MULTIPLE (set at MPI_Init): then several
// threads may receive into one buffer at once (legal, with undefined
// contents), so a coded frame must not land in a user's buffer before it is
// decoded, and the registry's entries may move under a thread's feet.
bool threads_share_buffers();
void set_threads_share_buffers(bool shared);

// A request's finish() answer when it must wait for another request (a
// channel frame whose predecessors are not applied yet) and may not: nothing
// was done, and completion asks again later.
constexpr int kNotYourTurn = -1;

class LibraryRequest {
 public:
  virtual ~LibraryRequest() = default;
  // Finishes for the application the request that MPI's completion call
  // reported complete under `handle`, with status *s (a real one; `cut`: MPI
  // reported the message truncated). The request is out of the registry; its
  // owner registers it again if it lives on (a persistent request), else
  // deletes it. `op` names the user's call, for its errors. kNotYourTurn
  // only when !may_wait (a collective never answers it).
  virtual int finish(MPI_Request handle, MPI_Status* s, bool may_wait, bool cut,
                     const char* op) = 0;
  // Complete for the application though inactive in MPI (a persistent
  // receive started from point-to-point's stash), which MPI's Waitany,
  // Testany, Waitsome and Testsome would skip.
  virtual bool served() const { return false; }
  // Completing it takes progress only the library makes (a collective's
  // schedule): a wait over it polls (requests/wait_test.h).
  virtual bool polled() const { return false; }
};

void register_request(MPI_Request handle, LibraryRequest* r);
// The request registered under `handle`, left in, or nullptr.
LibraryRequest* find_request(MPI_Request handle);
// Takes out the request registered under `handle` if `is_owners` says it is
// of the caller's kind; nullptr otherwise (left in).
LibraryRequest* take_request_if(MPI_Request handle, bool (*is_owners)(const LibraryRequest*));
template <class Kind>
Kind* find_request_as(MPI_Request handle) {
  return dynamic_cast<Kind*>(find_request(handle));
}
template <class Kind>
Kind* take_request_as(MPI_Request handle) {
  return static_cast<Kind*>(take_request_if(handle, [](const LibraryRequest* r) {
    return dynamic_cast<const Kind*>(r) != nullptr;
  }));
}
// Takes out `r` if it is still registered under `handle` (MPI_Finalize).
void forget_request(MPI_Request handle, const LibraryRequest* r);
// Calls f(handle, request) on each registered request, under the lock.
template <class F>
void for_each_request(F f);

// Completion's view of the registry. Once MPI frees a handle, another thread
// may get the same value for a new request, which must never find a stale
// entry, nor may anyone drive (p2p's drive_receives) a request whose handle
// MPI freed. So a completion takes its entries out before the PMPI call that
// may free the handles, and puts back those that did not complete. When one
// thread at a time is in MPI (!threads_share_buffers) nobody else can do
// either before the entry is taken, so entries stay in across the call and
// only the completed ones are taken after it: a polling MPI_Test then costs a
// look-up, not a take and a put back. claim_requests fills rs[0, n) with
// the entries of the array (nullptr where not the library's) and says
// whether there is one; release_requests applies the outcome (`handles`:
// the array as it was before the PMPI call; done[i]: request i completed).
bool claim_requests(int n, const MPI_Request reqs[], LibraryRequest* rs[]);
void release_requests(int n, const MPI_Request handles[], LibraryRequest* const rs[],
                      const char done[]);
namespace detail {
extern std::atomic<int> g_registered;  // the registry's size, read without its lock
}  // namespace detail
// Whether any request is registered (most completions involve none).
inline bool requests_registered() {
  return detail::g_registered.load(std::memory_order_acquire) != 0;
}

// Work the library advances without blocking besides completing requests:
// the nonblocking collectives' engine, which sets it when it first starts a
// schedule. While any is outstanding every wait polls, advancing it, since a
// peer may need it before it can complete what this rank waits for.
struct Progress {
  bool (*outstanding)();
  void (*advance)();
};
void set_progress(const Progress* p);
const Progress* progress();

namespace detail {
void visit_requests(void (*visit)(MPI_Request, LibraryRequest*, void*), void* f);
}  // namespace detail

template <class F>
void for_each_request(F f) {
  detail::visit_requests(
      [](MPI_Request h, LibraryRequest* r, void* fp) { (*static_cast<F*>(fp))(h, r); }, &f);
}

}  // namespace adacomp
