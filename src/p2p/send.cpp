// Sending: a message travels as the application sent it, unless it is
// coded (or exactly kMarkerBytes): then a marker goes in its place and the
// frame follows as its body (internal.h).
#include <cstring>

#include "report/stats.h"
#include "p2p/internal.h"
#include "p2p/p2p.h"
#include "decision/plan.h"
#include "runtime/datatype.h"
#include "runtime/call_facts.h"
#include "runtime/scratch.h"
#include "runtime/type_layout.h"
#include "transfer/transfer.h"

namespace adacomp {
namespace {

std::mutex g_estimate_mu;
CodingEstimate g_estimate;  // this rank's sends, all communicators

// The plan of a message of (count, type) to `dest` (decision/plan.h): the
// sender decides alone, from its facts, the peer's node and the link to it.
Plan plan_message(MPI_Comm comm, int count, MPI_Datatype type, int dest, const P2PComm* st) {
  CallQuery q;
  q.op = OpKind::send;
  q.facts = call_facts(comm, count, type, GateScope::transfer, Decider::sender);
  apply_lossy_rules(comm, op_name(OpKind::send), &q.facts);  // a sender decides alone
  q.bytes = q.facts.bytes;
  Plan pass;
  if (passes_on_facts(config(), q, &pass)) return pass;
  const Locality& loc = st->loc;
  q.peer_valid = dest >= 0 && dest < static_cast<int>(loc.node_of.size());
  q.peer_same_node = q.peer_valid && loc.same_node(dest);
  q.comm.nodes = loc.nodes;
  q.link = loc.nodes > 1 && config().hierarchy != Hierarchy::flat ? inter_node_link()
                                                                   : config().intra;
  q.estimate = &g_estimate;
  // The estimate is asked only where the runtime model decides.
  std::unique_lock<std::mutex> g(g_estimate_mu, std::defer_lock);
  if (pass.adaptive) g.lock();
  return plan(config(), q);
}

// The size of the one basic datatype `t` is made of; 0 if several (or
// unknown: SMPI lacks the queries).
size_t basic_unit(MPI_Datatype t) {
  if (is_named(t)) {
    int size = 0;
    PMPI_Type_size(t, &size);
    return static_cast<size_t>(size);
  }
  const TypeContents contents(t);
  if (!contents.ok) return 0;
  if (contents.types.empty()) {  // a Fortran type made from a basic one
    int size = 0;
    PMPI_Type_size(t, &size);
    return static_cast<size_t>(size);
  }
  size_t unit = 0;
  for (MPI_Datatype inner : contents.types) {
    const size_t u = basic_unit(inner);
    if (u == 0 || (unit && u != unit)) return 0;
    unit = u;
  }
  return unit;
}

// A marker received into (count, type) must end on a basic element: MPICH
// fails a receive into a derived datatype that ends part-way through one.
// Datatypes match on both ends, so the sender can tell: whole elements of
// the type, or of the one basic type it is made of.
bool marker_fits(MPI_Datatype type) {
  MPI_Count size = 0;
  PMPI_Type_size_x(type, &size);
  if (size > 0 && kMarkerBytes % static_cast<size_t>(size) == 0) return true;
  const size_t unit = basic_unit(type);
  return unit && kMarkerBytes % unit == 0;
}

// Codes (buf, count, type) for `dest` into *frame; false when the message
// is not coded. A channel frame leaves `order` locked: the caller posts its
// marker before unlocking.
bool encode_message(const void* buf, int count, MPI_Datatype type, MPI_Comm comm, int dest, int tag,
                    P2PComm* st, std::vector<uint8_t>* frame, std::unique_lock<std::mutex>* order) {
  const Plan p = plan_message(comm, count, type, dest, st);
  if (!p.coded || config().verbose >= 2) note_plan(OpKind::send, p);
  if (!p.coded) return false;
  const size_t bytes = p.bytes;
  const ElemKind kind = p.kind;
  const Config& cfg = config();
  // A datatype the marker would not end on a whole element of travels plain
  // (wire/marker.h).
  if (!marker_fits(type)) return false;
  int rc = MPI_SUCCESS;
  const uint8_t* data = stage(buf, count, type, type_info(type), bytes, true, comm, &rc);
  if (rc != MPI_SUCCESS) return false;
  const Coder c = transfer_coder(p.bound, kind, p.arm, data, bytes);
  frame->resize(frame_capacity(bytes));
  uint8_t* out = frame->data();
  OpStats& s = stats_for(OpKind::send);
  uint64_t ns = 0;
  size_t n = encode_with(
      s, out,
      [&] {
        size_t m = 0;
        // Never both lossy and inter-step: the sender's reference is the
        // message as it was, the receiver's the message as decoded; XOR
        // against references that differ would not give the message back,
        // and the error would grow at every step. A lossy message goes
        // outside its channel, whose references both ends keep unchanged.
        if (!kSmpi && interstep_enabled() && !c.codec->lossy) {  // internal.h
          read_lost_reports();
          *order = std::unique_lock<std::mutex>(st->mu);
          bool interstep_used = false;
          const LinkModel link = inter_node_link();
          const double wire_ns_per_byte = link.known() ? 1e9 / link.bandwidth_Bps : 0;
          m = encode_interstep_frame(st->sending, {dest, tag, bytes, kind}, cfg.interstep_memory,
                                     *c.codec, c.params, data, out, wire_ns_per_byte,
                                     &interstep_used);
          if (interstep_used) s.interstep_calls.fetch_add(1, std::memory_order_relaxed);
          if (!m) order->unlock();
        }
        return m ? m : code_frame(c, data, bytes, out);
      },
      &ns);
  if (p.adaptive) {
    std::lock_guard<std::mutex> g(g_estimate_mu);
    g_estimate.record(p.estimate_kind, bytes, p.arm, n, ns * 1e-9);
  }
  s.compressed_calls.fetch_add(1, std::memory_order_relaxed);
  if (c.codec->lossy) s.lossy_calls.fetch_add(1, std::memory_order_relaxed);
  count_frame(s, bytes, n);
  frame->resize(n);
  return true;
}

// The body of a message that goes as a marker and a body: its coded frame,
// or the stored frame of a plain message of exactly kMarkerBytes. False: the
// message goes as the application sent it.
bool make_body(const void* buf, int count, MPI_Datatype type, MPI_Comm comm, int dest, int tag,
               P2PComm* st, std::vector<uint8_t>* frame, std::unique_lock<std::mutex>* order) {
  if (st->direct(dest)) return false;
  if (data_size(count, type) == kMarkerBytes) {
    stored_copy(buf, count, type, comm, frame);
    return true;
  }
  return encode_message(buf, count, type, comm, dest, tag, st, frame, order);
}

// Sends the body to `dest` and writes the marker announcing it.
int announce(const P2PComm* st, int dest, std::vector<uint8_t>&& frame, size_t raw,
             uint8_t* marker) {
  Marker m;
  m.body_bytes = frame.size();
  m.raw_bytes = raw;
  int rc = send_body(st->world[dest], std::move(frame), &m.sequence);
  write_marker(m, marker);
  return rc;
}

// One message on the application's communicator, blocking (req == nullptr)
// or not.
int post(SendMode m, const void* buf, int count, MPI_Datatype type, int dest, int tag,
         MPI_Comm comm, MPI_Request* req) {
  switch (m) {
    case SendMode::sync:
      return req ? PMPI_Issend(buf, count, type, dest, tag, comm, req)
                 : PMPI_Ssend(buf, count, type, dest, tag, comm);
    case SendMode::ready:
      return req ? PMPI_Irsend(buf, count, type, dest, tag, comm, req)
                 : PMPI_Rsend(buf, count, type, dest, tag, comm);
    default:
      return req ? PMPI_Isend(buf, count, type, dest, tag, comm, req)
                 : PMPI_Send(buf, count, type, dest, tag, comm);
  }
}

}  // namespace

// Errors of calls on the application's communicator went through its error
// handler in MPI already; only those on the world communicator are raised.
int do_send(SendMode m, const void* buf, int count, MPI_Datatype type, int dest, int tag,
            MPI_Comm comm, MPI_Request* req, P2PComm* st) {
  stats_for(OpKind::send).calls.fetch_add(1, std::memory_order_relaxed);
  std::vector<uint8_t> frame;
  std::unique_lock<std::mutex> order;
  if (!make_body(buf, count, type, comm, dest, tag, st, &frame, &order))
    return post(m, buf, count, type, dest, tag, comm, req);
  PendingSend* p = req ? new PendingSend : nullptr;
  uint8_t local[kMarkerBytes];
  uint8_t* marker = p ? p->marker : local;
  int rc = announce(st, dest, std::move(frame), data_size(count, type), marker);
  if (rc != MPI_SUCCESS) {
    if (p) delete p;
    return report(comm, rc);
  }
  // A ready send's marker goes as a standard one (always allowed). A
  // channel's marker is posted under its lock, waited for outside it.
  const SendMode mode = m == SendMode::ready ? SendMode::standard : m;
  if (order.owns_lock() && !req) {
    MPI_Request r;
    rc = post(mode, marker, static_cast<int>(kMarkerBytes), MPI_BYTE, dest, tag, comm, &r);
    order.unlock();
    return rc == MPI_SUCCESS ? PMPI_Wait(&r, MPI_STATUS_IGNORE) : rc;
  }
  rc = post(mode, marker, static_cast<int>(kMarkerBytes), MPI_BYTE, dest, tag, comm, req);
  if (order.owns_lock()) order.unlock();
  if (p) {
    // A send that completed at once may come back as an implementation's
    // shared, already-complete request (Open MPI does this for self sends);
    // such handles are not unique, so nothing is kept for them.
    int done = 0;
    if (rc == MPI_SUCCESS && !kSmpi) PMPI_Request_get_status(*req, &done, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && !done)
      register_request(*req, p);
    else
      delete p;
  }
  return rc;
}

// Buffered send: a plain message goes through MPI's own buffered send and
// the user's attached buffer (sized for the application's messages); a
// marker and its body are the library's copies, in flight until MPI is done.
int do_bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
             P2PComm* st) {
  stats_for(OpKind::send).calls.fetch_add(1, std::memory_order_relaxed);
  std::vector<uint8_t> frame;
  std::unique_lock<std::mutex> order;  // held until the marker is posted
  if (!make_body(buf, count, type, comm, dest, tag, st, &frame, &order))
    return PMPI_Bsend(buf, count, type, dest, tag, comm);
  Detached d;
  d.data.resize(kMarkerBytes);
  int rc = announce(st, dest, std::move(frame), data_size(count, type), d.data.data());
  if (rc != MPI_SUCCESS) return report(comm, rc);
  rc = PMPI_Isend(d.data.data(), static_cast<int>(kMarkerBytes), MPI_BYTE, dest, tag, comm, &d.req);
  if (rc == MPI_SUCCESS) detach(std::move(d));
  return rc;
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
CallResult ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return routed(SendMode::sync, buf, count, type, dest, tag, comm, nullptr);
}
// A ready send may always be carried out as a standard send.
CallResult rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return routed(SendMode::ready, buf, count, type, dest, tag, comm, nullptr);
}
CallResult isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                 MPI_Request* req) {
  return routed(SendMode::standard, buf, count, type, dest, tag, comm, req);
}
CallResult issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request* req) {
  return routed(SendMode::sync, buf, count, type, dest, tag, comm, req);
}
CallResult irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request* req) {
  return routed(SendMode::ready, buf, count, type, dest, tag, comm, req);
}
CallResult bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  P2PComm* st = route(comm, count, type, dest, Peer::dest, tag);
  if (!st) return kDeclined;
  return do_bsend(buf, count, type, dest, tag, comm, st);
}
CallResult ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request* req) {
  P2PComm* st = route(comm, count, type, dest, Peer::dest, tag);
  if (!st) return kDeclined;
  int rc = do_bsend(buf, count, type, dest, tag, comm, st);
  if (rc != MPI_SUCCESS) return rc;
  return report(comm, completed_request(nullptr, req));
}

// Persistent sends are never coded (each MPI_Start must send the user's
// current data with no library code running): MPI's own, except one of
// exactly kMarkerBytes, whose request sends a marker and whose every start
// (PendingSend::start) first sends the current data as a stored body. Ready ones
// become standard ones.
namespace {
// A persistent send's request: what each MPI_Start sends, and where.
PendingSend* persistent_pending(P2PComm* st, const void* buf, int count, MPI_Datatype type,
                                int dest, int tag, MPI_Comm comm) {
  auto* p = new PendingSend;
  p->persistent = true;
  p->msg.set(st, comm, const_cast<void*>(buf), count, type, dest, tag);
  return p;
}

CallResult persistent_send(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                           MPI_Comm comm, MPI_Request* req, bool sync) {
  P2PComm* st = route(comm, count, type, dest, Peer::dest, tag);
  if (!st || data_size(count, type) != kMarkerBytes) return kDeclined;
  PendingSend* p = persistent_pending(st, buf, count, type, dest, tag, comm);
  const int n = static_cast<int>(kMarkerBytes);
  int rc = sync ? PMPI_Ssend_init(p->marker, n, MPI_BYTE, dest, tag, comm, req)
                : PMPI_Send_init(p->marker, n, MPI_BYTE, dest, tag, comm, req);
  if (rc != MPI_SUCCESS) {
    delete p;
    return rc;
  }
  register_request(*req, p);
  return MPI_SUCCESS;
}
}  // namespace

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
// MPI_Start sends a copy (PendingSend::start, do_bsend), and the request MPI sees is
// a send to MPI_PROC_NULL, which completes at once (PMPI's persistent Bsend
// is avoided: Open MPI 4.1 resends stale data, README).
CallResult bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                      MPI_Comm comm, MPI_Request* req) {
  P2PComm* st = p2p_of(comm);
  if (!st || dest == MPI_PROC_NULL || arg_error(comm, count, type, dest, Peer::dest, tag))
    return kDeclined;
  int rc = PMPI_Send_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, comm, req);
  if (rc != MPI_SUCCESS) return rc;
  PendingSend* p = persistent_pending(st, buf, count, type, dest, tag, comm);
  p->buffered = true;
  register_request(*req, p);
  return MPI_SUCCESS;
}

// Each start is counted (do_bsend counts a buffered one's). A buffered one
// sends its copy; one of exactly kMarkerBytes sends the current data as a
// body and renews its marker. Then the request starts in MPI.
int PendingSend::start(MPI_Request* req) {
  int rc = MPI_SUCCESS;
  if (buffered) {
    rc = do_bsend(msg.buf, msg.count, msg.type, msg.peer, msg.tag, msg.app, msg.part.get());
  } else {
    stats_for(OpKind::send).calls.fetch_add(1, std::memory_order_relaxed);
    std::vector<uint8_t> frame;
    stored_copy(msg.buf, msg.count, msg.type, msg.app, &frame);
    rc = report(msg.app,
                announce(msg.part.get(), msg.peer, std::move(frame), kMarkerBytes, marker));
  }
  return rc == MPI_SUCCESS ? PMPI_Start(req) : rc;
}

}  // namespace adacomp
