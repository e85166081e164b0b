// State of one compressed collective call: the codec, the statistics it
// feeds and whether anything failed. Failures are remembered, not acted on
// at once, so that every rank still completes the communication pattern and
// no peer is left waiting; finish() then reports through MPI's error handler.
#pragma once

#include <cstddef>
#include <cstdint>

#include <mpi.h>

#include "codec/codec.h"
#include "coll/plan.h"
#include "runtime/comm_state.h"
#include "runtime/stats.h"
#include "runtime/transfer.h"

namespace adacomp {

constexpr int kTagRing = 1;
constexpr int kTagTree = 2;
// Never sent: probed for, to drive MPI's progress (progress()).
constexpr int kTagNever = 3;

class CompressedCall {
 public:
  // Frames travel between the ranks of `group` (the private communicator,
  // or one of its node-aware splits). `form`: how the application called
  // `op`, which its errors name.
  CompressedCall(MPI_Comm app, const Plan& plan, OpKind op, const Group& group,
                 CallForm form = CallForm::blocking);
  CompressedCall(MPI_Comm app, const Plan& plan, OpKind op, CallForm form = CallForm::blocking)
      : CompressedCall(app, plan, op, plan.state->coll, form) {}

  // Error bound of each compression of this call. A lossy plan with no
  // usable bound (e.g. a constant field under a relative bound) codes
  // losslessly instead.
  void set_hop_bound(double abs_bound);
  bool lossy() const { return coder_.codec->lossy; }

  // Encodes `bytes` of src into frame (capacity frame_capacity(bytes)).
  size_t encode(const void* src, size_t bytes, uint8_t* frame);
  // Decodes a received frame; on failure remembers the codec's reason and
  // returns false.
  bool decode(const uint8_t* frame, size_t frame_bytes, void* dst, size_t raw_bytes);
  // Checks the status of a payload decoded outside decode(), remembering
  // the codec's reason on failure.
  bool check_decoded(long status) { return errors_.codec(status); }
  // The operation's counters, for coding done outside encode() and decode()
  // (the reduction on codes times its quantisation and code payloads there).
  OpStats& stats() { return stats_; }

  // Point-to-point on the private communicator, counted in the statistics.
  void isend(const uint8_t* frame, size_t frame_bytes, size_t raw_bytes, int peer,
             int tag, MPI_Request* req);
  void irecv(uint8_t* frame, size_t capacity, int peer, int tag, MPI_Request* req);
  // Waits for requests; for each receive stores the received byte count.
  void wait_all(int n, MPI_Request* reqs, size_t* recv_bytes = nullptr);
  // Completes a receive if it has arrived (progressing MPI meanwhile).
  bool test(MPI_Request* req, size_t* recv_bytes);
  // Lets MPI move data between codec calls: Open MPI's and MPICH's TCP
  // transports advance sends, receives and rendezvous only inside MPI calls.
  void progress();
  // Completes all n requests if all are done, like wait_all.
  bool test_all(int n, MPI_Request* reqs, size_t* recv_bytes = nullptr);

  // Reports failures; in the adaptive policy also records this call's time.
  // A nonblocking call finishes when the application completes its request.
  int finish();
  // The same, first reporting `rc` of a PMPI stage of the call.
  int finish_with(int rc) {
    errors_.mpi(rc);
    return finish();
  }

  const Group& group;
  const Plan& plan;

 private:
  MPI_Comm app_;
  OpKind op_;
  CallForm form_;
  OpStats& stats_;
  Coder coder_;
  // False inside MPI_Pcontrol(0): frames go stored, and uncounted (the
  // counters are those of coded calls).
  bool coding_ = true;
  TransferErrors errors_;
  double start_;  // MPI_Wtime at construction, for the runtime model
};

// Splits `count` elements into `parts` nearly equal blocks.
inline size_t block_begin(size_t count, int parts, int b) {
  return count * static_cast<size_t>(b) / static_cast<size_t>(parts);
}
inline size_t block_count(size_t count, int parts, int b) {
  return block_begin(count, parts, b + 1) - block_begin(count, parts, b);
}
inline size_t max_block_count(size_t count, int parts) {
  return (count + parts - 1) / parts;
}

}  // namespace adacomp
