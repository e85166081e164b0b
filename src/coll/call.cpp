#include "coll/call.h"

#include <vector>

#include "coll/schedule.h"
#include "policy/tier.h"
#include "runtime/runtime.h"
#include "wire/frame.h"

namespace adacomp {

CompressedCall::CompressedCall(MPI_Comm app, const Plan& p, Op op, const Group& g)
    : group(g), plan(p), app_(app), op_(op), stats_(stats_for(op)), codec_(p.codec),
      params_(p.params), start_(PMPI_Wtime()) {
  stats_.compressed_calls.fetch_add(1, std::memory_order_relaxed);
  if (p.tier.tier == Tier::lossy) stats_.lossy_calls.fetch_add(1, std::memory_order_relaxed);
  if (p.chunks > 1) stats_.pipelined_calls.fetch_add(1, std::memory_order_relaxed);
}

void CompressedCall::set_hop_bound(double abs_bound) {
  params_.abs_bound = abs_bound;
  if (codec_->lossy && !(abs_bound > 0))
    codec_ = &codec_for(config(), Tier::lossless, params_.kind);
}

size_t CompressedCall::encode(const void* src, size_t bytes, uint8_t* frame) {
  ScopedTimer t(stats_.ns_compress);
  size_t n = encode_frame(*codec_, params_, src, bytes, frame);
  if (config().fault_corrupt_frames) frame[8] ^= 0x5A;  // breaks raw_bytes and the checksum
  return n;
}

bool CompressedCall::decode(const uint8_t* frame, size_t frame_bytes, void* dst,
                            size_t raw_bytes) {
  ScopedTimer t(stats_.ns_decompress);
  if (decode_frame(frame, frame_bytes, dst, raw_bytes) == kCodecOk) return true;
  corrupt_ = true;
  return false;
}

void CompressedCall::check(int rc) {
  if (rc != MPI_SUCCESS && mpi_error_ == MPI_SUCCESS) mpi_error_ = rc;
}

void CompressedCall::isend(const uint8_t* frame, size_t frame_bytes, size_t raw_bytes,
                           int peer, int tag, MPI_Request* req) {
  stats_.bytes_in.fetch_add(raw_bytes, std::memory_order_relaxed);
  stats_.bytes_wire.fetch_add(frame_bytes, std::memory_order_relaxed);
  check(PMPI_Isend(frame, static_cast<int>(frame_bytes), MPI_BYTE, peer, tag, group.comm,
                   req));
}

void CompressedCall::irecv(uint8_t* frame, size_t capacity, int peer, int tag,
                           MPI_Request* req) {
  check(PMPI_Irecv(frame, static_cast<int>(capacity), MPI_BYTE, peer, tag, group.comm, req));
}

namespace {
size_t received_bytes(const MPI_Status& st) {
  int got = 0;
  PMPI_Get_count(&st, MPI_BYTE, &got);
  return got < 0 ? 0 : static_cast<size_t>(got);
}
}  // namespace

// While nonblocking collectives are outstanding a blocking wait keeps
// advancing them: a peer may be waiting for one of them before it can take
// part in this call.
void CompressedCall::wait_all(int n, MPI_Request* reqs, size_t* recv_bytes) {
  if (collectives_outstanding()) {
    while (!test_all(n, reqs, recv_bytes)) progress_collectives();
    return;
  }
  MPI_Status st[8];
  for (int i = 0; i < n; i += 8) {
    int m = n - i < 8 ? n - i : 8;
    check(PMPI_Waitall(m, reqs + i, st));
    if (!recv_bytes) continue;
    for (int j = 0; j < m; ++j) recv_bytes[i + j] = received_bytes(st[j]);
  }
}

// One Testall over the whole array: a partly done array reports nothing, so
// the byte counts come from the statuses of the call that completes it.
bool CompressedCall::test_all(int n, MPI_Request* reqs, size_t* recv_bytes) {
  std::vector<MPI_Status> st(recv_bytes ? n : 0);
  int done = 0;
  const int rc = PMPI_Testall(n, reqs, &done, recv_bytes ? st.data() : MPI_STATUSES_IGNORE);
  check(rc);
  if (rc != MPI_SUCCESS) return true;  // remembered; waiting on would never end
  if (done && recv_bytes)
    for (int j = 0; j < n; ++j) recv_bytes[j] = received_bytes(st[j]);
  return done;
}

bool CompressedCall::test(MPI_Request* req, size_t* recv_bytes) {
  int done = 0;
  MPI_Status st;
  check(PMPI_Test(req, &done, &st));
  if (done) *recv_bytes = received_bytes(st);
  return done;
}

int CompressedCall::finish() {
  record_time(plan, PMPI_Wtime() - start_);
  if (mpi_error_ != MPI_SUCCESS) {
    PMPI_Comm_call_errhandler(app_, mpi_error_);
    return mpi_error_;
  }
  if (corrupt_) return raise_failure(app_, Failure::corrupt_frame, op_display_name(op_));
  return MPI_SUCCESS;
}

}  // namespace adacomp
