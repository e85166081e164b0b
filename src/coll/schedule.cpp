// The engine's table of schedules, keyed by the application's request, and
// its part of the Wait/Test family (interpose/completion.cpp has the rest).
//
// Everything that looks at the table, and the Test-form pass that may free a
// completed request in MPI, runs under one lock: once MPI frees a handle
// another thread may get the same value for a new request, which must never
// find the old entry.
//
// Why one engine lock rather than one per schedule: the table and the
// Test-form pass need a global lock anyway, a schedule's step is short
// (one chunk coded or decoded), and advancing from several threads at once
// would only contend for MPI's own progress. Whoever holds it advances every
// schedule; the progress thread and the entry of intercepted calls only
// try-lock it and go on (someone is advancing), while Wait/Test, which must
// run their pass, block on it.
#include "coll/schedule.h"

#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

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

struct Entry {
  std::unique_ptr<Schedule> schedule;  // null: an inactive persistent request
  MPI_Comm comm = MPI_COMM_NULL;       // the application's
  bool done = false;                   // the request is complete in MPI (or its signal sent)
  bool freed = false;                  // the application freed it while active
  // Persistent: `persistent` makes each start's schedule; the request is a
  // receive of a zero-byte `signal_tag` message from `self` on `signal_comm`.
  ScheduleMaker persistent;
  MPI_Comm signal_comm = MPI_COMM_NULL;
  int self = 0, signal_tag = 0;
};

// Recursive: a schedule's own MPI calls, and the Test form a pass runs under
// the lock, may come back to the engine.
std::recursive_mutex g_mu;
std::unordered_map<MPI_Request, Entry> g_entries;
std::atomic<int> g_owned{0};  // entries in the table
thread_local bool t_advancing = false;

int query(void*, MPI_Status* s) {
  s->MPI_SOURCE = MPI_ANY_SOURCE;
  s->MPI_TAG = MPI_ANY_TAG;
  s->MPI_ERROR = MPI_SUCCESS;  // a failure is reported by the wrappers, on the right comm
  PMPI_Status_set_elements(s, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(s, 0);
  return MPI_SUCCESS;
}
int free_entry(void*) { return MPI_SUCCESS; }   // the table owns the schedule
int cancel(void*, int) { return MPI_SUCCESS; }  // a collective cannot be cancelled

void erase(std::unordered_map<MPI_Request, Entry>::iterator it) {
  g_entries.erase(it);
  g_owned.fetch_sub(1, std::memory_order_relaxed);
}

// Advances every schedule; completes the requests of those that finish.
void advance_locked() {
  if (t_advancing) return;  // a schedule's own MPI call came back here
  t_advancing = true;
  for (auto it = g_entries.begin(); it != g_entries.end();) {
    Entry& e = it->second;
    if (!e.schedule || e.done || !e.schedule->advance(false)) {
      ++it;
      continue;
    }
    e.done = true;
    g_outstanding_collectives.fetch_sub(1, std::memory_order_relaxed);
    MPI_Request handle = it->first;
    if (e.persistent) {
      MPI_Request signal;
      PMPI_Isend(nullptr, 0, MPI_BYTE, e.self, e.signal_tag, e.signal_comm, &signal);
      PMPI_Request_free(&signal);
    } else {
      PMPI_Grequest_complete(handle);
    }
    if (e.freed) {
      // Complete now, or as soon as the signal arrives: MPI frees it then.
      if (!e.persistent) PMPI_Request_free(&handle);
      auto next = std::next(it);
      erase(it);
      it = next;
      continue;
    }
    ++it;
  }
  t_advancing = false;
}

// launch's nonblocking and persistent forms.
int start_schedule(std::unique_ptr<Schedule> s, MPI_Comm comm, MPI_Request* request) {
  int rc = PMPI_Grequest_start(query, free_entry, cancel, nullptr, request);
  if (rc != MPI_SUCCESS) return rc;
  std::lock_guard<std::recursive_mutex> g(g_mu);
  Entry& e = g_entries[*request];
  e.schedule = std::move(s);
  e.comm = comm;
  g_owned.fetch_add(1, std::memory_order_relaxed);
  g_outstanding_collectives.fetch_add(1, std::memory_order_relaxed);
  advance_locked();
  wake_progress_thread();
  return MPI_SUCCESS;
}

int init_persistent(ScheduleMaker make, MPI_Comm comm, CommState& state, MPI_Request* request) {
  const int tag = next_persistent_tag(state);
  int rc = PMPI_Recv_init(nullptr, 0, MPI_BYTE, state.coll.rank, tag, state.coll.comm, request);
  if (rc != MPI_SUCCESS) return rc;
  std::lock_guard<std::recursive_mutex> g(g_mu);
  Entry& e = g_entries[*request];
  e.comm = comm;
  e.persistent = std::move(make);
  e.signal_comm = state.coll.comm;
  e.self = state.coll.rank;
  e.signal_tag = tag;
  g_owned.fetch_add(1, std::memory_order_relaxed);
  return MPI_SUCCESS;
}

}  // namespace

int next_collective_tag(CommState& s) {
  return kTagBase + static_cast<int>(s.nonblocking_started++ % kTagSpan);
}

int launch(CommState& state, MPI_Comm comm, Launch how, int blocking_tag, ScheduleBuilder build) {
  if (how.blocking()) {
    std::unique_ptr<Schedule> s = build(blocking_tag);
    s->advance(true);
    return s->finish();
  }
  if (how.persistent) {
    const int tag = next_persistent_tag(state);
    return init_persistent([build, tag] { return build(tag); }, comm, state, how.request);
  }
  return start_schedule(build(next_collective_tag(state)), comm, how.request);
}

CallResult collective_start(MPI_Request* req) {
  if (g_owned.load(std::memory_order_relaxed) == 0) return kDeclined;
  std::lock_guard<std::recursive_mutex> g(g_mu);
  auto it = g_entries.find(*req);
  if (it == g_entries.end() || !it->second.persistent) return kDeclined;
  Entry& e = it->second;
  if (e.schedule) return PMPI_Start(req);  // still active: MPI reports it
  int rc = PMPI_Start(req);
  if (rc != MPI_SUCCESS) return rc;
  e.schedule = e.persistent();
  e.done = false;
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
    for (const auto& [handle, e] : g_entries)
      outstanding = outstanding || (e.schedule && !e.done && e.comm == comm);
    if (!outstanding) return;
  }
}

void drain_collectives() {
  while (collectives_outstanding()) {
    progress_collectives_slow();
    std::this_thread::yield();
  }
  std::lock_guard<std::recursive_mutex> g(g_mu);
  g_entries.clear();
  g_owned.store(0, std::memory_order_relaxed);
}

// ---- for the Wait/Test family -----------------------------------------------

bool collectives_involved(int n, const MPI_Request reqs[]) {
  if (collectives_outstanding()) return true;
  if (g_owned.load(std::memory_order_relaxed) == 0) return false;
  std::lock_guard<std::recursive_mutex> g(g_mu);
  for (int i = 0; i < n; ++i)
    if (reqs[i] != MPI_REQUEST_NULL && g_entries.count(reqs[i])) return true;
  return false;
}

std::vector<Finished> collective_pass(int n, MPI_Request reqs[],
                                      const std::function<int()>& test_form,
                                      const std::function<bool(int)>& completed_by_form, int* rc) {
  std::vector<std::pair<int, std::unique_ptr<Schedule>>> completed;
  {
    std::lock_guard<std::recursive_mutex> g(g_mu);
    advance_locked();
    std::vector<std::pair<int, MPI_Request>> mine;
    for (int i = 0; i < n; ++i) {
      if (reqs[i] == MPI_REQUEST_NULL) continue;
      auto it = g_entries.find(reqs[i]);
      if (it != g_entries.end() && it->second.schedule) mine.emplace_back(i, reqs[i]);
    }
    *rc = test_form();
    for (auto [i, handle] : mine) {
      // A persistent request stays allocated, inactive, once complete.
      if (reqs[i] != MPI_REQUEST_NULL && !completed_by_form(i)) continue;
      auto it = g_entries.find(handle);
      completed.emplace_back(i, std::move(it->second.schedule));
      if (!it->second.persistent) erase(it);
    }
  }
  std::vector<Finished> out;
  for (auto& [i, s] : completed) out.push_back({i, s->finish()});
  return out;
}

CallResult collective_request_free(MPI_Request* req) {
  if (g_owned.load(std::memory_order_relaxed) == 0) return kDeclined;
  std::lock_guard<std::recursive_mutex> g(g_mu);
  auto it = g_entries.find(*req);
  if (it == g_entries.end()) return kDeclined;
  Entry& e = it->second;
  if (e.persistent) {
    // Active, MPI frees the receive once the schedule's signal completes it.
    if (!e.schedule || e.done)
      erase(it);
    else
      e.freed = true;
    return PMPI_Request_free(req);
  }
  if (e.done) {
    erase(it);
    return PMPI_Request_free(req);
  }
  e.freed = true;  // advance_locked frees it in MPI when done
  *req = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}

}  // namespace adacomp
