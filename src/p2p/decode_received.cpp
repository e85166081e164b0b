// Received messages: a marker's body is taken off the world communicator,
// checked, decoded (channel frames in their channel's order) and unpacked
// into the application's buffer. Every failure names the call the user made
// and what failed.
#include <algorithm>
#include <climits>
#include <cstring>

#include "report/stats.h"
#include "p2p/internal.h"
#include "runtime/datatype.h"
#include "runtime/scratch.h"
#include "transfer/threads.h"
#include "transfer/transfer.h"

namespace adacomp {
namespace {

constexpr const char* kBadHeader = "frame header does not verify";
constexpr const char* kBadSize = "frame size disagrees with its header";
constexpr const char* kBadRecord = "inter-step record does not verify";
constexpr const char* kBadStored = "stored frame sizes disagree";
constexpr const char* kBadElements = "data for a receive type of size 0";
constexpr const char* kBadMarker = "marker does not verify";

// A coded frame received: its bytes and the wire time they saved are the
// send row's, counted once per message; the receive row counts the frame
// and its decoding time.
void count_decoded() {
  stats_for(OpKind::recv).compressed_calls.fetch_add(1, std::memory_order_relaxed);
}

// Waits until frame `rec` from `source` is next on its channel, completing
// the communicator's other receives meanwhile (one of them holds its
// predecessor); kNotYourTurn instead when `may_wait` is false.
int await_turn(P2PComm* st, MPI_Comm app, int source, const ChannelRecord& rec, bool may_wait,
               const char* op) {
  for (;;) {
    RecvChannels::Turn t;
    {
      std::lock_guard<std::mutex> g(st->mu);
      t = st->receiving.turn(source, rec);
    }
    if (t == RecvChannels::Turn::ready) return MPI_SUCCESS;
    if (t == RecvChannels::Turn::invalid)
      return raise_failure(app, Failure::corrupt_frame, op, "inter-step position out of range");
    if (!may_wait) return kNotYourTurn;
    drive_receives(app, op);
  }
}

// Decodes a coded frame's payload from `source`, received at `body`: into
// the user's buffer `dst` or,
// when dst is null, into the accumulator. A channel frame is applied in
// its channel's order. `*plain` gets the decoded bytes.
int decode_coded(P2PComm* st, MPI_Comm app, int source, const FrameHeader& h, const uint8_t* body,
                 uint8_t* dst, bool may_wait, const uint8_t** plain, const char* op) {
  const bool channel = h.flags & kFrameInterstep;
  ChannelRecord rec;
  const uint8_t* coded = body;
  size_t coded_bytes = h.payload_bytes;
  if (channel) {
    if (!st || !read_channel_payload(h, body, &rec, &coded, &coded_bytes))
      return raise_failure(app, Failure::corrupt_frame, op, kBadRecord);
    int rc = await_turn(st, app, source, rec, may_wait, op);
    if (rc != MPI_SUCCESS) return rc;
  }
  // Only now: waiting finishes other receives, which use the same scratch.
  uint8_t* out = dst ? dst : scratch(ScratchSlot::accumulator, h.raw_bytes);
  OpStats& stats = stats_for(OpKind::recv);
  RecvChannels::Outcome outcome = RecvChannels::Outcome::ok;
  const long status = decode_with(stats, [&] {
    const long r = decode_body(h, coded, coded_bytes, out, parallel_for);
    outcome = r == kCodecOk ? RecvChannels::Outcome::ok : RecvChannels::Outcome::corrupt;
    if (channel) {
      // Only this frame advances its channel, so the reference is stable
      // while it was decoded without the lock.
      std::lock_guard<std::mutex> g(st->mu);
      outcome = st->receiving.finish(source, rec, r == kCodecOk, out, h.raw_bytes);
    }
    return r;
  });
  if (outcome != RecvChannels::Outcome::ok) {
    if (channel) tell_sender(st, source, rec.id);
    if (outcome != RecvChannels::Outcome::corrupt)
      return raise_failure(app, Failure::lost_reference, op);
    return status != kCodecOk ? raise_undecodable(app, op, status)
                              : raise_failure(app, Failure::corrupt_frame, op,
                                              "inter-step reference does not match");
  }
  if (rec.xor_prev) stats.interstep_calls.fetch_add(1, std::memory_order_relaxed);
  *plain = out;
  return MPI_SUCCESS;
}

// The end of every receive of a body: decoded (coded) or checked (stored),
// it lands in the user's buffer (unpacked for non-contiguous types).
int land(P2PComm* st, MPI_Comm app, int source, const FrameHeader& h, const uint8_t* body,
         void* buf, MPI_Datatype type, bool may_wait, MPI_Status* s, const char* op) {
  const size_t raw = h.raw_bytes;
  TypeInfo ti = type_info(type);
  uint8_t* dst = static_cast<uint8_t*>(buf) + ti.true_lb;
  const uint8_t* plain = body;
  if (h.codec == CodecId::stored) {
    if (raw != h.payload_bytes || h.flags)
      return raise_failure(app, Failure::corrupt_frame, op, kBadStored);
  } else {
    // Decoded in place only where no other thread may write the buffer
    // meanwhile: a decoder and a channel's reference read back what landed.
    uint8_t* out = ti.contiguous && !threads_share_buffers() ? dst : nullptr;
    int rc = decode_coded(st, app, source, h, body, out, may_wait, &plain, op);
    if (rc != MPI_SUCCESS) return rc;
    count_decoded();
  }
  if (ti.contiguous) {
    if (plain != dst && raw) std::memcpy(dst, plain, raw);
  } else if (raw) {
    if (ti.size == 0) return raise_failure(app, Failure::corrupt_frame, op, kBadElements);
    // May end part-way through an element (MPI_Get_count then gives
    // MPI_UNDEFINED): that element's first basic elements land too.
    unstage(plain, raw, buf, type, ti, app);
  }
  PMPI_Status_set_elements_x(s, MPI_BYTE, static_cast<MPI_Count>(raw));
  return MPI_SUCCESS;
}

// Gives the first `n` bytes and MPI_ERR_TRUNCATE. The status's MPI_ERROR is
// the caller's: only multiple completions set it.
int truncated(MPI_Comm app, MPI_Status* s, size_t n) {
  PMPI_Status_set_elements_x(s, MPI_BYTE, static_cast<MPI_Count>(n));
  return report(app, MPI_ERR_TRUNCATE);
}

// A whole body (frame) from `source` into the user's (buf, count, type).
int finish_body(P2PComm* st, MPI_Comm app, int source, const std::vector<uint8_t>& frame, void* buf,
                int count, MPI_Datatype type, MPI_Status* s, bool may_wait, const char* op) {
  FrameHeader h;
  const uint8_t* body = nullptr;
  switch (read_whole_frame(frame.data(), frame.size(), &h, &body)) {
    case FrameFault::ok:
      break;
    case FrameFault::truncated:
      return raise_failure(app, Failure::truncated_frame, op, kBadSize);
    case FrameFault::bad_header:
      return raise_failure(app, Failure::corrupt_frame, op, kBadHeader);
    case FrameFault::bad_size:
      return raise_failure(app, Failure::corrupt_frame, op, kBadSize);
  }
  const size_t cap = data_size(count, type);
  TypeInfo ti = type_info(type);
  uint8_t* dst = static_cast<uint8_t*>(buf) + ti.true_lb;
  if (h.raw_bytes <= cap) return land(st, app, source, h, body, buf, type, may_wait, s, op);
  // Too long for the receive, as plain MPI says with MPI_ERR_TRUNCATE. A
  // coded frame is decoded all the same (its channel keeps its reference);
  // a contiguous buffer gets the message's first bytes.
  const uint8_t* plain = body;
  if (h.codec != CodecId::stored) {
    int rc = decode_coded(st, app, source, h, body, nullptr, may_wait, &plain, op);
    if (rc != MPI_SUCCESS) return rc;
  }
  if (ti.contiguous && cap) std::memcpy(dst, plain, cap);
  return truncated(app, s, cap);
}

// `bytes` at src as a stored frame in *out (a probed message kept for its
// receive: the application's own, or a channel frame applied at once).
void stored_frame(const uint8_t* src, size_t bytes, std::vector<uint8_t>* out) {
  out->resize(frame_capacity(bytes));
  uint8_t* payload = begin_stored_frame(bytes, ElemKind::bytes, out->data());
  if (bytes) std::memcpy(payload, src, bytes);
}

// The marker in the first kMarkerBytes of the user's (buf, count, type),
// packed back out of a non-contiguous type (stage_in: MPI_BOTTOM too).
void marker_bytes(const void* buf, int count, MPI_Datatype type, MPI_Comm app, uint8_t* out) {
  TypeInfo ti = type_info(type);
  if (ti.contiguous) {
    std::memcpy(out, static_cast<const uint8_t*>(buf) + ti.true_lb, kMarkerBytes);
    return;
  }
  // The elements that hold it (the last perhaps in part): the receive held
  // at least kMarkerBytes, so `count` covers them.
  std::memset(out, 0, kMarkerBytes);
  if (ti.size == 0) return;  // never a marker: it would not have fitted
  const int elements = std::min(count, static_cast<int>((kMarkerBytes + ti.size - 1) / ti.size));
  std::vector<uint8_t> packed(static_cast<size_t>(elements) * ti.size);
  if (packed.size() < kMarkerBytes) return;
  const uint8_t* p = stage_in(packed.data(), buf, elements, type, ti, packed.size(), true, app);
  std::memcpy(out, p, kMarkerBytes);
}

}  // namespace

bool recv_staging(int count, MPI_Datatype type, std::vector<uint8_t>* staging) {
  if (!threads_share_buffers()) return true;
  const size_t cap = data_size(count, type);
  if (cap > static_cast<size_t>(INT_MAX)) return false;
  staging->resize(cap);
  return true;
}

void lose_cut_marker(P2PComm* st, int source) {
  if (source < 0 || st->direct(source)) return;
  {
    std::lock_guard<std::mutex> g(st->mu);
    st->receiving.lose_source(source);
  }
  tell_sender(st, source, 0);
}

int finish_recv(P2PComm* st, MPI_Comm app, const std::vector<uint8_t>& staging,
                std::vector<uint8_t>* body, void* buf, int count, MPI_Datatype type, MPI_Status* s,
                bool may_wait, bool cut, const char* op) {
  int cancelled = 0;
  PMPI_Test_cancelled(s, &cancelled);
  if (cancelled) return MPI_SUCCESS;
  const int source = s->MPI_SOURCE;
  const bool staged = !staging.empty();
  // Only a framed peer sends markers: a direct peer's message size is asked
  // only to copy it out of the staging buffer (MPICH: 120 instructions).
  const bool asks_size = body->empty() && (staged || !st->direct(source));
  const MPI_Count got = asks_size ? status_bytes(s) : 0;
  if (staged && (cut || !st->is_marker(got, source)) && got > 0) {
    const TypeInfo ti = type_info(type);
    const size_t n = std::min(static_cast<size_t>(got), staging.size());
    if (ti.contiguous)
      std::memcpy(static_cast<uint8_t*>(buf) + ti.true_lb, staging.data(), n);
    else
      unstage(staging.data(), n, buf, type, ti, app);
  }
  if (cut) {
    // MPI has reported it. A receive smaller than a marker may have cut one,
    // whose body no receive will take (bodies_close drops it): that
    // sender's channels must not wait for a frame that may be lost.
    if (data_size(count, type) < kMarkerBytes) lose_cut_marker(st, source);
    return MPI_ERR_TRUNCATE;
  }
  if (body->empty()) {
    if (!st->is_marker(got, source)) return MPI_SUCCESS;  // the application's data
    uint8_t bytes[kMarkerBytes];
    if (staged)
      std::memcpy(bytes, staging.data(), kMarkerBytes);
    else
      marker_bytes(buf, count, type, app, bytes);
    Marker m;
    if (!read_marker(bytes, &m)) return raise_failure(app, Failure::corrupt_frame, op, kBadMarker);
    int rc = recv_body(st->world[source], m, body);
    if (rc != MPI_SUCCESS) return report(app, rc);
  }
  return finish_body(st, app, source, *body, buf, count, type, s, may_wait, op);
}

int deliver(const Stashed& m, void* buf, int count, MPI_Datatype type, MPI_Status* status,
            const char* op) {
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  set_status(s, m.source, m.tag, 0);
  return finish_body(p2p_of(m.app), m.app, m.source, m.frame, buf, count, type, s, true, op);
}

int take_message(P2PComm* st, MPI_Comm app, MPI_Message* msg, const MPI_Status& probed,
                 Stashed* out, const char* op) {
  const MPI_Count bytes = status_bytes(const_cast<MPI_Status*>(&probed));
  std::vector<uint8_t> data(static_cast<size_t>(bytes));
  MPI_Status s;
  const int n = static_cast<int>(bytes);
  int rc = kNoMatchedProbe
               ? PMPI_Recv(data.data(), n, MPI_BYTE, probed.MPI_SOURCE, probed.MPI_TAG, app, &s)
               : PMPI_Mrecv(data.data(), n, MPI_BYTE, msg, &s);
  if (rc != MPI_SUCCESS) return rc;
  out->source = s.MPI_SOURCE;
  out->tag = s.MPI_TAG;
  out->app = app;
  if (!st->is_marker(bytes, s.MPI_SOURCE)) {
    stored_frame(data.data(), data.size(), &out->frame);
    return MPI_SUCCESS;
  }
  Marker m;
  if (!read_marker(data.data(), &m))
    return raise_failure(app, Failure::corrupt_frame, op, kBadMarker);
  rc = recv_body(st->world[s.MPI_SOURCE], m, &out->frame);
  if (rc != MPI_SUCCESS) return report(app, rc);
  // A channel frame is applied now, in its channel's order, and kept
  // decoded (as a stored frame).
  FrameHeader h;
  const uint8_t* payload = nullptr;
  if (read_whole_frame(out->frame.data(), out->frame.size(), &h, &payload) != FrameFault::ok ||
      !(h.flags & kFrameInterstep))
    return MPI_SUCCESS;  // a damaged frame fails at its receive
  const uint8_t* plain = nullptr;
  rc = decode_coded(st, app, out->source, h, payload, nullptr, true, &plain, op);
  if (rc != MPI_SUCCESS) return rc;
  count_decoded();
  std::vector<uint8_t> stored;
  stored_frame(plain, h.raw_bytes, &stored);
  out->frame = std::move(stored);
  return MPI_SUCCESS;
}

}  // namespace adacomp
