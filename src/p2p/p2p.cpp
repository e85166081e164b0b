// Point-to-point compression. Wire convention (docs/p2p.md): on a
// communicator with p2p state every intercepted send travels on the private
// duplicate `p2p` with the application's tag, and every message there is a
// frame: a 24-byte frame header then the payload. Small or ineligible
// messages are stored frames sent zero-copy (a struct datatype joins the
// header and the user's buffer), compressed ones a coded frame. Receives post
// the same struct (header + the user's buffer): a coded payload is never
// larger than its raw size, so any message that fits the user's buffer raw
// also fits it coded, and stored frames land in place with no copy.
#include "p2p/p2p.h"

#include <atomic>
#include <climits>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "coll/datatype.h"
#include "coll/schedule.h"  // collective requests in the Wait/Test family
#include "p2p/channel.h"
#include "p2p/framing.h"
#include "policy/model.h"
#include "policy/tier.h"
#include "runtime/args.h"
#include "runtime/locality.h"
#include "runtime/runtime.h"
#include "runtime/scratch.h"
#include "runtime/stats.h"
#include "wire/frame.h"

namespace adacomp {
namespace {

struct Stashed {
  int source = MPI_ANY_SOURCE;
  int tag = MPI_ANY_TAG;
  MPI_Comm app = MPI_COMM_NULL;
  std::vector<uint8_t> frame;
};

struct P2PState {
  MPI_Comm p2p = MPI_COMM_NULL;
  Locality loc;  // which peers share this rank's node
  // Messages between ranks of one node go straight through PMPI on the
  // application's communicator, at plain MPI's cost (never coded, never
  // framed); the rest travels on `p2p`. A receive from MPI_ANY_SOURCE then
  // watches both (a dual receive).
  bool split = false;
  bool direct(int peer) const {
    return split && peer >= 0 && peer < static_cast<int>(loc.node_of.size()) &&
           loc.same_node(peer);
  }
  bool dual(int source) const { return split && source == MPI_ANY_SOURCE; }
  std::mutex mu;
  std::deque<Stashed> stash;  // messages taken off the wire by a probe
  // Inter-step channels. Held from coding a channel frame until it is
  // posted, so frames reach the wire in position order.
  std::mutex channel_mu;
  SendChannels sending;
  RecvChannels receiving;
};

int g_key = MPI_KEYVAL_INVALID;
std::atomic<bool> g_on{false};

int delete_state(MPI_Comm, int, void* value, void*) {
  auto* s = static_cast<P2PState*>(value);
  PMPI_Comm_free(&s->p2p);
  delete s;
  return MPI_SUCCESS;
}

P2PState* state_of(MPI_Comm comm) {
  if (!g_on.load(std::memory_order_acquire) || comm == MPI_COMM_NULL) return nullptr;
  void* v = nullptr;
  int found = 0;
  if (PMPI_Comm_get_attr(comm, g_key, &v, &found) != MPI_SUCCESS || !found) return nullptr;
  return static_cast<P2PState*>(v);
}

// ---- requests the library must finish at completion ----------------------

struct Pending {
  bool is_recv = false;
  bool direct = false;  // posted on the application's communicator: nothing to finish
  bool dual = false;    // MPI_ANY_SOURCE on a split communicator (direct too)
  bool persistent = false;
  bool finished = false;  // finished early (status and finish_rc saved)
  bool served = false;    // persistent receive started from the stash: inactive in MPI
  int source = MPI_ANY_SOURCE, tag = MPI_ANY_TAG;  // persistent receives
  int finish_rc = MPI_SUCCESS;
  MPI_Comm app = MPI_COMM_NULL;
  uint8_t header[kFrameHeaderBytes];
  std::vector<uint8_t> frame;  // coded frame of a nonblocking send
  std::vector<uint8_t> staging;  // receive into a non-contiguous datatype
  // A dual receive's framed twin: the same receive posted on `p2p` into
  // `staging` (capacity of the largest frame that fits the user's buffer).
  MPI_Request twin = MPI_REQUEST_NULL;
  bool twin_active = false;  // posted (or started) and not yet settled
  MPI_Request companion = MPI_REQUEST_NULL;  // Isendrecv: the send half
  std::vector<uint8_t> keep;                 // Isendrecv_replace: the data sent
  void* buf = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  bool type_owned = false;
  // A framing type of the request's own (not cached), freed with it.
  MPI_Datatype layout = MPI_DATATYPE_NULL;
  MPI_Status status;
};

std::mutex g_mu;
std::unordered_map<MPI_Request, Pending*> g_table;
std::atomic<int> g_pending{0};
std::vector<Pending*> g_orphans;  // freed with Request_free while active
struct Detached {
  MPI_Request req;
  std::vector<uint8_t> data;
};
std::vector<Detached> g_detached;  // buffered sends in flight

void put_pending(MPI_Request req, Pending* p) {
  std::lock_guard<std::mutex> g(g_mu);
  g_table[req] = p;
  g_pending.store(static_cast<int>(g_table.size()), std::memory_order_release);
}
Pending* find_pending(MPI_Request req) {
  if (g_pending.load(std::memory_order_acquire) == 0 || req == MPI_REQUEST_NULL) return nullptr;
  std::lock_guard<std::mutex> g(g_mu);
  auto it = g_table.find(req);
  return it == g_table.end() ? nullptr : it->second;
}
// Completion takes a request's entry out of the table *before* the PMPI call
// that may free the handle, and puts back those that did not complete: once
// MPI frees a handle another thread may get the same value for a new request,
// which must never find our stale entry.
Pending* take_pending(MPI_Request req) {
  if (g_pending.load(std::memory_order_acquire) == 0 || req == MPI_REQUEST_NULL) return nullptr;
  std::lock_guard<std::mutex> g(g_mu);
  auto it = g_table.find(req);
  if (it == g_table.end()) return nullptr;
  Pending* p = it->second;
  g_table.erase(it);
  g_pending.store(static_cast<int>(g_table.size()), std::memory_order_release);
  return p;
}
void delete_pending(Pending* p) {
  if (p->twin != MPI_REQUEST_NULL) PMPI_Request_free(&p->twin);  // persistent, inactive
  if (p->type_owned) PMPI_Type_free(&p->type);
  if (p->layout != MPI_DATATYPE_NULL) PMPI_Type_free(&p->layout);
  delete p;
}

// ---- helpers --------------------------------------------------------------

int report(MPI_Comm app, int rc) {
  if (rc != MPI_SUCCESS) PMPI_Comm_call_errhandler(app, rc);
  return rc;
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

void stored_header(size_t bytes, uint8_t* dst) {
  FrameHeader h;
  h.codec = CodecId::stored;
  h.raw_bytes = h.payload_bytes = bytes;
  write_frame_header(h, dst);
}

// Where a receive lands. Contiguous buffers: the header in `header`, the
// payload straight in the user's buffer, described as bytes (a coded
// payload need not be a whole number of elements, and MPICH drops partial
// elements). Non-contiguous datatypes: the whole frame into `staging`, then
// unpacked.
// `rc` is MPI_SUCCESS or why the datatype could not be made.
struct RecvLayout {
  void* base;
  int count;
  MPI_Datatype type;
  bool derived;  // type is ours to free
  int rc = MPI_SUCCESS;
};
RecvLayout recv_layout(uint8_t* header, void* buf, int count, MPI_Datatype type,
                       bool persistent, std::vector<uint8_t>* staging) {
  TypeInfo ti = type_info(type);
  const size_t cap = static_cast<size_t>(count > 0 ? count : 0) * ti.size;
  if (cap == 0 || ti.contiguous) {
    uint8_t* data = static_cast<uint8_t*>(buf) + ti.true_lb;
    const MPI_Count n = static_cast<MPI_Count>(cap);
    MPI_Datatype t = MPI_DATATYPE_NULL;
    int rc = persistent ? make_framing_type(header, data, n, MPI_BYTE, &t)
                        : cached_framing_type(header, data, n, MPI_BYTE, &t);
    return {MPI_BOTTOM, 1, t, persistent && rc == MPI_SUCCESS, rc};
  }
  staging->resize(kFrameHeaderBytes + cap);
  return {staging->data(), static_cast<int>(staging->size()), MPI_BYTE, false};
}

void set_status(MPI_Status* s, int source, int tag, size_t raw) {
  s->MPI_SOURCE = source;
  s->MPI_TAG = tag;
  s->MPI_ERROR = MPI_SUCCESS;
  PMPI_Status_set_elements_x(s, MPI_BYTE, static_cast<MPI_Count>(raw));
  PMPI_Status_set_cancelled(s, 0);
}

// A request that is already complete, carrying `status` (generalized request).
struct Done {
  MPI_Status status;
};
int done_query(void* extra, MPI_Status* s) {
  *s = static_cast<Done*>(extra)->status;
  return MPI_SUCCESS;
}
int done_free(void* extra) {
  delete static_cast<Done*>(extra);
  return MPI_SUCCESS;
}
int done_cancel(void*, int) { return MPI_SUCCESS; }
int completed_request(const MPI_Status* status, MPI_Request* req) {
  auto* d = new Done;
  if (status) {
    d->status = *status;
  } else {
    std::memset(&d->status, 0, sizeof d->status);
    set_status(&d->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
  }
  int rc = PMPI_Grequest_start(done_query, done_free, done_cancel, d, req);
  if (rc != MPI_SUCCESS) {
    delete d;
    return rc;
  }
  return PMPI_Grequest_complete(*req);
}

// ---- lost references: the receiver tells the sender ------------------------
// A receiver that loses a channel's reference (a truncated or failed frame)
// sends the channel id (0: unknown) to the sending process on g_control, a
// private duplicate of MPI_COMM_WORLD; the sender reads such reports before
// it codes a channel frame, and the channel's next frame goes without XOR,
// which restarts it at the receiver. Frames already sent by then fail.
constexpr int kTagLost = 1;
MPI_Comm g_control = MPI_COMM_NULL;
// Reports in flight. Not under g_mu, which drive_receives holds while it
// finishes receives that may fail.
std::mutex g_report_mu;
std::vector<Detached> g_reports;

void tell_sender(MPI_Comm app, int source, uint32_t id) {
  MPI_Group group, world;
  int to = MPI_UNDEFINED;
  PMPI_Comm_group(app, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  PMPI_Group_translate_ranks(group, 1, &source, world, &to);
  PMPI_Group_free(&group);
  PMPI_Group_free(&world);
  if (to == MPI_UNDEFINED || g_control == MPI_COMM_NULL) return;  // not in MPI_COMM_WORLD
  Detached d;
  d.data.resize(sizeof id);
  std::memcpy(d.data.data(), &id, sizeof id);
  std::lock_guard<std::mutex> g(g_report_mu);
  for (size_t i = 0; i < g_reports.size();) {  // drop those delivered
    int done = 0;
    PMPI_Test(&g_reports[i].req, &done, MPI_STATUS_IGNORE);
    if (done) {
      g_reports[i] = std::move(g_reports.back());
      g_reports.pop_back();
    } else {
      ++i;
    }
  }
  if (PMPI_Isend(d.data.data(), sizeof id, MPI_BYTE, to, kTagLost, g_control, &d.req) ==
      MPI_SUCCESS)
    g_reports.push_back(std::move(d));
}

void read_lost_reports() {
  for (;;) {
    int flag = 0;
    MPI_Message msg;
    if (PMPI_Improbe(MPI_ANY_SOURCE, kTagLost, g_control, &flag, &msg, MPI_STATUS_IGNORE) !=
            MPI_SUCCESS ||
        !flag)
      return;
    uint32_t id = 0;
    PMPI_Mrecv(&id, sizeof id, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    report_lost_channel(id);
  }
}

// The failure a frame of `wire` bytes gives when its sizes do not add up.
Failure size_failure(const FrameHeader* h, size_t wire) {
  return wire < kFrameHeaderBytes || (h && wire < kFrameHeaderBytes + h->payload_bytes)
             ? Failure::truncated_frame
             : Failure::corrupt_frame;
}

// Coded frames carry at least this many payload bytes on the wire (padded
// if the codec did better), and messages smaller than this are never coded.
// So a message whose wire payload is smaller is always a stored frame whose
// raw size is visible in the envelope: Probe and Iprobe can report it without
// taking the message off the wire (which keeps synchronous sends pending).
constexpr size_t kMinCodedPayload = 1024;

bool compressible(size_t bytes) {
  return bytes >= kMinCodedPayload && in_compressed_range(config(), tier_override(), bytes);
}

// The adaptive policy decides point-to-point coding from measurements
// (policy/model.h); forced modes code every compressible message.
bool adaptive_policy() {
  const Config& c = config();
  const Override ov = tier_override();
  return c.model && (ov == Override::adaptive || ov == Override::adaptive_pipelined ||
                     (ov == Override::none && c.adaptive()));
}

std::mutex g_estimate_mu;
CodingEstimate g_estimate;  // this rank's sends, all communicators

// Whether a message of `bytes` to `dest` may be coded: never to a peer on
// this rank's node when the communicator spans nodes; in the adaptive
// policy only where the link and earlier measurements say it pays.
bool codes_to(const P2PState* st, int dest, size_t bytes, ElemKind kind) {
  const Locality& loc = st->loc;
  if (dest < 0 || dest >= static_cast<int>(loc.node_of.size())) return false;  // PMPI reports it
  const bool spans = loc.nodes > 1 && config().hierarchy != Hierarchy::flat;
  if (spans && loc.same_node(dest)) return false;
  if (!adaptive_policy()) return true;
  std::lock_guard<std::mutex> g(g_estimate_mu);
  return g_estimate.should_code(static_cast<int>(kind), bytes,
                                spans ? inter_node_link() : config().intra);
}

// Encodes (buf, count, type) for `dest` into `frame` (resized); returns
// false when the message is not compressed (stored framing is then used by
// the caller). A channel frame leaves `order` locked: the caller posts it
// before unlocking.
bool encode_message(const void* buf, int count, MPI_Datatype type, MPI_Comm comm, int dest,
                    int tag, P2PState* st, std::vector<uint8_t>* heap, uint8_t** frame,
                    size_t* frame_bytes, std::unique_lock<std::mutex>* order) {
  MPI_Count tsize = 0;
  PMPI_Type_size_x(type, &tsize);
  const size_t bytes = static_cast<size_t>(count) * static_cast<size_t>(tsize);
  if (count <= 0 || !compressible(bytes)) return false;
  TypeInfo ti = type_info(type);
  const Config& cfg = config();
  TierChoice tier = choose_tier(cfg, cfg.mode, bytes, ti.kind);
  if (tier.tier == Tier::raw || !codes_to(st, dest, bytes, ti.kind)) return false;
  const uint8_t* data = static_cast<const uint8_t*>(buf) + ti.true_lb;
  if (!ti.contiguous) {
    uint8_t* packed = scratch(ScratchSlot::work, bytes);
    int pos = 0;
    if (PMPI_Pack(buf, count, type, packed, static_cast<int>(bytes), &pos, comm) != MPI_SUCCESS)
      return false;
    data = packed;
  }
  // Point-to-point is always lossless: a message has no bound to share.
  const Codec& codec = codec_for(cfg, Tier::lossless, ti.kind);
  EncodeParams params;
  params.kind = ti.kind;
  params.zstd_level = cfg.zstd_level;
  uint8_t* out;
  if (heap) {
    heap->resize(frame_capacity(bytes));
    out = heap->data();
  } else {
    out = scratch(ScratchSlot::send_frame, frame_capacity(bytes));
  }
  OpStats& s = stats_for(Op::send);
  size_t n = 0;
  uint64_t ns = 0;
  {
    ScopedTimer t(s.ns_compress, &ns);
    if (xor_enabled()) {
      read_lost_reports();
      *order = std::unique_lock<std::mutex>(st->channel_mu);
      bool xor_used = false;
      n = encode_channel_frame(st->sending, {dest, tag, bytes, ti.kind}, cfg.interstep_memory,
                               codec, params, data, out, &xor_used);
      if (xor_used) s.xor_calls.fetch_add(1, std::memory_order_relaxed);
      if (!n) order->unlock();
    }
    if (!n) n = encode_frame(codec, params, data, bytes, out);
  }
  if (adaptive_policy()) {
    std::lock_guard<std::mutex> g(g_estimate_mu);
    g_estimate.record(static_cast<int>(ti.kind), bytes, n, ns * 1e-9);
  }
  if (cfg.fault_corrupt_frames) out[8] ^= 0x5A;
  if (n < kFrameHeaderBytes + kMinCodedPayload) {
    std::memset(out + n, 0, kFrameHeaderBytes + kMinCodedPayload - n);
    n = kFrameHeaderBytes + kMinCodedPayload;  // fits: bytes >= kMinCodedPayload
  }
  s.compressed_calls.fetch_add(1, std::memory_order_relaxed);
  s.bytes_in.fetch_add(bytes, std::memory_order_relaxed);
  s.bytes_wire.fetch_add(n, std::memory_order_relaxed);
  if (heap) heap->resize(n);
  *frame = out;
  *frame_bytes = n;
  return true;
}

enum class SendMode { standard, sync, ready };

// Blocking (req == nullptr) or nonblocking send of one message on st->p2p.
int do_send(SendMode m, const void* buf, int count, MPI_Datatype type, int dest, int tag,
            MPI_Comm comm, MPI_Request* req, P2PState* st) {
  stats_for(Op::send).calls.fetch_add(1, std::memory_order_relaxed);
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
      MPI_Request* r = req ? req : &local;
      rc = m == SendMode::sync ? PMPI_Issend(frame, n, MPI_BYTE, dest, tag, st->p2p, r)
                               : PMPI_Isend(frame, n, MPI_BYTE, dest, tag, st->p2p, r);
      order.unlock();
      if (!req && rc == MPI_SUCCESS) rc = PMPI_Wait(&local, MPI_STATUS_IGNORE);
    } else if (!req)
      rc = m == SendMode::sync ? PMPI_Ssend(frame, n, MPI_BYTE, dest, tag, st->p2p)
                               : PMPI_Send(frame, n, MPI_BYTE, dest, tag, st->p2p);
    else
      rc = m == SendMode::sync ? PMPI_Issend(frame, n, MPI_BYTE, dest, tag, st->p2p, req)
                               : PMPI_Isend(frame, n, MPI_BYTE, dest, tag, st->p2p, req);
  } else {
    MPI_Count tsize = 0;
    PMPI_Type_size_x(type, &tsize);
    uint8_t stack_header[kFrameHeaderBytes];
    uint8_t* header = p ? p->header : stack_header;
    stored_header(static_cast<size_t>(count) * static_cast<size_t>(tsize), header);
    MPI_Datatype t;
    bool owned = false;
    rc = framed_type(header, buf, count, type, false, &t, &owned);
    if (rc == MPI_SUCCESS && !req)
      rc = m == SendMode::sync ? PMPI_Ssend(MPI_BOTTOM, 1, t, dest, tag, st->p2p)
                               : PMPI_Send(MPI_BOTTOM, 1, t, dest, tag, st->p2p);
    else if (rc == MPI_SUCCESS)
      rc = m == SendMode::sync ? PMPI_Issend(MPI_BOTTOM, 1, t, dest, tag, st->p2p, req)
                               : PMPI_Isend(MPI_BOTTOM, 1, t, dest, tag, st->p2p, req);
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
    if (rc == MPI_SUCCESS) PMPI_Request_get_status(*req, &done, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && !done)
      put_pending(*req, p);
    else
      delete_pending(p);
  }
  return report(comm, rc);
}

void poll_detached(bool all) {
  std::lock_guard<std::mutex> g(g_mu);
  for (size_t i = 0; i < g_detached.size();) {
    int flag = 0;
    if (all)
      PMPI_Wait(&g_detached[i].req, MPI_STATUS_IGNORE), flag = 1;
    else
      PMPI_Test(&g_detached[i].req, &flag, MPI_STATUS_IGNORE);
    if (flag) {
      g_detached[i] = std::move(g_detached.back());
      g_detached.pop_back();
    } else {
      ++i;
    }
  }
}

// Buffered send: the library buffers the frame itself (a copy that stays
// with the request in flight), so the user's attached buffer is not used and
// its sizing (which knows nothing of our header) cannot overflow.
int do_bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
             P2PState* st) {
  stats_for(Op::send).calls.fetch_add(1, std::memory_order_relaxed);
  poll_detached(false);
  Detached d;
  uint8_t* frame = nullptr;
  size_t frame_bytes = 0;
  std::unique_lock<std::mutex> order;  // held until the Isend below is posted
  if (!encode_message(buf, count, type, comm, dest, tag, st, &d.data, &frame, &frame_bytes,
                      &order)) {
    MPI_Count tsize = 0;
    PMPI_Type_size_x(type, &tsize);
    const size_t bytes = static_cast<size_t>(count) * static_cast<size_t>(tsize);
    d.data.resize(kFrameHeaderBytes + bytes);
    stored_header(bytes, d.data.data());
    int pos = 0;
    if (bytes)
      PMPI_Pack(buf, count, type, d.data.data() + kFrameHeaderBytes, static_cast<int>(bytes),
                &pos, comm);
  }
  int rc = PMPI_Isend(d.data.data(), static_cast<int>(d.data.size()), MPI_BYTE, dest, tag,
                      st->p2p, &d.req);
  if (rc == MPI_SUCCESS) {
    std::lock_guard<std::mutex> g(g_mu);
    g_detached.push_back(std::move(d));
  }
  return report(comm, rc);
}

// A frame cut by MPI because it exceeds the posted buffer: finished like
// any other (its channel must still advance), then reported.
bool truncation(int rc) {
  int cls = MPI_ERR_OTHER;
  PMPI_Error_class(rc, &cls);
  return cls == MPI_ERR_TRUNCATE;
}

// A frame's size on the wire: header + payload, or a coded payload padded to
// kMinCodedPayload.
bool wire_size_ok(const FrameHeader& h, size_t wire) {
  const size_t body = wire - kFrameHeaderBytes;
  if (h.payload_bytes == body) return true;
  return h.codec != CodecId::stored && h.payload_bytes < kMinCodedPayload &&
         body == kMinCodedPayload;
}

// finish_recv's answer when the frame is a channel frame whose predecessors
// on its channel are not applied yet and the caller must not wait.
constexpr int kNotYourTurn = -1;

void drive_receives(MPI_Comm app);

// Waits until frame `rec` from `source` is next on its channel, completing
// the communicator's other receives meanwhile (one of them holds its
// predecessor); kNotYourTurn instead when `may_wait` is false.
int await_turn(P2PState* st, MPI_Comm app, int source, const ChannelRecord& rec,
               bool may_wait) {
  for (;;) {
    RecvChannels::Turn t;
    {
      std::lock_guard<std::mutex> g(st->channel_mu);
      t = st->receiving.turn(source, rec);
    }
    if (t == RecvChannels::Turn::ready) return MPI_SUCCESS;
    if (t == RecvChannels::Turn::invalid) return raise_failure(app, Failure::corrupt_frame, "Recv");
    if (!may_wait) return kNotYourTurn;
    drive_receives(app);
  }
}

// Decodes a coded frame's payload from `source`, received at `body`: in the
// user's buffer `dst` (decoded in place, from a copy) or, when dst is null,
// in staging (decoded into the accumulator). A channel frame is applied in
// its channel's order. `*plain` gets the decoded bytes.
int decode_payload(P2PState* st, MPI_Comm app, int source, const FrameHeader& h,
                   const uint8_t* body, uint8_t* dst, bool may_wait, const uint8_t** plain) {
  const bool channel = h.flags & kFrameChannel;
  ChannelRecord rec;
  size_t record = 0;
  if (channel) {
    if (!read_channel_record(body, h.payload_bytes, &rec, &record))
      return raise_failure(app, Failure::corrupt_frame, "Recv");
    int rc = await_turn(st, app, source, rec, may_wait);
    if (rc != MPI_SUCCESS) return rc;
  }
  // Only now: waiting finishes other receives, which use the same scratch.
  uint8_t* out = dst ? dst : scratch(ScratchSlot::accumulator, h.raw_bytes);
  if (dst) {
    uint8_t* copy = scratch(ScratchSlot::recv_frame, h.payload_bytes);
    std::memcpy(copy, body, h.payload_bytes);
    body = copy;
  }
  OpStats& stats = stats_for(Op::recv);
  RecvChannels::Outcome outcome;
  {
    ScopedTimer t(stats.ns_decompress);
    const bool ok = decode_body(h, body + record, h.payload_bytes - record, out) == kCodecOk;
    outcome = ok ? RecvChannels::Outcome::ok : RecvChannels::Outcome::corrupt;
    if (channel) {
      // Only this frame advances its channel, so the reference is stable
      // while it was decoded without the lock.
      std::lock_guard<std::mutex> g(st->channel_mu);
      outcome = st->receiving.finish(source, rec, ok, out, h.raw_bytes);
    }
  }
  if (outcome != RecvChannels::Outcome::ok) {
    if (channel) tell_sender(app, source, rec.id);
    return raise_failure(app,
                         outcome == RecvChannels::Outcome::corrupt ? Failure::corrupt_frame
                                                                   : Failure::lost_reference,
                         "Recv");
  }
  if (rec.xor_prev) stats.xor_calls.fetch_add(1, std::memory_order_relaxed);
  *plain = out;
  return MPI_SUCCESS;
}

// A channel frame that cannot be decoded (truncated) still takes its turn,
// so that its channel's later frames fail rather than wait for it.
void skip_channel_frame(P2PState* st, MPI_Comm app, int source, const FrameHeader& h,
                        const uint8_t* body, size_t available) {
  if (!(h.flags & kFrameChannel)) return;
  ChannelRecord rec;
  size_t record = 0;
  if (!read_channel_record(body, available, &rec, &record)) {
    {
      std::lock_guard<std::mutex> g(st->channel_mu);
      st->receiving.lose_source(source);
    }
    tell_sender(app, source, 0);
    return;
  }
  if (await_turn(st, app, source, rec, true) != MPI_SUCCESS) return;
  {
    std::lock_guard<std::mutex> g(st->channel_mu);
    st->receiving.applied(source, rec, nullptr, h.raw_bytes);
  }
  tell_sender(app, source, rec.id);
}

// Turns a received frame into the application's data and status. The
// header is in `header` and the payload in the user's buffer (contiguous
// types), or the whole frame is in `staging` (non-empty: other types).
// `cut` says MPI reported the frame truncated (longer than the posted buffer).
int finish_recv(MPI_Comm app, const uint8_t* header, const std::vector<uint8_t>& staging,
                void* buf, int count, MPI_Datatype type, MPI_Status* s, bool may_wait,
                bool cut = false) {
  int cancelled = 0;
  PMPI_Test_cancelled(s, &cancelled);
  if (cancelled) return MPI_SUCCESS;
  P2PState* st = state_of(app);
  const bool staged = !staging.empty();
  if (staged) header = staging.data();
  OpStats& stats = stats_for(Op::recv);
  MPI_Count got = 0;  // may exceed an int: the whole frame, header included
  PMPI_Get_elements_x(s, MPI_BYTE, &got);
  MPI_Count tsize = 0;
  PMPI_Type_size_x(type, &tsize);
  const size_t cap = static_cast<size_t>(count > 0 ? count : 0) * static_cast<size_t>(tsize);
  // A cut frame's header says more than arrived, so its lengths are not
  // checked against what arrived.
  FrameHeader h;
  if (!st || got < static_cast<MPI_Count>(kFrameHeaderBytes) ||
      !read_frame_header(header, kFrameHeaderBytes + kMaxFramePayload, &h)) {
    if (!st || !cut)
      return raise_failure(app, size_failure(nullptr, static_cast<size_t>(got)), "Recv");
    // Nothing usable arrived (MPICH delivers no data): whichever channel
    // the frame was on, its later frames must not wait for it.
    {
      std::lock_guard<std::mutex> g(st->channel_mu);
      st->receiving.lose_source(s->MPI_SOURCE);
    }
    tell_sender(app, s->MPI_SOURCE, 0);
    s->MPI_ERROR = MPI_ERR_TRUNCATE;
    return report(app, MPI_ERR_TRUNCATE);
  }
  const size_t arrived = static_cast<size_t>(got) - kFrameHeaderBytes;
  if (!cut && !wire_size_ok(h, static_cast<size_t>(got)))
    return raise_failure(app, size_failure(&h, static_cast<size_t>(got)), "Recv");
  const size_t raw = h.raw_bytes, payload = h.payload_bytes;
  TypeInfo ti = type_info(type);
  uint8_t* dst = static_cast<uint8_t*>(buf) + ti.true_lb;
  const uint8_t* body = staged ? staging.data() + kFrameHeaderBytes : dst;
  if (raw > cap && !cut && h.codec != CodecId::stored) {
    // The coded frame arrived whole, only the message is too long: decoded
    // all the same (its channel keeps its reference), its first bytes given.
    const uint8_t* plain = nullptr;
    int rc = decode_payload(st, app, s->MPI_SOURCE, h, body, nullptr, may_wait, &plain);
    if (rc != MPI_SUCCESS) return rc;
    if (!staged) std::memcpy(dst, plain, cap);
    PMPI_Status_set_elements_x(s, MPI_BYTE, static_cast<MPI_Count>(cap));
    s->MPI_ERROR = MPI_ERR_TRUNCATE;
    return report(app, MPI_ERR_TRUNCATE);
  }
  if (raw > cap || cut) {
    skip_channel_frame(st, app, s->MPI_SOURCE, h, body, std::min(payload, arrived));
    PMPI_Status_set_elements_x(s, MPI_BYTE, static_cast<MPI_Count>(std::min(payload, arrived)));
    s->MPI_ERROR = MPI_ERR_TRUNCATE;
    return report(app, MPI_ERR_TRUNCATE);
  }
  if (h.codec == CodecId::stored && (raw != payload || h.flags))
    return raise_failure(app, Failure::corrupt_frame, "Recv");
  if (staged && tsize > 0 && raw % static_cast<size_t>(tsize) != 0)
    return raise_failure(app, Failure::corrupt_frame, "Recv");
  const uint8_t* plain = body;
  if (h.codec != CodecId::stored) {
    int rc = decode_payload(st, app, s->MPI_SOURCE, h, body, staged ? nullptr : dst, may_wait,
                            &plain);
    if (rc != MPI_SUCCESS) return rc;
    stats.compressed_calls.fetch_add(1, std::memory_order_relaxed);
    stats.bytes_in.fetch_add(raw, std::memory_order_relaxed);
    stats.bytes_wire.fetch_add(kFrameHeaderBytes + payload, std::memory_order_relaxed);
  }
  if (staged && raw > 0) {
    int pos = 0;
    PMPI_Unpack(plain, static_cast<int>(raw), &pos, buf,
                static_cast<int>(raw / static_cast<size_t>(tsize)), type, app);
  }
  PMPI_Status_set_elements_x(s, MPI_BYTE, static_cast<MPI_Count>(raw));
  return MPI_SUCCESS;
}

// Delivers a whole frame taken off the wire earlier (probe, matched probe).
int deliver(const Stashed& m, void* buf, int count, MPI_Datatype type, MPI_Status* status) {
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  set_status(s, m.source, m.tag, 0);
  FrameHeader h;
  if (m.frame.size() < kFrameHeaderBytes || !read_frame_header(m.frame.data(), m.frame.size(), &h))
    return raise_failure(m.app, size_failure(nullptr, m.frame.size()), "Recv");
  if (!wire_size_ok(h, m.frame.size()))
    return raise_failure(m.app, size_failure(&h, m.frame.size()), "Recv");
  MPI_Count tsize = 0;
  PMPI_Type_size_x(type, &tsize);
  const size_t cap = static_cast<size_t>(count) * static_cast<size_t>(tsize);
  const size_t raw = h.raw_bytes;
  if (raw > cap) {
    s->MPI_ERROR = MPI_ERR_TRUNCATE;
    return report(m.app, MPI_ERR_TRUNCATE);
  }
  if (raw == 0) return MPI_SUCCESS;
  TypeInfo ti = type_info(type);
  const uint8_t* plain = m.frame.data() + kFrameHeaderBytes;
  uint8_t* dst = static_cast<uint8_t*>(buf) + ti.true_lb;
  if (h.codec != CodecId::stored) {
    OpStats& stats = stats_for(Op::recv);
    uint8_t* out = ti.contiguous ? dst : scratch(ScratchSlot::accumulator, raw);
    long r;
    {
      ScopedTimer t(stats.ns_decompress);
      r = decode_frame(m.frame.data(), kFrameHeaderBytes + h.payload_bytes, out, raw);
    }
    if (r != kCodecOk) return raise_failure(m.app, Failure::corrupt_frame, "Recv");
    stats.compressed_calls.fetch_add(1, std::memory_order_relaxed);
    stats.bytes_in.fetch_add(raw, std::memory_order_relaxed);
    stats.bytes_wire.fetch_add(kFrameHeaderBytes + h.payload_bytes, std::memory_order_relaxed);
    plain = out;
  } else if (h.payload_bytes != raw) {
    return raise_failure(m.app, Failure::corrupt_frame, "Recv");
  }
  if (ti.contiguous) {
    if (plain != dst) std::memcpy(dst, plain, raw);
  } else {
    if (tsize == 0 || raw % static_cast<size_t>(tsize) != 0)
      return raise_failure(m.app, Failure::corrupt_frame, "Recv");
    int pos = 0;
    PMPI_Unpack(plain, static_cast<int>(raw), &pos, buf,
                static_cast<int>(raw / static_cast<size_t>(tsize)), type, m.app);
  }
  PMPI_Status_set_elements_x(s, MPI_BYTE, static_cast<MPI_Count>(raw));
  return MPI_SUCCESS;
}

bool matches(const Stashed& m, int source, int tag) {
  return (source == MPI_ANY_SOURCE || source == m.source) && (tag == MPI_ANY_TAG || tag == m.tag);
}

bool take_stashed(P2PState* st, int source, int tag, Stashed* out) {
  std::lock_guard<std::mutex> g(st->mu);
  for (auto it = st->stash.begin(); it != st->stash.end(); ++it) {
    if (matches(*it, source, tag)) {
      *out = std::move(*it);
      st->stash.erase(it);
      return true;
    }
  }
  return false;
}

size_t raw_size_of(const Stashed& m) {
  FrameHeader h;
  if (read_frame_header(m.frame.data(), m.frame.size(), &h)) return h.raw_bytes;
  return m.frame.size() >= kFrameHeaderBytes ? m.frame.size() - kFrameHeaderBytes : 0;
}

int adopt_frame(P2PState* st, MPI_Comm app, Stashed* out);

// Takes the next matching message off the private communicator whole.
int fetch(P2PState* st, MPI_Comm app, int source, int tag, bool block, int* flag, Stashed* out) {
  MPI_Message msg;
  MPI_Status s;
  *flag = 1;
  int rc = block ? PMPI_Mprobe(source, tag, st->p2p, &msg, &s)
                 : PMPI_Improbe(source, tag, st->p2p, flag, &msg, &s);
  if (rc != MPI_SUCCESS || !*flag) return report(app, rc);
  int n = 0;
  PMPI_Get_count(&s, MPI_BYTE, &n);
  out->frame.resize(static_cast<size_t>(n));
  rc = PMPI_Mrecv(out->frame.data(), n, MPI_BYTE, &msg, &s);
  out->source = s.MPI_SOURCE;
  out->tag = s.MPI_TAG;
  out->app = app;
  if (rc != MPI_SUCCESS) return report(app, rc);
  return adopt_frame(st, app, out);
}

// A frame taken off the wire whole, before its receive: a channel frame is
// applied now, in its channel's order, and kept decoded, since the receive
// that takes it may come at any time.
int adopt_frame(P2PState* st, MPI_Comm app, Stashed* out) {
  FrameHeader h;
  if (!read_frame_header(out->frame.data(), out->frame.size(), &h) ||
      !(h.flags & kFrameChannel))
    return MPI_SUCCESS;  // a damaged frame fails at its receive
  const uint8_t* plain = nullptr;
  int rc = decode_payload(st, app, out->source, h, out->frame.data() + kFrameHeaderBytes, nullptr,
                          true, &plain);
  if (rc != MPI_SUCCESS) return rc;
  OpStats& stats = stats_for(Op::recv);
  stats.compressed_calls.fetch_add(1, std::memory_order_relaxed);
  stats.bytes_in.fetch_add(h.raw_bytes, std::memory_order_relaxed);
  stats.bytes_wire.fetch_add(out->frame.size(), std::memory_order_relaxed);
  std::vector<uint8_t> stored(kFrameHeaderBytes + h.raw_bytes);
  stored_header(h.raw_bytes, stored.data());
  std::memcpy(stored.data() + kFrameHeaderBytes, plain, h.raw_bytes);
  out->frame = std::move(stored);
  return MPI_SUCCESS;
}

// Matched-probe handles the library hands out: a message it has already
// taken off the wire. Never passed to PMPI. Each also has a Fortran handle,
// a number in 0x0A000000..0x0AFFFFFF: MPI never hands those out (Open MPI's
// Fortran handles are small table indices, MPICH's have the handle-kind bits
// 30-31 set), and MPI's Fortran MPI_MESSAGE_NULL / NO_PROC (0 and 1, MPICH
// 0x2c000000 and 0x6c000000) lie outside it.
struct LibMessage {
  Stashed* m;
  MPI_Fint f;
};
std::mutex g_msg_mu;
std::unordered_map<MPI_Message, LibMessage> g_msgs;
std::unordered_map<MPI_Fint, MPI_Message> g_fmsgs;  // Fortran handle -> C handle
uint32_t g_msg_serial = 0;

// Open MPI's C handles are pointers (the message's own address serves),
// MPICH's are ints, like its Fortran ones (the Fortran number serves, so
// MPICH's own f2c, an identity, agrees with ours).
template <typename H>
H c_handle(Stashed* m, MPI_Fint f) {
  if constexpr (std::is_pointer_v<H>) {
    return reinterpret_cast<H>(m);
  } else {
    return static_cast<H>(f);
  }
}

MPI_Message register_message(Stashed* m) {
  std::lock_guard<std::mutex> g(g_msg_mu);
  MPI_Fint f;
  do {
    f = static_cast<MPI_Fint>(0x0A000000 | (++g_msg_serial & 0xFFFFFF));
  } while (g_fmsgs.count(f));
  MPI_Message h = c_handle<MPI_Message>(m, f);
  g_msgs[h] = {m, f};
  g_fmsgs[f] = h;
  return h;
}

Stashed* take_message(MPI_Message h) {
  std::lock_guard<std::mutex> g(g_msg_mu);
  if (g_msgs.empty()) return nullptr;
  auto it = g_msgs.find(h);
  if (it == g_msgs.end()) return nullptr;
  Stashed* m = it->second.m;
  g_fmsgs.erase(it->second.f);
  g_msgs.erase(it);
  return m;
}

}  // namespace

MPI_Fint message_c2f(MPI_Message msg) {
  {
    std::lock_guard<std::mutex> g(g_msg_mu);
    auto it = g_msgs.find(msg);
    if (it != g_msgs.end()) return it->second.f;
  }
  return PMPI_Message_c2f(msg);
}

MPI_Message message_f2c(MPI_Fint msg) {
  {
    std::lock_guard<std::mutex> g(g_msg_mu);
    auto it = g_fmsgs.find(msg);
    if (it != g_fmsgs.end()) return it->second;
  }
  return PMPI_Message_f2c(msg);
}

namespace {

int do_recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
            MPI_Status* status, P2PState* st) {
  stats_for(Op::recv).calls.fetch_add(1, std::memory_order_relaxed);
  Stashed m;
  if (take_stashed(st, source, tag, &m)) return deliver(m, buf, count, type, status);
  uint8_t header[kFrameHeaderBytes];
  std::vector<uint8_t> staging;
  RecvLayout l = recv_layout(header, buf, count, type, false, &staging);
  if (l.rc != MPI_SUCCESS) return report(comm, l.rc);
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  int rc = PMPI_Recv(l.base, l.count, l.type, source, tag, st->p2p, s);
  if (l.derived) PMPI_Type_free(&l.type);
  if (rc != MPI_SUCCESS && !truncation(rc)) return report(comm, rc);
  return finish_recv(comm, header, staging, buf, count, type, s, true, rc != MPI_SUCCESS);
}

int do_irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Request* req, bool persistent, P2PState* st) {
  const bool dual = st->dual(source);
  if (!persistent) {
    stats_for(Op::recv).calls.fetch_add(1, std::memory_order_relaxed);
    Stashed m;
    if (take_stashed(st, source, tag, &m)) {
      MPI_Status s;
      int rc = deliver(m, buf, count, type, &s);
      if (rc != MPI_SUCCESS) return rc;
      return report(comm, completed_request(&s, req));
    }
  }
  auto* p = new Pending;
  p->is_recv = true;
  p->persistent = persistent;
  p->app = comm;
  p->buf = buf;
  p->count = count;
  p->source = source;
  p->tag = tag;
  if (is_named(type)) {
    p->type = type;
  } else {
    PMPI_Type_dup(type, &p->type);  // the user may free theirs while we wait
    p->type_owned = true;
  }
  int rc;
  if (dual) {
    // Posted as the application posted it; resolve_dual() takes a framed
    // message from `p2p` instead if one comes first.
    p->direct = p->dual = true;
    int tsize = 0;
    PMPI_Type_size(type, &tsize);
    const size_t capacity =
        kFrameHeaderBytes + static_cast<size_t>(count) * static_cast<size_t>(tsize);
    if (capacity > INT_MAX) {  // the twin's staging (README, Known limitations)
      delete_pending(p);
      return report(comm, MPI_ERR_COUNT);
    }
    p->staging.resize(capacity);
    const int cap = static_cast<int>(capacity);
    rc = persistent ? PMPI_Recv_init(p->staging.data(), cap, MPI_BYTE, source, tag, st->p2p,
                                     &p->twin)
                    : PMPI_Irecv(p->staging.data(), cap, MPI_BYTE, source, tag, st->p2p, &p->twin);
    p->twin_active = rc == MPI_SUCCESS && !persistent;
    if (rc == MPI_SUCCESS)
      rc = persistent ? PMPI_Recv_init(buf, count, type, source, tag, comm, req)
                      : PMPI_Irecv(buf, count, type, source, tag, comm, req);
  } else {
    RecvLayout l = recv_layout(p->header, buf, count, type, persistent, &p->staging);
    if (l.rc != MPI_SUCCESS) {
      delete_pending(p);
      return report(comm, l.rc);
    }
    rc = persistent ? PMPI_Recv_init(l.base, l.count, l.type, source, tag, st->p2p, req)
                    : PMPI_Irecv(l.base, l.count, l.type, source, tag, st->p2p, req);
    if (l.derived) p->layout = l.type;
  }
  if (rc != MPI_SUCCESS) {
    delete_pending(p);
    return report(comm, rc);
  }
  put_pending(*req, p);
  return MPI_SUCCESS;
}

// Completes the twin, which has matched or been cancelled (promptly either
// way); a persistent one stays allocated, another is freed.
MPI_Status settle_twin(Pending* p) {
  MPI_Status s;
  PMPI_Wait(&p->twin, &s);
  p->twin_active = false;
  return s;
}

// The twin's message as a stash entry (channel frames applied). A twin
// cancelled in time gives none (false).
bool twin_message(Pending* p, const MPI_Status& ts, Stashed* m, int* adopted) {
  int cancelled = 0;
  PMPI_Test_cancelled(&ts, &cancelled);
  if (cancelled) return false;
  int got = 0;
  PMPI_Get_count(&ts, MPI_BYTE, &got);
  m->frame.assign(p->staging.begin(), p->staging.begin() + (got > 0 ? got : 0));
  m->source = ts.MPI_SOURCE;
  m->tag = ts.MPI_TAG;
  m->app = p->app;
  P2PState* st = state_of(p->app);
  *adopted = st ? adopt_frame(st, p->app, m) : MPI_ERR_COMM;
  return true;
}

void stash_front(MPI_Comm app, Stashed&& m) {
  P2PState* st = state_of(app);
  if (!st) return;
  std::lock_guard<std::mutex> g(st->mu);
  st->stash.push_front(std::move(m));
}

// Cancels a dual receive's twin once the direct side has matched; a framed
// message it matched all the same goes to the stash.
void retire_twin(Pending* p) {
  PMPI_Cancel(&p->twin);
  Stashed m;
  int adopted = MPI_SUCCESS;
  if (twin_message(p, settle_twin(p), &m, &adopted) && adopted == MPI_SUCCESS)
    stash_front(p->app, std::move(m));
}

// A dual receive is posted twice: directly (the handle the application
// holds) and framed on `p2p` (its twin), so that MPI orders it against
// other receives on both routes. Once the direct side has matched, the twin
// is retired. A framed message (the twin's, or one that a tie left in the
// stash) is taken by cancelling the direct side: if that works, the framed
// message is delivered into the user's buffer and the request is marked
// finished with its status; if the direct side matched meanwhile, it wins
// and the framed message waits at the front of the stash for the next
// receive. Only the request's owner calls this (taken from the table).
void resolve_dual(MPI_Request handle, Pending* p) {
  if (p->finished || !p->twin_active) return;
  int twin_done = 0, direct_done = 0;
  MPI_Status ts, ds;
  PMPI_Request_get_status(p->twin, &twin_done, &ts);
  PMPI_Request_get_status(handle, &direct_done, &ds);
  if (direct_done) {
    retire_twin(p);
    return;
  }
  Stashed m;
  int adopted = MPI_SUCCESS;
  P2PState* st = state_of(p->app);
  if (twin_done) twin_message(p, settle_twin(p), &m, &adopted);
  else if (!st || !take_stashed(st, MPI_ANY_SOURCE, p->tag, &m)) return;
  MPI_Request h = handle;
  PMPI_Cancel(&h);
  do PMPI_Request_get_status(handle, &direct_done, &ds);
  while (!direct_done);
  int cancelled = 0;
  PMPI_Test_cancelled(&ds, &cancelled);
  if (p->twin_active) retire_twin(p);
  if (cancelled) {
    p->finish_rc = adopted != MPI_SUCCESS ? adopted
                                          : deliver(m, p->buf, p->count, p->type, &p->status);
    p->finished = true;
  } else if (adopted == MPI_SUCCESS) {
    stash_front(p->app, std::move(m));
  }
}

// Finishes a completed request the library owns (already out of the table).
// `s` is a real status. A persistent request goes back into the table.
// kNotYourTurn (only when !may_wait): nothing done, try again later.
int complete(MPI_Request handle, Pending* p, MPI_Status* s, bool may_wait, bool cut = false) {
  int rc = MPI_SUCCESS;
  if (p->dual && p->twin_active) retire_twin(p);  // MPI completed the direct side
  if (p->is_recv) {
    if (p->finished) {
      *s = p->status;
      rc = p->finish_rc;
      p->finished = p->served = false;
    } else if (p->direct) {
      rc = cut ? MPI_ERR_TRUNCATE : MPI_SUCCESS;  // PMPI has reported it already
    } else {
      rc = finish_recv(p->app, p->header, p->staging, p->buf, p->count, p->type, s, may_wait,
                       cut);
      if (rc == kNotYourTurn) return rc;
    }
  }
  if (p->companion != MPI_REQUEST_NULL) {
    // Isendrecv completes when both halves have; the send half is ours too.
    int rs = wait(&p->companion, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS) rc = rs;
  }
  if (p->persistent)
    put_pending(handle, p);
  else
    delete_pending(p);
  return rc;
}

// Finishes the communicator's receives that have completed in MPI but not
// yet for the application, as far as channel order allows: a channel frame
// waiting for its predecessor calls this until the one holding it is done.
// Each is marked finished, for its Wait or Test to report.
void drive_receives(MPI_Comm app) {
  bool progressed = false;
  {
    std::lock_guard<std::mutex> g(g_mu);
    for (auto& [handle, p] : g_table) {
      if (!p->is_recv || p->finished || p->app != app) continue;
      int flag = 0;
      MPI_Status s;
      if (PMPI_Request_get_status(handle, &flag, &s) != MPI_SUCCESS || !flag) continue;
      MPI_Count got = 0;
      PMPI_Get_elements_x(&s, MPI_BYTE, &got);
      if (got < static_cast<MPI_Count>(kFrameHeaderBytes)) continue;  // inactive persistent
      int rc = finish_recv(p->app, p->header, p->staging, p->buf, p->count, p->type, &s, false);
      if (rc == kNotYourTurn) continue;
      p->status = s;
      p->finish_rc = rc;
      p->finished = true;
      progressed = true;
    }
  }
  if (!progressed) std::this_thread::yield();
}

std::vector<Pending*> take_all(int n, const MPI_Request* reqs, bool* any) {
  std::vector<Pending*> ps;
  *any = false;
  if (g_pending.load(std::memory_order_acquire) == 0) return ps;
  ps.resize(static_cast<size_t>(n > 0 ? n : 0));
  std::lock_guard<std::mutex> g(g_mu);
  for (int i = 0; i < n; ++i) {
    auto it = reqs[i] == MPI_REQUEST_NULL ? g_table.end() : g_table.find(reqs[i]);
    ps[i] = nullptr;
    if (it != g_table.end()) {
      ps[i] = it->second;
      g_table.erase(it);
      *any = true;
    }
  }
  g_pending.store(static_cast<int>(g_table.size()), std::memory_order_release);
  return ps;
}

// Owned dual receives of an array: resolved before MPI looks at them.
void resolve_duals(const MPI_Request reqs[], const std::vector<Pending*>& ps) {
  for (size_t i = 0; i < ps.size(); ++i)
    if (ps[i] && ps[i]->dual) resolve_dual(reqs[i], ps[i]);
}

// A Wait over an array with a dual receive polls with the Test form instead
// (MPI would wait on one side only): puts every entry back and says so.
bool put_back_if_dual(const MPI_Request reqs[], const std::vector<Pending*>& ps) {
  bool dual = false;
  for (const Pending* p : ps) dual = dual || (p && p->dual);
  if (dual)
    for (size_t i = 0; i < ps.size(); ++i)
      if (ps[i]) put_pending(reqs[i], ps[i]);
  return dual;
}

// Puts back the entries of requests that did not complete (done[i] false).
void restore(const std::vector<MPI_Request>& handles, std::vector<Pending*>& ps,
             const std::vector<char>& done) {
  for (size_t i = 0; i < ps.size(); ++i)
    if (ps[i] && !done[i]) put_pending(handles[i], ps[i]);
}

}  // namespace

// ---- lifecycle ------------------------------------------------------------

void p2p_init() {
  if (!runtime_active() || config().mode == Mode::raw) return;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &g_key, nullptr);
  if (PMPI_Comm_dup(MPI_COMM_WORLD, &g_control) == MPI_SUCCESS)
    PMPI_Comm_set_errhandler(g_control, MPI_ERRORS_RETURN);
  g_on.store(true, std::memory_order_release);
  p2p_attach(MPI_COMM_WORLD);
  p2p_attach(MPI_COMM_SELF);
}

void p2p_finalize() {
  if (!g_on.load()) return;
  poll_detached(true);
  for (MPI_Comm comm : {MPI_COMM_WORLD, MPI_COMM_SELF}) {
    void* value = nullptr;
    int found = 0;
    PMPI_Comm_get_attr(comm, g_key, &value, &found);
    if (found) PMPI_Comm_delete_attr(comm, g_key);
  }
  g_on.store(false, std::memory_order_release);
  PMPI_Comm_free_keyval(&g_key);
  {
    std::lock_guard<std::mutex> r(g_report_mu);
    for (Detached& d : g_reports) PMPI_Wait(&d.req, MPI_STATUS_IGNORE);
    g_reports.clear();
  }
  if (g_control != MPI_COMM_NULL) PMPI_Comm_free(&g_control);
  std::lock_guard<std::mutex> g(g_mu);
  for (Pending* p : g_orphans) delete_pending(p);
  g_orphans.clear();
  clear_framing_types();
}

void p2p_attach(MPI_Comm comm) {
  if (!g_on.load(std::memory_order_acquire) || comm == MPI_COMM_NULL) return;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return;  // intercommunicators pass through
  // In the adaptive policy a communicator inside one node has nothing to
  // code (unless calibration found that coding pays there): its traffic
  // passes straight through, at plain MPI's cost. Every rank sees the same
  // layout, so all decide alike. A job on one node needs no look at all.
  if (node_local_raw() && !job_spans_nodes()) return;
  auto* s = new P2PState;
  if (PMPI_Comm_dup(comm, &s->p2p) != MPI_SUCCESS) {
    delete s;
    return;
  }
  PMPI_Comm_set_errhandler(s->p2p, MPI_ERRORS_RETURN);
  s->loc = learn_locality(s->p2p);
  s->split = s->loc.nodes > 1 && s->loc.local_size > 1 && config().hierarchy != Hierarchy::flat;
  if (node_local_raw() && s->loc.nodes == 1) {
    PMPI_Comm_free(&s->p2p);
    delete s;
    return;
  }
  PMPI_Comm_set_attr(comm, g_key, s);
}

// ---- sends ----------------------------------------------------------------

// Peers on this node, and bad arguments, go to PMPI (which reports those:
// runtime/args.h).
#define ADACOMP_PASS_IF_NO_STATE(call)                                       \
  P2PState* st = state_of(comm);                                             \
  if (!st || dest == MPI_PROC_NULL || st->direct(dest) ||                    \
      arg_error(comm, count, type, dest, Peer::dest, tag))                   \
    return call;

int send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Send(buf, count, type, dest, tag, comm))
  return do_send(SendMode::standard, buf, count, type, dest, tag, comm, nullptr, st);
}
int ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Ssend(buf, count, type, dest, tag, comm))
  return do_send(SendMode::sync, buf, count, type, dest, tag, comm, nullptr, st);
}
// A ready send may always be carried out as a standard send.
int rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Rsend(buf, count, type, dest, tag, comm))
  return do_send(SendMode::ready, buf, count, type, dest, tag, comm, nullptr, st);
}
int bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Bsend(buf, count, type, dest, tag, comm))
  return do_bsend(buf, count, type, dest, tag, comm, st);
}
int isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
          MPI_Request* req) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Isend(buf, count, type, dest, tag, comm, req))
  return do_send(SendMode::standard, buf, count, type, dest, tag, comm, req, st);
}
int issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
           MPI_Request* req) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Issend(buf, count, type, dest, tag, comm, req))
  return do_send(SendMode::sync, buf, count, type, dest, tag, comm, req, st);
}
int irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
           MPI_Request* req) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Irsend(buf, count, type, dest, tag, comm, req))
  return do_send(SendMode::ready, buf, count, type, dest, tag, comm, req, st);
}
int ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
           MPI_Request* req) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Ibsend(buf, count, type, dest, tag, comm, req))
  int rc = do_bsend(buf, count, type, dest, tag, comm, st);
  if (rc != MPI_SUCCESS) return rc;
  return report(comm, completed_request(nullptr, req));
}

// Persistent sends: stored frames (the header depends only on the size), so
// each MPI_Start sends the user's current data with no library code running.
namespace {
int persistent_send(int (*init)(const void*, int, MPI_Datatype, int, int, MPI_Comm,
                                MPI_Request*),
                    const void* buf, int count, MPI_Datatype type, int dest, int tag,
                    MPI_Comm comm, MPI_Request* req, P2PState* st) {
  auto* p = new Pending;
  p->persistent = true;
  MPI_Count tsize = 0;
  PMPI_Type_size_x(type, &tsize);
  stored_header(static_cast<size_t>(count) * static_cast<size_t>(tsize), p->header);
  MPI_Datatype t;
  bool owned = false;
  int rc = framed_type(p->header, buf, count, type, true, &t, &owned);
  if (rc == MPI_SUCCESS) {
    p->layout = t;
    rc = init(MPI_BOTTOM, 1, t, dest, tag, st->p2p, req);
  }
  if (rc != MPI_SUCCESS) {
    delete_pending(p);
    return report(comm, rc);
  }
  put_pending(*req, p);
  return MPI_SUCCESS;
}
}  // namespace

int send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
              MPI_Comm comm, MPI_Request* req) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Send_init(buf, count, type, dest, tag, comm, req))
  return persistent_send(PMPI_Send_init, buf, count, type, dest, tag, comm, req, st);
}
int ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
               MPI_Comm comm, MPI_Request* req) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Ssend_init(buf, count, type, dest, tag, comm, req))
  return persistent_send(PMPI_Ssend_init, buf, count, type, dest, tag, comm, req, st);
}
int rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
               MPI_Comm comm, MPI_Request* req) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Rsend_init(buf, count, type, dest, tag, comm, req))
  return persistent_send(PMPI_Send_init, buf, count, type, dest, tag, comm, req, st);
}
// Buffered persistent sends become standard persistent sends: the attached
// buffer was sized for the application's messages, not ours. To a peer on
// this node too, so that both routes behave alike (and Open MPI 4.1's stale
// persistent Bsend data stays away, README).
int bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
               MPI_Comm comm, MPI_Request* req) {
  P2PState* st = state_of(comm);
  if (st && st->direct(dest)) return PMPI_Send_init(buf, count, type, dest, tag, comm, req);
  if (!st || dest == MPI_PROC_NULL || arg_error(comm, count, type, dest, Peer::dest, tag))
    return PMPI_Bsend_init(buf, count, type, dest, tag, comm, req);
  return persistent_send(PMPI_Send_init, buf, count, type, dest, tag, comm, req, st);
}
#undef ADACOMP_PASS_IF_NO_STATE

// ---- receives -------------------------------------------------------------

#define ADACOMP_PASS_IF_NO_STATE(call, count, type)                       \
  P2PState* st = state_of(comm);                                          \
  if (!st || source == MPI_PROC_NULL || st->direct(source) ||             \
      arg_error(comm, count, type, source, Peer::source, tag))            \
    return call;

int recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
         MPI_Status* status) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Recv(buf, count, type, source, tag, comm, status), count, type)
  if (st->dual(source)) {
    MPI_Request r;
    int rc = do_irecv(buf, count, type, source, tag, comm, &r, false, st);
    return rc != MPI_SUCCESS ? rc : wait(&r, status);
  }
  return do_recv(buf, count, type, source, tag, comm, status, st);
}
int irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
          MPI_Request* req) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Irecv(buf, count, type, source, tag, comm, req), count, type)
  return do_irecv(buf, count, type, source, tag, comm, req, false, st);
}
int recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* req) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Recv_init(buf, count, type, source, tag, comm, req), count, type)
  return do_irecv(buf, count, type, source, tag, comm, req, true, st);
}

// Probes take the message off the wire (matched probe + receive) to read its
// header, and keep it in the communicator's stash, which every receive
// checks first: the status then carries the application's count.
static int iprobe_impl(int source, int tag, MPI_Comm comm, bool block, int* flag, MPI_Status* status,
                P2PState* st) {
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  {
    std::lock_guard<std::mutex> g(st->mu);
    for (const Stashed& m : st->stash) {
      if (matches(m, source, tag)) {
        *flag = 1;
        set_status(s, m.source, m.tag, raw_size_of(m));
        return MPI_SUCCESS;
      }
    }
  }
  // Look first without taking the message: a small one is a stored frame
  // whose size the envelope tells, and stays on the wire for the receive.
  MPI_Status peek;
  int rc = block ? PMPI_Probe(source, tag, st->p2p, &peek)
                 : PMPI_Iprobe(source, tag, st->p2p, flag, &peek);
  if (rc != MPI_SUCCESS) return report(comm, rc);
  if (!block && !*flag) return MPI_SUCCESS;
  *flag = 1;
  int wire = 0;
  PMPI_Get_count(&peek, MPI_BYTE, &wire);
  if (wire >= static_cast<int>(kFrameHeaderBytes) &&
      static_cast<size_t>(wire) - kFrameHeaderBytes < kMinCodedPayload) {
    set_status(s, peek.MPI_SOURCE, peek.MPI_TAG, static_cast<size_t>(wire) - kFrameHeaderBytes);
    return MPI_SUCCESS;
  }
  // Possibly coded: take that message off the wire to read its header.
  Stashed m;
  rc = fetch(st, comm, peek.MPI_SOURCE, peek.MPI_TAG, true, flag, &m);
  if (rc != MPI_SUCCESS || !*flag) return rc;
  set_status(s, m.source, m.tag, raw_size_of(m));
  std::lock_guard<std::mutex> g(st->mu);
  st->stash.push_back(std::move(m));
  return MPI_SUCCESS;
}

// A dual probe looks at the application's communicator, then at `p2p`,
// until one has a match (blocking) or once (nonblocking).
int probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Probe(source, tag, comm, status), 0, MPI_BYTE)
  int flag = 0;
  if (!st->dual(source)) return iprobe_impl(source, tag, comm, true, &flag, status, st);
  for (;;) {
    int rc = iprobe(source, tag, comm, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
    std::this_thread::yield();
  }
}
int iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Iprobe(source, tag, comm, flag, status), 0, MPI_BYTE)
  if (st->dual(source)) {
    int rc = PMPI_Iprobe(source, tag, comm, flag, status);
    if (rc != MPI_SUCCESS || *flag) return rc;
  }
  return iprobe_impl(source, tag, comm, false, flag, status, st);
}

namespace {
int mprobe_impl(int source, int tag, MPI_Comm comm, bool block, int* flag, MPI_Message* msg,
                MPI_Status* status, P2PState* st) {
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  auto m = std::make_unique<Stashed>();
  *flag = 1;
  if (!take_stashed(st, source, tag, m.get())) {
    int rc = fetch(st, comm, source, tag, block, flag, m.get());
    if (rc != MPI_SUCCESS || !*flag) return rc;
  }
  set_status(s, m->source, m->tag, raw_size_of(*m));
  *msg = register_message(m.release());
  return MPI_SUCCESS;
}
}  // namespace

// A matched probe of the application's communicator gives MPI's own message
// handle, which Mrecv and Imrecv pass to PMPI.
int mprobe(int source, int tag, MPI_Comm comm, MPI_Message* msg, MPI_Status* status) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Mprobe(source, tag, comm, msg, status), 0, MPI_BYTE)
  int flag = 0;
  if (!st->dual(source)) return mprobe_impl(source, tag, comm, true, &flag, msg, status, st);
  for (;;) {
    int rc = improbe(source, tag, comm, &flag, msg, status);
    if (rc != MPI_SUCCESS || flag) return rc;
    std::this_thread::yield();
  }
}
int improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* msg,
            MPI_Status* status) {
  ADACOMP_PASS_IF_NO_STATE(PMPI_Improbe(source, tag, comm, flag, msg, status), 0, MPI_BYTE)
  if (st->dual(source)) {
    int rc = PMPI_Improbe(source, tag, comm, flag, msg, status);
    if (rc != MPI_SUCCESS || *flag) return rc;
  }
  return mprobe_impl(source, tag, comm, false, flag, msg, status, st);
}
#undef ADACOMP_PASS_IF_NO_STATE

int mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* msg, MPI_Status* status) {
  Stashed* m = take_message(*msg);
  if (!m) return PMPI_Mrecv(buf, count, type, msg, status);
  stats_for(Op::recv).calls.fetch_add(1, std::memory_order_relaxed);
  std::unique_ptr<Stashed> owned(m);
  *msg = MPI_MESSAGE_NULL;
  if (int e = arg_error(m->app, count, type, MPI_PROC_NULL, Peer::none, 0)) return report(m->app, e);
  return deliver(*m, buf, count, type, status);
}
int imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* msg, MPI_Request* req) {
  Stashed* m = take_message(*msg);
  if (!m) return PMPI_Imrecv(buf, count, type, msg, req);
  stats_for(Op::recv).calls.fetch_add(1, std::memory_order_relaxed);
  std::unique_ptr<Stashed> owned(m);
  *msg = MPI_MESSAGE_NULL;
  if (int e = arg_error(m->app, count, type, MPI_PROC_NULL, Peer::none, 0)) return report(m->app, e);
  MPI_Status s;
  int rc = deliver(*m, buf, count, type, &s);
  if (rc != MPI_SUCCESS) return rc;
  return report(m->app, completed_request(&s, req));
}

int sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
             int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
             int recvtag, MPI_Comm comm, MPI_Status* status) {
  const P2PState* st = state_of(comm);
  if (!st || (st->direct(dest) && st->direct(source)) ||
      arg_error(comm, sendcount, sendtype, dest, Peer::dest, sendtag) ||
      arg_error(comm, recvcount, recvtype, source, Peer::source, recvtag))
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                         recvtype, source, recvtag, comm, status);
  MPI_Request r;
  int rc = irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &r);
  if (rc != MPI_SUCCESS) return rc;
  int rc_send = send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
  rc = wait(&r, status);
  return rc_send != MPI_SUCCESS ? rc_send : rc;
}

int sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                     int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  const P2PState* st = state_of(comm);
  if (!st || (st->direct(dest) && st->direct(source)) ||
      arg_error(comm, count, type, dest, Peer::dest, sendtag) ||
      arg_error(comm, count, type, source, Peer::source, recvtag))
    return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm,
                                 status);
  // Send a copy: contiguous data keeps its datatype (and so its float codec).
  TypeInfo ti = type_info(type);
  const size_t bytes = static_cast<size_t>(count > 0 ? count : 0) * ti.size;
  std::vector<uint8_t> copy(bytes);
  const void* sbuf = copy.data();
  int scount = count;
  MPI_Datatype stype = type;
  if (ti.contiguous) {
    if (bytes) std::memcpy(copy.data(), static_cast<uint8_t*>(buf) + ti.true_lb, bytes);
    sbuf = copy.data() - ti.true_lb;
  } else {
    int pos = 0;
    if (bytes) PMPI_Pack(buf, count, type, copy.data(), static_cast<int>(bytes), &pos, comm);
    scount = static_cast<int>(bytes);
    stype = MPI_BYTE;
  }
  return sendrecv(sbuf, scount, stype, dest, sendtag, buf, count, type, source, recvtag, comm,
                  status);
}

// ---- completion -----------------------------------------------------------

// Waiting on a dual receive polls (MPI would wait on one side only).
int wait(MPI_Request* req, MPI_Status* status) {
  if (owns_collective(1, req)) return collective_wait(req, status);
  Pending* p = take_pending(*req);
  if (!p) return PMPI_Wait(req, status);
  if (p->dual) {
    put_pending(*req, p);
    for (int flag = 0;; std::this_thread::yield()) {
      int rc = test(req, &flag, status);
      if (rc != MPI_SUCCESS || flag) return rc;
    }
  }
  MPI_Request handle = *req;
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  int rc = PMPI_Wait(req, s);
  if (rc != MPI_SUCCESS && !truncation(rc)) {
    put_pending(handle, p);
    return rc;
  }
  return complete(handle, p, s, true, rc != MPI_SUCCESS);
}

int test(MPI_Request* req, int* flag, MPI_Status* status) {
  if (owns_collective(1, req)) return collective_test(req, flag, status);
  Pending* p = take_pending(*req);
  if (!p) return PMPI_Test(req, flag, status);
  if (p->dual) resolve_dual(*req, p);
  MPI_Request handle = *req;
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  int rc = PMPI_Test(req, flag, s);
  if ((rc != MPI_SUCCESS && !truncation(rc)) || !*flag) {
    put_pending(handle, p);
    return rc;
  }
  return complete(handle, p, s, true, rc != MPI_SUCCESS);
}

namespace {
// A persistent receive served from the stash at MPI_Start is inactive in
// MPI, which Waitany/Testany/Waitsome/Testsome would skip: such requests are
// reported first (PMPI_Wait returns at once). Returns how many, with their
// indices and statuses in `indices` and `statuses`.
int take_served(const std::vector<Pending*>& ps, MPI_Request reqs[], int max, int indices[],
                MPI_Status statuses[]) {
  int k = 0;
  for (size_t i = 0; i < ps.size() && k < max; ++i) {
    if (!ps[i] || !ps[i]->served) continue;
    PMPI_Wait(&reqs[i], &statuses[k]);
    indices[k++] = static_cast<int>(i);
  }
  return k;
}

// Completes the requests marked done; puts the others back. Channel frames
// among them are finished in channel order, whatever their order in the
// array: passes that finish what is ready, then waiting for the rest.
int finish_some(const std::vector<MPI_Request>& handles, std::vector<Pending*>& ps,
                const std::vector<char>& done, const std::vector<int>& status_index,
                MPI_Status* statuses, int rc) {
  restore(handles, ps, done);
  MPI_Status local;
  const int mpi_rc = rc;
  std::vector<char> left(done);
  for (bool may_wait = false, progressed = true;;) {
    bool remaining = false;
    progressed = false;
    for (size_t i = 0; i < ps.size(); ++i) {
      if (!ps[i] || !left[i]) continue;
      MPI_Status* s = statuses && status_index[i] >= 0 ? &statuses[status_index[i]] : &local;
      const bool cut =
          truncation(mpi_rc) || (mpi_rc == MPI_ERR_IN_STATUS && truncation(s->MPI_ERROR));
      int r = complete(handles[i], ps[i], s, may_wait, cut);
      if (r == kNotYourTurn) {
        remaining = true;
        continue;
      }
      left[i] = 0;
      progressed = true;
      if (r != MPI_SUCCESS) {
        s->MPI_ERROR = r;
        rc = r;
      }
    }
    if (!remaining) return rc;
    if (!progressed) may_wait = true;
  }
}
}  // namespace

int waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  if (owns_collective(n, reqs)) return collective_waitall(n, reqs, statuses);
  bool any = false;
  std::vector<Pending*> ps = take_all(n, reqs, &any);
  if (!any) return PMPI_Waitall(n, reqs, statuses);
  if (put_back_if_dual(reqs, ps))
    for (int flag = 0;; std::this_thread::yield()) {
      int rc = testall(n, reqs, &flag, statuses);
      if (rc != MPI_SUCCESS || flag) return rc;
    }
  std::vector<MPI_Request> handles(reqs, reqs + n);
  std::vector<MPI_Status> local(n);
  MPI_Status* ss = statuses == MPI_STATUSES_IGNORE ? local.data() : statuses;
  int rc = PMPI_Waitall(n, reqs, ss);
  std::vector<char> done(n, rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS);
  std::vector<int> idx(n);
  for (int i = 0; i < n; ++i) idx[i] = i;
  return finish_some(handles, ps, done, idx, ss, rc);
}

int testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  if (owns_collective(n, reqs)) return collective_testall(n, reqs, flag, statuses);
  bool any = false;
  std::vector<Pending*> ps = take_all(n, reqs, &any);
  if (!any) return PMPI_Testall(n, reqs, flag, statuses);
  resolve_duals(reqs, ps);
  std::vector<MPI_Request> handles(reqs, reqs + n);
  std::vector<MPI_Status> local(n);
  MPI_Status* ss = statuses == MPI_STATUSES_IGNORE ? local.data() : statuses;
  int rc = PMPI_Testall(n, reqs, flag, ss);
  std::vector<char> done(n, (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *flag);
  std::vector<int> idx(n);
  for (int i = 0; i < n; ++i) idx[i] = i;
  return finish_some(handles, ps, done, idx, ss, rc);
}

int waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
  if (owns_collective(n, reqs)) return collective_waitany(n, reqs, index, status);
  bool any = false;
  std::vector<Pending*> ps = take_all(n, reqs, &any);
  if (!any) return PMPI_Waitany(n, reqs, index, status);
  if (put_back_if_dual(reqs, ps))
    for (int flag = 0;; std::this_thread::yield()) {
      int rc = testany(n, reqs, index, &flag, status);
      if (rc != MPI_SUCCESS || flag) return rc;
    }
  std::vector<MPI_Request> handles(reqs, reqs + n);
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  int rc = take_served(ps, reqs, 1, index, s) ? MPI_SUCCESS : PMPI_Waitany(n, reqs, index, s);
  std::vector<char> done(n, 0);
  std::vector<int> idx(n, -1);
  if ((rc == MPI_SUCCESS || truncation(rc)) && *index != MPI_UNDEFINED)
    done[*index] = 1, idx[*index] = 0;
  return finish_some(handles, ps, done, idx, s, rc);
}

int testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
  if (owns_collective(n, reqs)) return collective_testany(n, reqs, index, flag, status);
  bool any = false;
  std::vector<Pending*> ps = take_all(n, reqs, &any);
  if (!any) return PMPI_Testany(n, reqs, index, flag, status);
  resolve_duals(reqs, ps);
  std::vector<MPI_Request> handles(reqs, reqs + n);
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  *flag = 1;
  int rc = take_served(ps, reqs, 1, index, s) ? MPI_SUCCESS
                                              : PMPI_Testany(n, reqs, index, flag, s);
  std::vector<char> done(n, 0);
  std::vector<int> idx(n, -1);
  if ((rc == MPI_SUCCESS || truncation(rc)) && *flag && *index != MPI_UNDEFINED)
    done[*index] = 1, idx[*index] = 0;
  return finish_some(handles, ps, done, idx, s, rc);
}

namespace {
int some_impl(bool wait_mode, int n, MPI_Request reqs[], int* outcount, int indices[],
              MPI_Status statuses[]) {
  bool any = false;
  std::vector<Pending*> ps = take_all(n, reqs, &any);
  if (!any)
    return wait_mode ? PMPI_Waitsome(n, reqs, outcount, indices, statuses)
                     : PMPI_Testsome(n, reqs, outcount, indices, statuses);
  if (wait_mode && put_back_if_dual(reqs, ps))
    for (;; std::this_thread::yield()) {
      int rc = some_impl(false, n, reqs, outcount, indices, statuses);
      if (rc != MPI_SUCCESS || *outcount != 0) return rc;
    }
  resolve_duals(reqs, ps);
  std::vector<MPI_Request> handles(reqs, reqs + n);
  std::vector<MPI_Status> local(n);
  MPI_Status* ss = statuses == MPI_STATUSES_IGNORE ? local.data() : statuses;
  int rc = MPI_SUCCESS;
  *outcount = take_served(ps, reqs, n, indices, ss);
  if (*outcount == 0)
    rc = wait_mode ? PMPI_Waitsome(n, reqs, outcount, indices, ss)
                   : PMPI_Testsome(n, reqs, outcount, indices, ss);
  std::vector<char> done(n, 0);
  std::vector<int> idx(n, -1);
  if ((rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *outcount != MPI_UNDEFINED)
    for (int k = 0; k < *outcount; ++k) done[indices[k]] = 1, idx[indices[k]] = k;
  return finish_some(handles, ps, done, idx, ss, rc);
}
}  // namespace

int waitsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  if (owns_collective(n, reqs)) return collective_waitsome(n, reqs, outcount, indices, statuses);
  return some_impl(true, n, reqs, outcount, indices, statuses);
}
int testsome(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  if (owns_collective(n, reqs)) return collective_testsome(n, reqs, outcount, indices, statuses);
  return some_impl(false, n, reqs, outcount, indices, statuses);
}

// Persistent requests are counted per start. A persistent receive first
// looks in the stash, as every other receive does: a message a probe took
// off the wire is delivered at once and the request is not started in MPI.
int start(MPI_Request* req) {
  if (owns_collective(1, req)) return collective_start(req);
  Pending* p = take_pending(*req);
  if (!p) return PMPI_Start(req);
  stats_for(p->is_recv ? Op::recv : Op::send).calls.fetch_add(1, std::memory_order_relaxed);
  int rc = MPI_SUCCESS;
  P2PState* st = p->is_recv ? state_of(p->app) : nullptr;
  Stashed m;
  if (st && take_stashed(st, p->source, p->tag, &m)) {
    p->finish_rc = deliver(m, p->buf, p->count, p->type, &p->status);
    p->finished = p->served = true;
  } else {
    rc = PMPI_Start(req);
    if (rc == MPI_SUCCESS && p->dual) {
      rc = PMPI_Start(&p->twin);
      p->twin_active = rc == MPI_SUCCESS;
    }
  }
  put_pending(*req, p);
  return rc;
}

int startall(int n, MPI_Request reqs[]) {
  int rc = MPI_SUCCESS;
  for (int i = 0; i < n; ++i) {
    int r = start(&reqs[i]);
    if (rc == MPI_SUCCESS) rc = r;
  }
  return rc;
}

int request_free(MPI_Request* req) {
  if (owns_collective(1, req)) return collective_request_free(req);
  Pending* p = take_pending(*req);
  MPI_Request handle = *req;
  if (p && p->dual && p->twin_active) retire_twin(p);  // it must not swallow a message
  int rc = PMPI_Request_free(req);
  if (p && rc != MPI_SUCCESS) put_pending(handle, p);
  if (p && rc == MPI_SUCCESS) {
    if (p->persistent) {
      delete_pending(p);
    } else {
      // Still in flight: its header and frame must outlive it.
      std::lock_guard<std::mutex> g(g_mu);
      g_orphans.push_back(p);
    }
  }
  return rc;
}

// Out of the table while it is finished, so that the receives a channel
// frame drives cannot finish it a second time.
int request_get_status(MPI_Request req, int* flag, MPI_Status* status) {
  if (owns_collective(1, &req)) return collective_request_get_status(req, flag, status);
  Pending* p = take_pending(req);
  if (!p) return PMPI_Request_get_status(req, flag, status);
  int rc = MPI_SUCCESS;
  if (p->dual) resolve_dual(req, p);
  if (!p->is_recv || (p->direct && !p->finished)) {
    rc = PMPI_Request_get_status(req, flag, status);
  } else if (p->finished) {
    *flag = 1;
    if (status != MPI_STATUS_IGNORE) *status = p->status;
  } else {
    rc = PMPI_Request_get_status(req, flag, &p->status);
    if (rc == MPI_SUCCESS && *flag) {
      rc = finish_recv(p->app, p->header, p->staging, p->buf, p->count, p->type, &p->status,
                       true);
      p->finish_rc = rc;
      p->finished = true;
      if (status != MPI_STATUS_IGNORE) *status = p->status;
    }
  }
  put_pending(req, p);
  return rc;
}

// ---- communicator constructors -------------------------------------------

namespace {
int attached(int rc, MPI_Comm* newcomm) {
  if (rc == MPI_SUCCESS) p2p_attach(*newcomm);
  return rc;
}
}  // namespace

int comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return attached(PMPI_Comm_dup(comm, newcomm), newcomm);
}
int comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  return attached(PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm);
}
int comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return attached(PMPI_Comm_split(comm, color, key, newcomm), newcomm);
}
int comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  return attached(PMPI_Comm_split_type(comm, split_type, key, info, newcomm), newcomm);
}
int comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  return attached(PMPI_Comm_create(comm, group, newcomm), newcomm);
}
int comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  return attached(PMPI_Comm_create_group(comm, group, tag, newcomm), newcomm);
}
int cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                MPI_Comm* newcomm) {
  return attached(PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm), newcomm);
}
int cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  return attached(PMPI_Cart_sub(comm, remain_dims, newcomm), newcomm);
}
int graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
                 MPI_Comm* newcomm) {
  return attached(PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm), newcomm);
}
int dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                      const int destinations[], const int weights[], MPI_Info info,
                      int reorder, MPI_Comm* newcomm) {
  return attached(PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights,
                                         info, reorder, newcomm),
                  newcomm);
}
int dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                               const int sourceweights[], int outdegree,
                               const int destinations[], const int destweights[],
                               MPI_Info info, int reorder, MPI_Comm* newcomm) {
  return attached(PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights,
                                                  outdegree, destinations, destweights, info,
                                                  reorder, newcomm),
                  newcomm);
}
int intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newcomm) {
  return attached(PMPI_Intercomm_merge(intercomm, high, newcomm), newcomm);
}


#if MPI_VERSION >= 4
// ---- MPI-4: large counts and Isendrecv -----------------------------------

namespace {
// Runs f(int count, type): counts that fit an int as they are, larger ones
// as one element of a contiguous datatype.
template <typename F>
int with_count(MPI_Count count, MPI_Datatype type, F f) {
  if (count <= INT_MAX) return f(static_cast<int>(count), type);
  MPI_Datatype big;
  PMPI_Type_contiguous_c(count, type, &big);
  PMPI_Type_commit(&big);
  int rc = f(1, big);
  PMPI_Type_free(&big);
  return rc;
}
}  // namespace

#define ADACOMP_SEND_C(name)                                                           \
  int name##_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag,  \
               MPI_Comm comm) {                                                        \
    return with_count(count, type,                                                     \
                      [&](int n, MPI_Datatype t) { return name(buf, n, t, dest, tag, comm); }); \
  }
#define ADACOMP_ISEND_C(name)                                                          \
  int name##_c(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag,  \
               MPI_Comm comm, MPI_Request* req) {                                      \
    return with_count(count, type, [&](int n, MPI_Datatype t) {                        \
      return name(buf, n, t, dest, tag, comm, req);                                    \
    });                                                                                \
  }
ADACOMP_SEND_C(send)
ADACOMP_SEND_C(ssend)
ADACOMP_SEND_C(rsend)
ADACOMP_SEND_C(bsend)
ADACOMP_ISEND_C(isend)
ADACOMP_ISEND_C(issend)
ADACOMP_ISEND_C(irsend)
ADACOMP_ISEND_C(ibsend)
ADACOMP_ISEND_C(send_init)
ADACOMP_ISEND_C(ssend_init)
ADACOMP_ISEND_C(rsend_init)
ADACOMP_ISEND_C(bsend_init)
#undef ADACOMP_SEND_C
#undef ADACOMP_ISEND_C

int recv_c(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
           MPI_Status* status) {
  return with_count(count, type, [&](int n, MPI_Datatype t) {
    return recv(buf, n, t, source, tag, comm, status);
  });
}
int irecv_c(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
            MPI_Request* req) {
  return with_count(count, type, [&](int n, MPI_Datatype t) {
    return irecv(buf, n, t, source, tag, comm, req);
  });
}
int recv_init_c(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                MPI_Comm comm, MPI_Request* req) {
  return with_count(count, type, [&](int n, MPI_Datatype t) {
    return recv_init(buf, n, t, source, tag, comm, req);
  });
}
int mrecv_c(void* buf, MPI_Count count, MPI_Datatype type, MPI_Message* msg,
            MPI_Status* status) {
  return with_count(count, type,
                    [&](int n, MPI_Datatype t) { return mrecv(buf, n, t, msg, status); });
}
int imrecv_c(void* buf, MPI_Count count, MPI_Datatype type, MPI_Message* msg,
             MPI_Request* req) {
  return with_count(count, type,
                    [&](int n, MPI_Datatype t) { return imrecv(buf, n, t, msg, req); });
}
int sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
               int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
               int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return with_count(sendcount, sendtype, [&](int sn, MPI_Datatype st) {
    return with_count(recvcount, recvtype, [&](int rn, MPI_Datatype rt) {
      return sendrecv(sendbuf, sn, st, dest, sendtag, recvbuf, rn, rt, source, recvtag, comm,
                      status);
    });
  });
}
int sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype type, int dest, int sendtag,
                       int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return with_count(count, type, [&](int n, MPI_Datatype t) {
    return sendrecv_replace(buf, n, t, dest, sendtag, source, recvtag, comm, status);
  });
}

// Isendrecv: the receive half is the returned request; the send half rides
// along in its table entry and is completed with it.
int isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
              int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
              int recvtag, MPI_Comm comm, MPI_Request* req) {
  const P2PState* st = state_of(comm);
  if (!st || (st->direct(dest) && st->direct(source)) ||
      arg_error(comm, sendcount, sendtype, dest, Peer::dest, sendtag) ||
      arg_error(comm, recvcount, recvtype, source, Peer::source, recvtag))
    return PMPI_Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                          recvtype, source, recvtag, comm, req);
  MPI_Request s = MPI_REQUEST_NULL;
  int rc = isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &s);
  if (rc != MPI_SUCCESS) return rc;
  rc = irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, req);
  if (rc != MPI_SUCCESS) return rc;
  Pending* p = find_pending(*req);
  if (!p && st->direct(source)) {
    // A receive straight on the application's communicator, still open.
    p = new Pending;
    p->is_recv = p->direct = true;
    p->app = comm;
    p->companion = s;
    put_pending(*req, p);
    return MPI_SUCCESS;
  }
  if (!p) {
    // Already complete (probed message, MPI_PROC_NULL): a fresh request
    // carries the send half.
    MPI_Status st;
    rc = wait(req, &st);
    if (rc != MPI_SUCCESS) return rc;
    p = new Pending;
    p->companion = s;
    if (completed_request(&st, req) != MPI_SUCCESS) return report(comm, MPI_ERR_INTERN);
    put_pending(*req, p);
    return MPI_SUCCESS;
  }
  p->companion = s;
  return MPI_SUCCESS;
}

int isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                int source, int recvtag, MPI_Comm comm, MPI_Request* req) {
  return with_count(sendcount, sendtype, [&](int sn, MPI_Datatype st) {
    return with_count(recvcount, recvtype, [&](int rn, MPI_Datatype rt) {
      return isendrecv(sendbuf, sn, st, dest, sendtag, recvbuf, rn, rt, source, recvtag, comm,
                       req);
    });
  });
}

int isendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                      int source, int recvtag, MPI_Comm comm, MPI_Request* req) {
  const P2PState* st = state_of(comm);
  if (!st || (st->direct(dest) && st->direct(source)) ||
      arg_error(comm, count, type, dest, Peer::dest, sendtag) ||
      arg_error(comm, count, type, source, Peer::source, recvtag))
    return PMPI_Isendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, req);
  // The data sent is packed first and kept with the request.
  MPI_Count tsize = 0;
  PMPI_Type_size_x(type, &tsize);
  const size_t bytes = static_cast<size_t>(count > 0 ? count : 0) * static_cast<size_t>(tsize);
  std::vector<uint8_t> copy(bytes);
  int pos = 0;
  if (bytes) PMPI_Pack(buf, count, type, copy.data(), static_cast<int>(bytes), &pos, comm);
  int rc = isendrecv(copy.data(), static_cast<int>(bytes), MPI_BYTE, dest, sendtag, buf, count,
                     type, source, recvtag, comm, req);
  if (rc != MPI_SUCCESS) return rc;
  Pending* p = find_pending(*req);
  if (p) p->keep = std::move(copy);  // vector moves keep the data's address
  return MPI_SUCCESS;
}

int isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype type, int dest, int sendtag,
                        int source, int recvtag, MPI_Comm comm, MPI_Request* req) {
  return with_count(count, type, [&](int n, MPI_Datatype t) {
    return isendrecv_replace(buf, n, t, dest, sendtag, source, recvtag, comm, req);
  });
}
#endif  // MPI_VERSION >= 4

}  // namespace adacomp
