// The optional progress thread (ADACOMP_PROGRESS=thread): advances the
// outstanding compressed schedules while the application computes without
// entering MPI, so a collective started before the computation can be done
// when it ends.
//
// It runs only when the application initialised MPI with
// MPI_THREAD_MULTIPLE: the thread makes MPI calls (PMPI_Test, PMPI_Isend,
// PMPI_Grequest_complete) concurrently with the application's. At any lower
// level the library polls as without the setting, and rank 0 says so once,
// at MPI_Init.
//
// Idle policy: nothing outstanding, the thread sleeps on a condition
// variable that launch and MPI_Start signal, so it takes no core.
// While schedules are outstanding it advances them, yields for the first
// kSpinPasses passes that complete no message (messages of a running
// collective follow each other closely), then sleeps, 1 us doubled per idle
// pass up to kMaxSleep (a peer that is computing may not answer for long,
// and every pass costs the application's computation a little). Any
// completed message resets the backoff.
//
// Concurrency with the application's threads is the engine's one lock
// (schedule.cpp); the thread only ever try-locks it, so a Wait/Test that
// holds it is never delayed by the thread, and the thread backs off.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "coll/schedule.h"
#include "runtime/runtime.h"

namespace adacomp {

std::atomic<unsigned> g_engine_moves{0};
std::atomic<bool> g_progress_thread{false};

namespace {

constexpr int kSpinPasses = 64;
constexpr auto kMaxSleep = std::chrono::microseconds(1000);

std::mutex g_idle_mu;
std::condition_variable g_idle_cv;
std::atomic<bool> g_stop{false};  // set under g_idle_mu
std::thread g_thread;

const char* level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    default:
      return "MPI_THREAD_MULTIPLE";
  }
}

void run() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lk(g_idle_mu);
      g_idle_cv.wait(lk, [] { return g_stop.load() || collectives_outstanding(); });
      if (g_stop) return;
    }
    int idle = 0;
    auto sleep = std::chrono::microseconds(1);
    while (collectives_outstanding()) {
      const unsigned before = g_engine_moves.load(std::memory_order_relaxed);
      progress_collectives_slow();
      if (g_engine_moves.load(std::memory_order_relaxed) != before) {
        idle = 0;
        sleep = std::chrono::microseconds(1);
      } else if (++idle <= kSpinPasses) {
        std::this_thread::yield();
      } else {
        std::this_thread::sleep_for(sleep);
        sleep = std::min(sleep * 2, kMaxSleep);
      }
      if (g_stop.load(std::memory_order_relaxed)) return;
    }
  }
}

}  // namespace

void progress_thread_start() {
  // Without ADACOMP_NONBLOCKING there is never a schedule to advance.
  if (!config().progress_thread || !config().nonblocking) return;
  int provided = MPI_THREAD_SINGLE, rank = 0;
  PMPI_Query_thread(&provided);
  if (provided != MPI_THREAD_MULTIPLE) {
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
      std::fprintf(stderr,
                   "adacomp: ADACOMP_PROGRESS=thread needs MPI_THREAD_MULTIPLE (MPI provided "
                   "%s); schedules advance by polling instead\n",
                   level_name(provided));
    return;
  }
  g_stop = false;
  g_thread = std::thread(run);
  g_progress_thread.store(true, std::memory_order_release);
}

void wake_progress_thread_slow() {
  { std::lock_guard<std::mutex> lk(g_idle_mu); }  // no lost wake-up: run() checks under it
  g_idle_cv.notify_one();
}

void progress_thread_stop() {
  if (!g_progress_thread.load(std::memory_order_acquire)) return;
  {
    std::lock_guard<std::mutex> lk(g_idle_mu);
    g_stop = true;
  }
  g_idle_cv.notify_one();
  g_thread.join();
  g_progress_thread.store(false, std::memory_order_relaxed);
}

}  // namespace adacomp
