// Sending: a message becomes a coded frame when coding pays, a stored frame
// (zero-copy: header and user's buffer joined by a datatype) otherwise.
#include <cstring>

#include "p2p/framing.h"
#include "p2p/internal.h"
#include "p2p/p2p.h"
#include "policy/gate.h"
#include "runtime/datatype.h"
#include "runtime/scratch.h"
#include "runtime/stats.h"
#include "runtime/transfer.h"

namespace adacomp {
namespace {

std::mutex g_estimate_mu;
CodingEstimate g_estimate;  // this rank's sends, all communicators

// The candidate codec (policy/tier.h Candidates::arm, of `count`) to code
// a message of `bytes` to `dest` with, 0 for none: never to a peer on this
// rank's node when the communicator spans nodes; under the adaptive policy
// (the gate's verdict) the one that the link and earlier measurements say
// pays best, if any; otherwise the first.
int coding_arm(const P2PComm* st, int dest, size_t bytes, ElemKind kind, int count,
               bool adaptive) {
  const Locality& loc = *st->loc;
  if (dest < 0 || dest >= static_cast<int>(loc.node_of.size())) return 0;  // PMPI reports it
  const bool spans = loc.nodes > 1 && config().hierarchy != Hierarchy::flat;
  if (spans && loc.same_node(dest)) return 0;
  if (!adaptive) return 1;
  std::lock_guard<std::mutex> g(g_estimate_mu);
  return g_estimate.choose(static_cast<int>(kind), bytes, count,
                           spans ? inter_node_link() : config().intra);
}

// Encodes (buf, count, type) for `dest` into `frame` (resized); returns
// false when the message is not compressed (stored framing is then used by
// the caller). A channel frame leaves `order` locked: the caller posts it
// before unlocking.
bool encode_message(const void* buf, int count, MPI_Datatype type, MPI_Comm comm, int dest,
                    int tag, P2PComm* st, std::vector<uint8_t>* heap, uint8_t** frame,
                    size_t* frame_bytes, std::unique_lock<std::mutex>* order) {
  const size_t bytes = bytes_of(count, type);
  if (count <= 0) return false;
  if (!coding_on()) {
    note_pass(PassReason::switched_off);
    return false;
  }
  if (bytes < kMinCodedPayload) {
    note_pass(PassReason::below_threshold);
    return false;
  }
  const ElemKind kind = elem_kind(type);
  const Config& cfg = config();
  const GateVerdict v = gate(cfg, tier_override(), bytes, kind, GateScope::transfer);
  if (v.tier.tier == Tier::raw) {
    const bool off = cfg.mode == Mode::raw || tier_override() == Override::raw;
    note_pass(off ? PassReason::switched_off : PassReason::below_threshold);
    return false;
  }
  const int arm = coding_arm(st, dest, bytes, kind, candidates(cfg, Tier::lossless, kind).count,
                             v.adaptive);
  if (arm == 0) {
    note_pass(PassReason::model_no_gain);
    return false;
  }
  int rc = MPI_SUCCESS;
  const uint8_t* data = stage(buf, count, type, type_info(type), bytes, true, comm, &rc);
  if (rc != MPI_SUCCESS) return false;
  const Coder c = lossless_coder(kind, arm);  // a message has no bound to share
  uint8_t* out;
  if (heap) {
    heap->resize(frame_capacity(bytes));
    out = heap->data();
  } else {
    out = scratch(ScratchSlot::send_frame, frame_capacity(bytes));
  }
  OpStats& s = stats_for(OpKind::send);
  uint64_t ns = 0;
  size_t n = encode_with(s, out, [&] {
    size_t m = 0;
    if (!kSmpi && interstep_enabled()) {  // internal.h
      read_lost_reports();
      *order = std::unique_lock<std::mutex>(st->mu);
      bool xor_used = false;
      m = encode_interstep_frame(st->sending, {dest, tag, bytes, kind}, cfg.interstep_memory,
                                 *c.codec, c.params, data, out, &xor_used);
      if (xor_used) s.xor_calls.fetch_add(1, std::memory_order_relaxed);
      if (!m) order->unlock();
    }
    return m ? m : code_frame(c, data, bytes, out);
  }, &ns);
  if (v.adaptive) {
    std::lock_guard<std::mutex> g(g_estimate_mu);
    g_estimate.record(static_cast<int>(kind), bytes, arm, n, ns * 1e-9);
  }
  if (n < kFrameHeaderBytes + kMinCodedPayload) {
    std::memset(out + n, 0, kFrameHeaderBytes + kMinCodedPayload - n);
    n = kFrameHeaderBytes + kMinCodedPayload;  // fits: bytes >= kMinCodedPayload
  }
  s.compressed_calls.fetch_add(1, std::memory_order_relaxed);
  count_frame(s, bytes, n);
  if (heap) heap->resize(n);
  *frame = out;
  *frame_bytes = n;
  return true;
}

// A stored frame as one datatype: {header, (buf, count, type)}. Cached for
// predefined types (p2p/framing.h) unless `persistent` (the request outlives
// a cache slot); otherwise *owned: the caller frees it.
int framed_type(const void* header, const void* buf, int count, MPI_Datatype type,
                bool persistent, MPI_Datatype* t, bool* owned) {
  *owned = persistent || !is_named(type);
  return *owned ? make_framing_type(header, buf, count, type, t)
                : cached_framing_type(header, buf, count, type, t);
}

// One message on the private communicator, blocking (req == nullptr) or not.
int post(SendMode m, const void* buf, int count, MPI_Datatype type, int dest, int tag,
         MPI_Comm comm, MPI_Request* req) {
  if (!req)
    return m == SendMode::sync ? PMPI_Ssend(buf, count, type, dest, tag, comm)
                               : PMPI_Send(buf, count, type, dest, tag, comm);
  return m == SendMode::sync ? PMPI_Issend(buf, count, type, dest, tag, comm, req)
                             : PMPI_Isend(buf, count, type, dest, tag, comm, req);
}

}  // namespace

int do_send(SendMode m, const void* buf, int count, MPI_Datatype type, int dest, int tag,
            MPI_Comm comm, MPI_Request* req, P2PComm* st) {
  stats_for(OpKind::send).calls.fetch_add(1, std::memory_order_relaxed);
  Pending* p = req ? new Pending : nullptr;
  uint8_t* frame = nullptr;
  size_t frame_bytes = 0;
  int rc;
  std::unique_lock<std::mutex> order;
  if (encode_message(buf, count, type, comm, dest, tag, st, p ? &p->frame : nullptr, &frame,
                     &frame_bytes, &order)) {
    const int n = static_cast<int>(frame_bytes);
    if (order.owns_lock()) {
      // Posted under the channel lock, waited for outside it.
      MPI_Request local;
      rc = post(m, frame, n, MPI_BYTE, dest, tag, st->comm, req ? req : &local);
      order.unlock();
      if (!req && rc == MPI_SUCCESS) rc = PMPI_Wait(&local, MPI_STATUS_IGNORE);
    } else {
      rc = post(m, frame, n, MPI_BYTE, dest, tag, st->comm, req);
    }
  } else if (kPackedFrames) {
    std::vector<uint8_t> local;  // a blocking send is done with it on return
    std::vector<uint8_t>& copy = p ? p->frame : local;
    stored_copy(buf, count, type, comm, &copy);
    rc = post(m, copy.data(), static_cast<int>(copy.size()), MPI_BYTE, dest, tag, st->comm, req);
  } else {
    uint8_t stack_header[kFrameHeaderBytes];
    uint8_t* header = p ? p->header : stack_header;
    stored_header(bytes_of(count, type), header);
    MPI_Datatype t;
    bool owned = false;
    rc = framed_type(header, buf, count, type, false, &t, &owned);
    if (rc == MPI_SUCCESS) rc = post(m, MPI_BOTTOM, 1, t, dest, tag, st->comm, req);
    // A type of our own is freed when the request completes (p), or now.
    if (owned && p)
      p->layout = t;
    else if (owned)
      PMPI_Type_free(&t);
  }
  if (p) {
    // A send that completed at once may come back as an implementation's
    // shared, already-complete request (Open MPI does this for self sends);
    // such handles are not unique, so nothing is kept for them.
    int done = 0;
    if (rc == MPI_SUCCESS && !kSmpi) PMPI_Request_get_status(*req, &done, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && !done)
      put_pending(*req, p);
    else
      delete_pending(p);
  }
  return report(comm, rc);
}

// Buffered send: the library buffers the frame itself (a copy that stays
// with the request in flight), so the user's attached buffer is not used and
// its sizing (which knows nothing of our header) cannot overflow.
int do_bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
             P2PComm* st) {
  stats_for(OpKind::send).calls.fetch_add(1, std::memory_order_relaxed);
  poll_detached(false);
  Detached d;
  uint8_t* frame = nullptr;
  size_t frame_bytes = 0;
  std::unique_lock<std::mutex> order;  // held until the Isend below is posted
  if (!encode_message(buf, count, type, comm, dest, tag, st, &d.data, &frame, &frame_bytes,
                      &order)) {
    stored_copy(buf, count, type, comm, &d.data);
  }
  int rc = PMPI_Isend(d.data.data(), static_cast<int>(d.data.size()), MPI_BYTE, dest, tag,
                      st->comm, &d.req);
  if (rc == MPI_SUCCESS) detach(std::move(d));
  return report(comm, rc);
}

namespace {
// A send the library takes, or declines (internal.h, route).
CallResult routed(SendMode m, const void* buf, int count, MPI_Datatype type, int dest, int tag,
                  MPI_Comm comm, MPI_Request* req) {
  P2PComm* st = route(comm, count, type, dest, Peer::dest, tag);
  if (!st) return kDeclined;
  return do_send(m, buf, count, type, dest, tag, comm, req, st);
}
}  // namespace

CallResult send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return routed(SendMode::standard, buf, count, type, dest, tag, comm, nullptr);
}
CallResult ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                 MPI_Comm comm) {
  return routed(SendMode::sync, buf, count, type, dest, tag, comm, nullptr);
}
// A ready send may always be carried out as a standard send.
CallResult rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                 MPI_Comm comm) {
  return routed(SendMode::ready, buf, count, type, dest, tag, comm, nullptr);
}
CallResult isend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                 MPI_Comm comm, MPI_Request* req) {
  return routed(SendMode::standard, buf, count, type, dest, tag, comm, req);
}
CallResult issend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                  MPI_Comm comm, MPI_Request* req) {
  return routed(SendMode::sync, buf, count, type, dest, tag, comm, req);
}
CallResult irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                  MPI_Comm comm, MPI_Request* req) {
  return routed(SendMode::ready, buf, count, type, dest, tag, comm, req);
}
CallResult bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                 MPI_Comm comm) {
  P2PComm* st = route(comm, count, type, dest, Peer::dest, tag);
  if (!st) return kDeclined;
  return do_bsend(buf, count, type, dest, tag, comm, st);
}
CallResult ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                  MPI_Comm comm, MPI_Request* req) {
  P2PComm* st = route(comm, count, type, dest, Peer::dest, tag);
  if (!st) return kDeclined;
  int rc = do_bsend(buf, count, type, dest, tag, comm, st);
  if (rc != MPI_SUCCESS) return rc;
  return report(comm, completed_request(nullptr, req));
}

// Persistent sends: stored frames (the header depends only on the size), so
// each MPI_Start sends the user's current data with no library code running.
// Ready ones become standard ones, as above.
namespace {
CallResult persistent_send(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                           MPI_Comm comm, MPI_Request* req, bool sync) {
  P2PComm* st = route(comm, count, type, dest, Peer::dest, tag);
  if (!st) return kDeclined;
  auto* p = new Pending;
  p->persistent = true;
  int rc;
  if (kPackedFrames) {
    // The copy is taken again at each MPI_Start (refresh_stored_copy).
    p->app = comm;
    p->buf = const_cast<void*>(buf);
    p->count = count;
    p->type = type;
    if (!is_named(type)) {
      PMPI_Type_dup(type, &p->type);  // the user may free theirs meanwhile
      p->type_owned = true;
    }
    stored_copy(buf, count, type, comm, &p->frame);
    const int n = static_cast<int>(p->frame.size());
    rc = sync ? PMPI_Ssend_init(p->frame.data(), n, MPI_BYTE, dest, tag, st->comm, req)
              : PMPI_Send_init(p->frame.data(), n, MPI_BYTE, dest, tag, st->comm, req);
  } else {
    stored_header(bytes_of(count, type), p->header);
    MPI_Datatype t;
    bool owned = false;
    rc = framed_type(p->header, buf, count, type, true, &t, &owned);
    if (rc == MPI_SUCCESS) {
      p->layout = t;
      rc = sync ? PMPI_Ssend_init(MPI_BOTTOM, 1, t, dest, tag, st->comm, req)
                : PMPI_Send_init(MPI_BOTTOM, 1, t, dest, tag, st->comm, req);
    }
  }
  if (rc != MPI_SUCCESS) {
    delete_pending(p);
    return report(comm, rc);
  }
  put_pending(*req, p);
  return MPI_SUCCESS;
}
}  // namespace

void refresh_stored_copy(Pending* p) {
  if (kPackedFrames && !p->is_recv && p->persistent)
    stored_copy(p->buf, p->count, p->type, p->app, &p->frame);  // same size: same buffer
}

CallResult send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                     MPI_Comm comm, MPI_Request* req) {
  return persistent_send(buf, count, type, dest, tag, comm, req, false);
}
CallResult ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                      MPI_Comm comm, MPI_Request* req) {
  return persistent_send(buf, count, type, dest, tag, comm, req, true);
}
CallResult rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                      MPI_Comm comm, MPI_Request* req) {
  return persistent_send(buf, count, type, dest, tag, comm, req, false);
}
// Buffered persistent sends complete locally, as MPI_Bsend does: each
// MPI_Start sends a copy (start_buffered), and the request MPI sees is a
// send to MPI_PROC_NULL, which completes at once. To a peer on this node the
// copy goes through PMPI_Ibsend and the user's attached buffer, unframed
// (PMPI's persistent Bsend is avoided there too: Open MPI 4.1 resends stale
// data, README); to the others it is do_bsend's frame in library memory.
CallResult bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                      MPI_Comm comm, MPI_Request* req) {
  P2PComm* st = p2p_of(comm);
  if (!st || dest == MPI_PROC_NULL || arg_error(comm, count, type, dest, Peer::dest, tag))
    return kDeclined;
  int rc = PMPI_Send_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, st->comm, req);
  if (rc != MPI_SUCCESS) return report(comm, rc);
  auto* p = new Pending;
  p->persistent = p->buffered = true;
  p->part = st->shared_from_this();
  p->app = comm;
  p->buf = const_cast<void*>(buf);
  p->count = count;
  p->peer = dest;
  p->tag = tag;
  p->type = type;
  if (!is_named(type)) {
    PMPI_Type_dup(type, &p->type);  // the user may free theirs meanwhile
    p->type_owned = true;
  }
  put_pending(*req, p);
  return MPI_SUCCESS;
}

int start_buffered(Pending* p) {
  P2PComm* st = p->part.get();
  if (!st->direct(p->peer))
    return do_bsend(p->buf, p->count, p->type, p->peer, p->tag, p->app, st);
  MPI_Request r;
  int rc = PMPI_Ibsend(p->buf, p->count, p->type, p->peer, p->tag, p->app, &r);
  if (rc == MPI_SUCCESS) rc = PMPI_Request_free(&r);
  return report(p->app, rc);
}

}  // namespace adacomp
