// The engine: the schedules outstanding, and their requests in the registry
// (requests/registry.h), which the Wait and Test families complete
// (requests/wait_test.cpp) and whose finish() is the schedule's.
//
// Why one engine lock rather than one per schedule: a schedule's step is
// short (one chunk coded or decoded), and advancing from several threads at
// once would only contend for MPI's own progress. Whoever holds it advances
// every schedule; everyone else (the progress thread, the entry of
// intercepted calls, a polling wait) only try-locks it and goes on (someone
// is advancing). It may hold the registry's lock (a schedule registers
// under it), never the other way round.
#include "coll/schedule.h"

#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

#include "requests/registry.h"

namespace adacomp {

std::atomic<int> g_outstanding_collectives{0};

namespace {

constexpr int kTagBase = 1024;   // above every blocking call's tag
constexpr int kTagSpan = 16384;  // nonblocking calls' tags, started in call order
// Persistent calls' tags, the rest of MPI's minimum MPI_TAG_UB (32767): each
// request keeps the tags it got at init, which ranks call in one order, as
// they need not call MPI_Start (MPI 4.0 section 6.13).
constexpr int kPersistentTagBase = kTagBase + kTagSpan;
constexpr int kPersistentTagSpan = 32768 - kPersistentTagBase;

int next_persistent_tag(CommState& s) {
  return kPersistentTagBase + static_cast<int>(s.persistent_made++ % kPersistentTagSpan);
}

// Builds the schedule of one nonblocking call, or of one start of a
// persistent one.
using ScheduleMaker = std::function<std::unique_ptr<Schedule>()>;

// A nonblocking or persistent collective's request: a generalized request,
// or for a persistent one a receive of a zero-byte `signal_tag` message from
// `self` on `signal_comm`, which each start's schedule sends at its end.
struct ScheduleRequest : LibraryRequest {
  int finish(MPI_Request handle, MPI_Status* s, bool may_wait, bool cut,
             const char* op) override;
  bool polled() const override { return true; }

  MPI_Request handle = MPI_REQUEST_NULL;  // the application's
  std::unique_ptr<Schedule> schedule;     // null: an inactive persistent request
  MPI_Comm comm = MPI_COMM_NULL;          // the application's
  bool done = false;   // the request is complete in MPI (or its signal sent)
  bool freed = false;  // the application freed it while active
  ScheduleMaker persistent;  // makes each start's schedule
  MPI_Comm signal_comm = MPI_COMM_NULL;
  int self = 0, signal_tag = 0;
};

// Recursive: a schedule's own MPI calls may come back to the engine.
std::recursive_mutex g_mu;
std::vector<std::unique_ptr<ScheduleRequest>> g_schedules;  // every request made
thread_local bool t_advancing = false;

int query(void*, MPI_Status* s) {
  s->MPI_SOURCE = MPI_ANY_SOURCE;
  s->MPI_TAG = MPI_ANY_TAG;
  s->MPI_ERROR = MPI_SUCCESS;  // a failure is reported by the wrappers, on the right comm
  PMPI_Status_set_elements(s, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(s, 0);
  return MPI_SUCCESS;
}
int free_entry(void*) { return MPI_SUCCESS; }   // the engine owns the schedule
int cancel(void*, int) { return MPI_SUCCESS; }  // a collective cannot be cancelled

const Progress kEngineProgress{[] { return collectives_outstanding(); },
                               progress_collectives_slow};

// Under the engine's lock: `r` joins the schedules and the registry.
void add(std::unique_ptr<ScheduleRequest> r) {
  set_progress(&kEngineProgress);
  register_request(r->handle, r.get());
  g_schedules.push_back(std::move(r));
}

// Under the engine's lock: deletes `r`, already out of the registry.
void drop(const ScheduleRequest* r) {
  for (auto it = g_schedules.begin(); it != g_schedules.end(); ++it)
    if (it->get() == r) {
      g_schedules.erase(it);
      return;
    }
}

// Advances every schedule; completes the requests of those that finish.
void advance_locked() {
  if (t_advancing) return;  // a schedule's own MPI call came back here
  t_advancing = true;
  for (size_t i = 0; i < g_schedules.size();) {
    ScheduleRequest& r = *g_schedules[i];
    if (!r.schedule || r.done || !r.schedule->advance(false)) {
      ++i;
      continue;
    }
    r.done = true;
    g_outstanding_collectives.fetch_sub(1, std::memory_order_relaxed);
    if (r.persistent) {
      MPI_Request signal;
      PMPI_Isend(nullptr, 0, MPI_BYTE, r.self, r.signal_tag, r.signal_comm, &signal);
      PMPI_Request_free(&signal);
    } else {
      PMPI_Grequest_complete(r.handle);
    }
    if (r.freed) {
      // Complete now, or as soon as the signal arrives: MPI frees it then.
      if (!r.persistent) PMPI_Request_free(&r.handle);
      g_schedules.erase(g_schedules.begin() + static_cast<std::ptrdiff_t>(i));
      continue;
    }
    ++i;
  }
  t_advancing = false;
}

int ScheduleRequest::finish(MPI_Request handle, MPI_Status*, bool, bool, const char*) {
  std::unique_ptr<Schedule> ended;
  {
    std::lock_guard<std::recursive_mutex> g(g_mu);
    ended = std::move(schedule);
    if (persistent)
      register_request(handle, this);  // stays allocated, inactive, once complete
    else
      drop(this);
  }
  // Null: an inactive persistent request, which MPI has given the empty status.
  return ended ? ended->finish() : MPI_SUCCESS;
}

// launch's nonblocking and persistent forms.
int start_schedule(std::unique_ptr<Schedule> s, MPI_Comm comm, MPI_Request* request) {
  int rc = PMPI_Grequest_start(query, free_entry, cancel, nullptr, request);
  if (rc != MPI_SUCCESS) return rc;
  auto r = std::make_unique<ScheduleRequest>();
  r->handle = *request;
  r->schedule = std::move(s);
  r->comm = comm;
  std::lock_guard<std::recursive_mutex> g(g_mu);
  add(std::move(r));
  g_outstanding_collectives.fetch_add(1, std::memory_order_relaxed);
  advance_locked();
  wake_progress_thread();
  return MPI_SUCCESS;
}

int init_persistent(ScheduleMaker make, MPI_Comm comm, CommState& state, MPI_Request* request) {
  const int tag = next_persistent_tag(state);
  int rc = PMPI_Recv_init(nullptr, 0, MPI_BYTE, state.coll.rank, tag, state.coll.comm, request);
  if (rc != MPI_SUCCESS) return rc;
  auto r = std::make_unique<ScheduleRequest>();
  r->handle = *request;
  r->comm = comm;
  r->persistent = std::move(make);
  r->signal_comm = state.coll.comm;
  r->self = state.coll.rank;
  r->signal_tag = tag;
  std::lock_guard<std::recursive_mutex> g(g_mu);
  add(std::move(r));
  return MPI_SUCCESS;
}

}  // namespace

int next_collective_tag(CommState& s) {
  return kTagBase + static_cast<int>(s.nonblocking_started++ % kTagSpan);
}

int launch(CommState& state, MPI_Comm comm, Launch how, int blocking_tag, ScheduleBuilder build) {
  if (how.blocking()) {
    for (;;) {
      std::unique_ptr<Schedule> s = build(blocking_tag);
      s->advance(true);
      if (!s->rerun()) return s->finish();
    }
  }
  if (how.persistent) {
    const int tag = next_persistent_tag(state);
    return init_persistent([build, tag] { return build(tag); }, comm, state, how.request);
  }
  return start_schedule(build(next_collective_tag(state)), comm, how.request);
}

// The registry first: another owner's request never waits for the engine's
// lock, which the progress thread may hold for a step.
CallResult collective_start(MPI_Request* req) {
  auto* r = find_request_as<ScheduleRequest>(*req);
  if (!r || !r->persistent) return kDeclined;
  std::lock_guard<std::recursive_mutex> g(g_mu);
  if (r->schedule) return PMPI_Start(req);  // still active: MPI reports it
  int rc = PMPI_Start(req);
  if (rc != MPI_SUCCESS) return rc;
  r->schedule = r->persistent();
  r->done = false;
  g_outstanding_collectives.fetch_add(1, std::memory_order_relaxed);
  advance_locked();
  wake_progress_thread();
  return MPI_SUCCESS;
}

void progress_collectives_slow() {
  std::unique_lock<std::recursive_mutex> g(g_mu, std::try_to_lock);
  if (g) advance_locked();  // else another thread is advancing them
}

void settle_collectives_slow(MPI_Comm comm) {
  for (;; std::this_thread::yield()) {
    std::unique_lock<std::recursive_mutex> g(g_mu, std::try_to_lock);
    if (!g) continue;
    advance_locked();
    bool outstanding = false;
    for (const auto& r : g_schedules)
      outstanding = outstanding || (r->schedule && !r->done && r->comm == comm);
    if (!outstanding) return;
  }
}

void drain_collectives() {
  while (collectives_outstanding()) {
    progress_collectives_slow();
    std::this_thread::yield();
  }
  std::lock_guard<std::recursive_mutex> g(g_mu);
  for (const auto& r : g_schedules) forget_request(r->handle, r.get());
  g_schedules.clear();
}

CallResult collective_request_free(MPI_Request* req) {
  auto* r = take_request_as<ScheduleRequest>(*req);
  if (!r) return kDeclined;
  std::lock_guard<std::recursive_mutex> g(g_mu);
  const bool active = r->schedule && !r->done;
  if (r->persistent) {
    // Active, MPI frees the receive once the schedule's signal completes it.
    if (active)
      r->freed = true;
    else
      drop(r);
    return PMPI_Request_free(req);
  }
  if (!active) {
    drop(r);
    return PMPI_Request_free(req);
  }
  r->freed = true;  // advance_locked frees it in MPI when done
  *req = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

}  // namespace adacomp
