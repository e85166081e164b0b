#include "coll/compressed_call.h"

#include <cmath>

#include "coll/schedule.h"
#include "decision/tier.h"
#include "runtime/runtime.h"

namespace adacomp {

namespace {
// A discarded run's time, which the second run of the same call, built next
// on this thread, counts as its own (the runtime model times the call).
thread_local double t_discarded_seconds = 0;
}  // namespace

CompressedCall::CompressedCall(MPI_Comm app, const CollPlan& p, OpKind op, const Group& g,
                               CallForm form)
    : group(g),
      plan(p),
      app_(app),
      op_(op),
      form_(form),
      stats_(stats_for(op)),
      coder_{p.codec, p.params},
      start_(PMPI_Wtime() - t_discarded_seconds) {
  t_discarded_seconds = 0;
  // MPI_Pcontrol(0): the same path, its frames stored (runtime.h coding_on).
  if (!coding_on()) {
    coder_.codec = find_codec(CodecId::stored);
    coding_ = false;
    return;
  }
  count(1);
}

void CompressedCall::count(unsigned long long n) {
  stats_.compressed_calls.fetch_add(n, std::memory_order_relaxed);
  if (plan.tier.tier == Tier::lossy) stats_.lossy_calls.fetch_add(n, std::memory_order_relaxed);
  if (plan.chunks > 1 || plan.segments > 1)
    stats_.pipelined_calls.fetch_add(n, std::memory_order_relaxed);
}

void CompressedCall::discard() {
  if (coding_) count(-1ULL);
  t_discarded_seconds = PMPI_Wtime() - start_;
}

void CompressedCall::set_hop_bound(double abs_bound) {
  coder_.params.abs_bound = abs_bound;
  if (coder_.codec->lossy && !(abs_bound > 0))
    coder_.codec = &codec_for(config(), Tier::lossless, coder_.params.kind);
}

uint8_t* CompressedCall::memory(ScratchSlot slot, size_t bytes) {
  if (blocking()) return scratch(slot, bytes);
  owned_.emplace_back(new uint8_t[bytes ? bytes : 1]);  // not zeroed: written before read
  return owned_.back().get();
}

size_t CompressedCall::encode(const void* src, size_t bytes, uint8_t* frame) {
  return encode(coder_, src, bytes, frame);
}

size_t CompressedCall::encode(const Coder& coder, const void* src, size_t bytes, uint8_t* frame) {
  return encode_payload(coder, src, bytes, frame, stats_);
}

bool CompressedCall::decode(const uint8_t* frame, size_t frame_bytes, void* dst, size_t raw_bytes) {
  return errors_.codec(decode_payload(frame, frame_bytes, dst, raw_bytes, stats_));
}

void CompressedCall::isend(const uint8_t* frame, size_t frame_bytes, size_t raw_bytes, int peer,
                           int tag, MPI_Request* req) {
  if (coding_) count_frame(stats_, raw_bytes, frame_bytes);
  errors_.mpi(
      PMPI_Isend(frame, static_cast<int>(frame_bytes), MPI_BYTE, peer, tag, group.comm, req));
}

void CompressedCall::irecv(uint8_t* frame, size_t capacity, int peer, int tag, MPI_Request* req) {
  errors_.mpi(PMPI_Irecv(frame, static_cast<int>(capacity), MPI_BYTE, peer, tag, group.comm, req));
}

namespace {
size_t received_bytes(const MPI_Status& st) {
  int got = 0;
  PMPI_Get_count(&st, MPI_BYTE, &got);
  return got < 0 ? 0 : static_cast<size_t>(got);
}

// After a Waitall or Testall that failed with MPI_ERR_IN_STATUS, the
// requests that completed are null; the others (MPI_ERR_PENDING) are still
// in flight into and out of this call's memory, and their peers go on with
// the pattern: they must complete before the call ends (a truncated
// receive in an erroneous program, e.g. MPICH's errors/coll/gatherlength,
// left MPI writing into freed frames).
bool all_null(int n, const MPI_Request* reqs) {
  for (int i = 0; i < n; ++i)
    if (reqs[i] != MPI_REQUEST_NULL) return false;
  return true;
}
}  // namespace

bool CompressedCall::complete(int n, MPI_Request* reqs, size_t* recv_bytes, bool wait) {
  if (wait) {
    wait_all(n, reqs, recv_bytes);
    return true;
  }
  if (n == 1 && recv_bytes) return test(reqs, recv_bytes);
  return test_all(n, reqs, recv_bytes);
}

// While nonblocking collectives are outstanding a blocking wait keeps
// advancing them: a peer may be waiting for one of them before it can take
// part in this call.
void CompressedCall::wait_all(int n, MPI_Request* reqs, size_t* recv_bytes) {
  if (collectives_outstanding()) {
    while (!test_all(n, reqs, recv_bytes)) progress_collectives();
    return;
  }
  // The idle work first, while the requests are not all complete.
  if (idle_) {
    while (!test_all(n, reqs, recv_bytes))
      if (!idle_()) break;
  }
  MPI_Status st[8];
  for (int i = 0; i < n; i += 8) {
    int m = n - i < 8 ? n - i : 8;
    // A request test_all completed is null now: its byte count is kept.
    bool active[8];
    for (int j = 0; j < m; ++j) active[j] = reqs[i + j] != MPI_REQUEST_NULL;
    const int rc = PMPI_Waitall(m, reqs + i, st);
    errors_.mpi(rc);
    if (rc == MPI_ERR_IN_STATUS)
      for (int j = 0; j < m; ++j)
        if (reqs[i + j] != MPI_REQUEST_NULL) errors_.mpi(PMPI_Wait(&reqs[i + j], &st[j]));
    if (!recv_bytes) continue;
    for (int j = 0; j < m; ++j)
      if (active[j]) recv_bytes[i + j] = received_bytes(st[j]);
  }
}

// Testsome, not Testall: each receive's byte count is taken from the call
// that completes it. (SMPI 3.32's Testall completes and frees the requests
// that are done even when it reports the array not done, so their statuses
// would be lost there.)
bool CompressedCall::test_all(int n, MPI_Request* reqs, size_t* recv_bytes) {
  std::vector<int> done(n);
  std::vector<MPI_Status> st(recv_bytes ? n : 0);
  int count = 0;
  const int rc =
      PMPI_Testsome(n, reqs, &count, done.data(), recv_bytes ? st.data() : MPI_STATUSES_IGNORE);
  errors_.mpi(rc);
  if (rc == MPI_ERR_IN_STATUS) return all_null(n, reqs);
  if (rc != MPI_SUCCESS) return true;  // remembered; the requests' state is unknown
  if (count == MPI_UNDEFINED) return true;  // none was active
  if (count > 0) note_engine_move();
  if (recv_bytes)
    for (int j = 0; j < count; ++j) recv_bytes[done[j]] = received_bytes(st[j]);
  return all_null(n, reqs);
}

bool CompressedCall::test(MPI_Request* req, size_t* recv_bytes) {
  int done = 0;
  MPI_Status st;
  errors_.mpi(PMPI_Test(req, &done, &st));
  if (!done) return false;
  note_engine_move();
  *recv_bytes = received_bytes(st);
  return true;
}

// A probe for a message that never comes: it matches nothing, so MPI runs
// its progress engine and returns.
void CompressedCall::progress() {
  int flag = 0;
  errors_.mpi(PMPI_Iprobe(MPI_ANY_SOURCE, kTagNever, group.comm, &flag, MPI_STATUS_IGNORE));
}

int CompressedCall::finish() {
  record_time(plan.state, plan.model, PMPI_Wtime() - start_);
  // What this rank knows of its result (adacomp_last_bound): exact, the
  // proven bound, or lossy under a bound only the senders know (a Bcast's
  // receivers, the data movement's).
  const bool lossy_result = plan.tier.tier == Tier::lossy && lossy();
  plan.state->last_bound = !lossy_result           ? 0
                           : certificate_.given()  ? certificate_.proven
                                                   : HUGE_VAL;
  if (lossy_result) note_certificate(certificate_);
  return errors_.report(app_, call_name(op_, form_).c_str());
}

}  // namespace adacomp
