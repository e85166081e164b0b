#include "transfer/pool.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include <pthread.h>

namespace adacomp {
namespace {

constexpr char kThreadName[] = "adacomp-code";

// One pool_run: its tasks, taken by index by whichever thread is free.
struct Job {
  const std::function<void(size_t)>* task;
  size_t n;
  std::atomic<size_t> next{0};
  size_t done = 0;  // tasks finished (under Pool::mu_)

  size_t drain() {
    size_t ran = 0;
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n; ++ran) (*task)(i);
    return ran;
  }
};

class Pool {
 public:
  void run(size_t workers, size_t n, const std::function<void(size_t)>& task) {
    std::unique_lock<std::mutex> use(use_, std::try_to_lock);
    if (!use.owns_lock()) {  // the pool is busy with another thread's message
      for (size_t i = 0; i < n; ++i) task(i);
      return;
    }
    while (threads_.size() < workers) threads_.emplace_back([this] { work(); });
    Job job{&task, n};
    {
      std::lock_guard<std::mutex> g(mu_);
      job_ = &job;
      ++generation_;
    }
    wake_.notify_all();
    const size_t ran = job.drain();
    std::unique_lock<std::mutex> l(mu_);
    job.done += ran;
    // The job lives on this stack: no worker may still hold it.
    finished_.wait(l, [&] { return job.done == n && holders_ == 0; });
    job_ = nullptr;
  }

  void stop() {
    std::lock_guard<std::mutex> use(use_);
    {
      std::lock_guard<std::mutex> g(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
    stop_ = false;
  }

 private:
  void work() {
    pthread_setname_np(pthread_self(), kThreadName);  // visible in top -H, checked by tests
    std::unique_lock<std::mutex> l(mu_);
    uint64_t seen = generation_;
    for (;;) {
      wake_.wait(l, [&] { return stop_ || (job_ && generation_ != seen); });
      if (stop_) return;
      seen = generation_;
      Job* job = job_;
      ++holders_;
      l.unlock();
      const size_t ran = job->drain();
      l.lock();
      job->done += ran;
      --holders_;
      if (job->done == job->n && holders_ == 0) finished_.notify_all();
    }
  }

  std::mutex use_;  // held by the one pool_run using the pool
  std::mutex mu_;
  std::condition_variable wake_, finished_;
  std::vector<std::thread> threads_;
  Job* job_ = nullptr;
  uint64_t generation_ = 0;
  size_t holders_ = 0;  // workers inside job_
  bool stop_ = false;
};

// Never destroyed: a program that exits without MPI_Finalize must not
// terminate on joinable threads.
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

}  // namespace

void pool_run(size_t threads, size_t n, const std::function<void(size_t)>& task) {
  if (threads <= 1 || n <= 1) {
    for (size_t i = 0; i < n; ++i) task(i);
    return;
  }
  pool().run(threads - 1, n, task);
}

void pool_stop() { pool().stop(); }

}  // namespace adacomp
