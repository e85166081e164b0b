// The context of one compressed collective call, for every algorithm and
// every form (blocking, nonblocking, persistent): the codec, the statistics
// it feeds, the call's start time for the runtime model, the memory its
// schedule works in, and whether anything failed. Failures are remembered,
// not acted on at once, so that every rank still completes the communication
// pattern and no peer is left waiting; finish() then reports through MPI's
// error handler and records the call's time in the model.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <mpi.h>

#include "codec/codec.h"
#include "coll/plan.h"
#include "report/stats.h"
#include "decision/budget.h"
#include "runtime/comm_state.h"
#include "runtime/scratch.h"
#include "transfer/transfer.h"

namespace adacomp {

// The blocking calls' tags; each nonblocking call has its own
// (next_collective_tag, coll/schedule.h).
constexpr int kTagRing = 1;
constexpr int kTagTree = 2;
// Never sent: probed for, to drive MPI's progress (progress()).
constexpr int kTagNever = 3;
constexpr int kTagExchange = 4;

class CompressedCall {
 public:
  // Frames travel between the ranks of `group` (the private communicator,
  // or one of its node-aware splits). `form`: how the application called
  // `op`, which its errors name.
  CompressedCall(MPI_Comm app, const CollPlan& plan, OpKind op, const Group& group, CallForm form);
  CompressedCall(MPI_Comm app, const CollPlan& plan, OpKind op, CallForm form)
      : CompressedCall(app, plan, op, plan.state->coll, form) {}

  // Error bound of each compression of this call. A lossy plan with no
  // usable bound (e.g. a constant field under a relative bound) codes
  // losslessly instead.
  void set_hop_bound(double abs_bound);
  // What the call's coding proves for its result (decision/budget.h): the
  // report's certificate of its site, and adacomp_last_bound's value.
  void set_certificate(const LossyCertificate& c) { certificate_ = c; }
  bool lossy() const { return coder_.codec->lossy; }
  bool blocking() const { return form_ == CallForm::blocking; }
  OpKind op() const { return op_; }

  // Work a blocking call does while it would otherwise wait on the wire
  // (LossyAgreement's deferred scan): `work` does one short piece and
  // returns false once nothing is left. idle_work() runs one piece.
  void on_idle(std::function<bool()> work) { idle_ = std::move(work); }
  bool idle_work() { return idle_ && idle_(); }

  // `bytes` of working memory: this thread's scratch `slot` for a blocking
  // call (done before the thread's next call), else the call's own heap
  // memory (a schedule outlives the call that started it), kept until the
  // call is destroyed.
  uint8_t* memory(ScratchSlot slot, size_t bytes);

  // Encodes `bytes` of src into frame (capacity frame_capacity(bytes)),
  // with the plan's codec or `coder`.
  size_t encode(const void* src, size_t bytes, uint8_t* frame);
  size_t encode(const Coder& coder, const void* src, size_t bytes, uint8_t* frame);
  // Decodes a received frame; on failure remembers the codec's reason and
  // returns false.
  bool decode(const uint8_t* frame, size_t frame_bytes, void* dst, size_t raw_bytes);
  // Checks the status of a payload decoded outside decode(), remembering
  // the codec's reason on failure.
  bool check_decoded(long status) { return errors_.codec(status); }
  // The operation's counters, for coding done outside encode() and decode()
  // (the reduction on codes times its quantisation and code payloads there).
  OpStats& stats() { return stats_; }
  // Remembers the code of an MPI call the algorithm made itself.
  void check_mpi(int rc) { errors_.mpi(rc); }
  bool mpi_failed() const { return errors_.mpi_failed(); }

  // Point-to-point on the private communicator, counted in the statistics.
  void isend(const uint8_t* frame, size_t frame_bytes, size_t raw_bytes, int peer, int tag,
             MPI_Request* req);
  void irecv(uint8_t* frame, size_t capacity, int peer, int tag, MPI_Request* req);
  // Completes n requests, storing each receive's byte count in recv_bytes
  // (when given): with `wait` blocks until they are (always true), else
  // true only if they all are.
  bool complete(int n, MPI_Request* reqs, size_t* recv_bytes, bool wait);
  // Completes a receive if it has arrived (progressing MPI meanwhile).
  bool test(MPI_Request* req, size_t* recv_bytes);
  // Lets MPI move data between codec calls: Open MPI's and MPICH's TCP
  // transports advance sends, receives and rendezvous only inside MPI calls.
  void progress();

  // A run whose result is made again (Schedule::rerun): the call is
  // counted once, by the run that finishes, whose time starts at this
  // run's start. Its bytes were sent, and stay.
  void discard();

  // Reports failures; in the adaptive policy also records this call's time.
  // A nonblocking call finishes when the application completes its request.
  int finish();

  const Group& group;
  const CollPlan& plan;

 private:
  void count(unsigned long long n);  // the call's counters, by n (-1: back by one)
  void wait_all(int n, MPI_Request* reqs, size_t* recv_bytes);
  bool test_all(int n, MPI_Request* reqs, size_t* recv_bytes);

  MPI_Comm app_;
  OpKind op_;
  CallForm form_;
  OpStats& stats_;
  Coder coder_;
  // False inside MPI_Pcontrol(0): frames go stored, and uncounted (the
  // counters are those of coded calls).
  bool coding_ = true;
  TransferErrors errors_;
  LossyCertificate certificate_;
  double start_;  // MPI_Wtime at construction, for the runtime model
  std::function<bool()> idle_;
  std::vector<std::unique_ptr<uint8_t[]>> owned_;  // memory() of a schedule
};

// Splits `count` elements into `parts` nearly equal blocks.
inline size_t block_begin(size_t count, int parts, int b) {
  return count * static_cast<size_t>(b) / static_cast<size_t>(parts);
}
inline size_t block_count(size_t count, int parts, int b) {
  return block_begin(count, parts, b + 1) - block_begin(count, parts, b);
}
inline size_t max_block_count(size_t count, int parts) { return (count + parts - 1) / parts; }

}  // namespace adacomp
