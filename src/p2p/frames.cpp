// Received frames become the application's data: checked against what
// arrived, decoded (channel frames in their channel's order), unpacked.
// Every failure names the call the user made and what failed.
#include <algorithm>
#include <cstring>

#include "p2p/internal.h"
#include "runtime/datatype.h"
#include "runtime/scratch.h"
#include "runtime/stats.h"
#include "runtime/threads.h"
#include "runtime/transfer.h"

namespace adacomp {
namespace {

constexpr const char* kBadHeader = "frame header does not verify";
constexpr const char* kBadSize = "frame size disagrees with its header";
constexpr const char* kBadRecord = "inter-step record does not verify";
constexpr const char* kBadStored = "stored frame sizes disagree";
constexpr const char* kBadElements = "data for a receive type of size 0";

// The failure a frame of `wire` bytes gives when its sizes do not add up.
Failure size_failure(const FrameHeader* h, size_t wire) {
  return wire < kFrameHeaderBytes || (h && wire < kFrameHeaderBytes + h->payload_bytes)
             ? Failure::truncated_frame
             : Failure::corrupt_frame;
}

// A frame's size on the wire: header + payload, or a coded payload padded to
// kMinCodedPayload.
bool wire_size_ok(const FrameHeader& h, size_t wire) {
  const size_t body = wire - kFrameHeaderBytes;
  if (h.payload_bytes == body) return true;
  return h.codec != CodecId::stored && h.payload_bytes < kMinCodedPayload &&
         body == kMinCodedPayload;
}

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
// the user's buffer `dst` (from a copy when the payload arrived there) or,
// when dst is null, into the accumulator. A channel frame is applied in
// its channel's order. `*plain` gets the decoded bytes.
int decode_coded(P2PComm* st, MPI_Comm app, int source, const FrameHeader& h,
                 const uint8_t* body, uint8_t* dst, bool may_wait, const uint8_t** plain,
                 const char* op) {
  const bool channel = h.flags & kFrameInterstep;
  ChannelRecord rec;
  size_t record = 0;
  if (channel) {
    if (!st || !read_channel_record(body, h.payload_bytes, &rec, &record))
      return raise_failure(app, Failure::corrupt_frame, op, kBadRecord);
    int rc = await_turn(st, app, source, rec, may_wait, op);
    if (rc != MPI_SUCCESS) return rc;
  }
  // Only now: waiting finishes other receives, which use the same scratch.
  uint8_t* out = dst ? dst : scratch(ScratchSlot::accumulator, h.raw_bytes);
  if (body == dst) {
    uint8_t* copy = scratch(ScratchSlot::recv_frame, h.payload_bytes);
    std::memcpy(copy, body, h.payload_bytes);
    body = copy;
  }
  OpStats& stats = stats_for(OpKind::recv);
  RecvChannels::Outcome outcome = RecvChannels::Outcome::ok;
  const long status = decode_with(stats, [&] {
    const long r = decode_body(h, body + record, h.payload_bytes - record, out, parallel_for);
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
    if (channel) tell_sender(app, source, rec.id);
    if (outcome != RecvChannels::Outcome::corrupt)
      return raise_failure(app, Failure::lost_reference, op);
    return status != kCodecOk ? raise_undecodable(app, op, status)
                              : raise_failure(app, Failure::corrupt_frame, op,
                                              "inter-step reference does not match");
  }
  if (rec.xor_prev) stats.xor_calls.fetch_add(1, std::memory_order_relaxed);
  *plain = out;
  return MPI_SUCCESS;
}

// A channel frame that cannot be decoded (truncated) still takes its turn,
// so that its channel's later frames fail rather than wait for it.
void skip_channel_frame(P2PComm* st, MPI_Comm app, int source, const FrameHeader& h,
                        const uint8_t* body, size_t available, const char* op) {
  if (!st || !(h.flags & kFrameInterstep)) return;
  ChannelRecord rec;
  size_t record = 0;
  if (!read_channel_record(body, available, &rec, &record)) {
    {
      std::lock_guard<std::mutex> g(st->mu);
      st->receiving.lose_source(source);
    }
    tell_sender(app, source, 0);
    return;
  }
  if (await_turn(st, app, source, rec, true, op) != MPI_SUCCESS) return;
  {
    std::lock_guard<std::mutex> g(st->mu);
    st->receiving.applied(source, rec, nullptr, h.raw_bytes);
  }
  tell_sender(app, source, rec.id);
}

// The end of every receive: a whole frame's body, its sizes checked, is
// decoded (coded) or checked (stored) and lands in the user's buffer
// (unpacked for non-contiguous types).
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

// Gives the first `n` decoded bytes and MPI_ERR_TRUNCATE. The status's
// MPI_ERROR is the caller's: only multiple completions set it.
int truncated(MPI_Comm app, MPI_Status* s, size_t n) {
  PMPI_Status_set_elements_x(s, MPI_BYTE, static_cast<MPI_Count>(n));
  return report(app, MPI_ERR_TRUNCATE);
}

}  // namespace

int finish_recv(P2PComm* st, MPI_Comm app, const uint8_t* header,
                const std::vector<uint8_t>& staging, void* buf, int count, MPI_Datatype type,
                MPI_Status* s, bool may_wait, bool cut, const char* op) {
  int cancelled = 0;
  PMPI_Test_cancelled(s, &cancelled);
  if (cancelled) return MPI_SUCCESS;
  const bool staged = !staging.empty();
  if (staged) header = staging.data();
  // The whole frame, header included; may exceed an int.
  const MPI_Count got = status_bytes(s);
  const size_t cap = bytes_of(count, type);
  // A cut frame's header says more than arrived, so its lengths are not
  // checked against what arrived.
  FrameHeader h;
  // `st` is null when the application freed the communicator while the
  // receive was pending (MPI keeps it until then): only a channel frame
  // needs it.
  if (got < static_cast<MPI_Count>(kFrameHeaderBytes) ||
      !read_frame_header(header, kFrameHeaderBytes + kMaxFramePayload, &h)) {
    if (!cut)
      return raise_failure(app, size_failure(nullptr, static_cast<size_t>(got)), op,
                           got < static_cast<MPI_Count>(kFrameHeaderBytes) ? kBadSize
                                                                           : kBadHeader);
    // Nothing usable arrived (MPICH delivers no data): whichever channel
    // the frame was on, its later frames must not wait for it.
    if (st) {
      {
        std::lock_guard<std::mutex> g(st->mu);
        st->receiving.lose_source(s->MPI_SOURCE);
      }
      tell_sender(app, s->MPI_SOURCE, 0);
    }
    return report(app, MPI_ERR_TRUNCATE);
  }
  const size_t arrived = static_cast<size_t>(got) - kFrameHeaderBytes;
  if (!cut && !wire_size_ok(h, static_cast<size_t>(got)))
    return raise_failure(app, size_failure(&h, static_cast<size_t>(got)), op, kBadSize);
  const size_t raw = h.raw_bytes, payload = h.payload_bytes;
  TypeInfo ti = type_info(type);
  uint8_t* dst = static_cast<uint8_t*>(buf) + ti.true_lb;
  const uint8_t* body = staged ? staging.data() + kFrameHeaderBytes : dst;
  if (raw > cap && !cut && h.codec != CodecId::stored) {
    // The coded frame arrived whole, only the message is too long: decoded
    // all the same (its channel keeps its reference), its first bytes given.
    const uint8_t* plain = nullptr;
    int rc = decode_coded(st, app, s->MPI_SOURCE, h, body, nullptr, may_wait, &plain, op);
    if (rc != MPI_SUCCESS) return rc;
    if (ti.contiguous) std::memcpy(dst, plain, cap);
    return truncated(app, s, cap);
  }
  if (raw > cap || cut) {
    const size_t n = std::min(payload, arrived);
    skip_channel_frame(st, app, s->MPI_SOURCE, h, body, n, op);
    // Staged, a stored frame's first bytes are given as MPI gives them in place.
    if (staged && ti.contiguous && h.codec == CodecId::stored && n)
      std::memcpy(dst, body, std::min(n, cap));
    return truncated(app, s, n);
  }
  return land(st, app, s->MPI_SOURCE, h, body, buf, type, may_wait, s, op);
}

int deliver(const Stashed& m, void* buf, int count, MPI_Datatype type, MPI_Status* status,
            const char* op) {
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  set_status(s, m.source, m.tag, 0);
  FrameHeader h;
  if (m.frame.size() < kFrameHeaderBytes || !read_frame_header(m.frame.data(), m.frame.size(), &h))
    return raise_failure(m.app, size_failure(nullptr, m.frame.size()), op,
                         m.frame.size() < kFrameHeaderBytes ? kBadSize : kBadHeader);
  if (!wire_size_ok(h, m.frame.size()))
    return raise_failure(m.app, size_failure(&h, m.frame.size()), op, kBadSize);
  if (h.raw_bytes > bytes_of(count, type)) return report(m.app, MPI_ERR_TRUNCATE);
  return land(p2p_of(m.app), m.app, m.source, h, m.frame.data() + kFrameHeaderBytes, buf, type,
              true, s, op);
}

int adopt_frame(P2PComm* st, MPI_Comm app, Stashed* out, const char* op) {
  FrameHeader h;
  if (!read_frame_header(out->frame.data(), out->frame.size(), &h) ||
      !(h.flags & kFrameInterstep))
    return MPI_SUCCESS;  // a damaged frame fails at its receive
  const uint8_t* plain = nullptr;
  int rc = decode_coded(st, app, out->source, h, out->frame.data() + kFrameHeaderBytes, nullptr,
                        true, &plain, op);
  if (rc != MPI_SUCCESS) return rc;
  count_decoded();
  std::vector<uint8_t> stored(kFrameHeaderBytes + h.raw_bytes);
  stored_header(h.raw_bytes, stored.data());
  std::memcpy(stored.data() + kFrameHeaderBytes, plain, h.raw_bytes);
  out->frame = std::move(stored);
  return MPI_SUCCESS;
}

}  // namespace adacomp
