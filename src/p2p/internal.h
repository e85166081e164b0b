// What the files of src/p2p share: the per-communicator part, the table of
// requests the library must finish, and the stages of sending and receiving
// a frame. Wire convention (docs/p2p.md): on a communicator with p2p state
// every intercepted send travels on the private duplicate with the
// application's tag, and every message there is a frame: a 24-byte frame
// header then the payload. Small or ineligible messages are stored frames
// sent zero-copy (a struct datatype joins the header and the user's buffer),
// compressed ones a coded frame. Receives post the same struct (header + the
// user's buffer): a coded payload is never larger than its raw size, so any
// message that fits the user's buffer raw also fits it coded, and stored
// frames land in place with no copy.
//
// Locks nest one way only: the request table's (requests.cpp, held while
// drive_receives finishes receives) may hold a communicator's `mu` or the
// reports' (lost_reports.cpp); a communicator's may hold the lost-channel
// list's (interstep.cpp). The others are leaves.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "p2p/interstep.h"
#include "runtime/args.h"
#include "runtime/call_result.h"
#include "runtime/comm_state.h"
#include "runtime/runtime.h"
#include "wire/frame.h"

namespace adacomp {

// A whole frame taken off the wire before its receive (probe, matched probe).
struct Stashed {
  int source = MPI_ANY_SOURCE;
  int tag = MPI_ANY_TAG;
  MPI_Comm app = MPI_COMM_NULL;
  std::vector<uint8_t> frame;
};

// Point-to-point's part of a communicator's state (runtime/comm_state.h).
struct P2PComm : std::enable_shared_from_this<P2PComm> {
  MPI_Comm comm = MPI_COMM_NULL;  // the private duplicate (CommState::p2p)
  const Locality* loc = nullptr;  // the communicator's, learned once
  // Messages between ranks of one node go straight through PMPI on the
  // application's communicator, at plain MPI's cost (never coded, never
  // framed); the rest travels on `comm`. A receive from MPI_ANY_SOURCE then
  // watches both (a dual receive).
  bool split = false;
  bool direct(int peer) const {
    return split && peer >= 0 && peer < static_cast<int>(loc->node_of.size()) &&
           loc->same_node(peer);
  }
  bool dual(int source) const { return split && source == MPI_ANY_SOURCE; }
  // One lock for the stash and the inter-step channels. Held from coding a
  // channel frame until it is posted, so frames reach the wire in position
  // order; never held while waiting.
  std::mutex mu;
  std::deque<Stashed> stash;  // messages taken off the wire by a probe
  SendChannels sending;
  RecvChannels receiving;
};

// The part of `comm`, or nullptr: point-to-point is off, or not for `comm`.
P2PComm* p2p_of(MPI_Comm comm);
// The part of `comm` if the library takes a call with this peer; nullptr
// declines it: no part, MPI_PROC_NULL, a peer on this node, or bad arguments
// (PMPI reports those: runtime/args.h).
P2PComm* route(MPI_Comm comm, int count, MPI_Datatype type, int peer, Peer role, int tag);
// The same for a call that sends to `dest` and receives from `source`: both
// peers on this node, or either side's bad arguments, decline it.
P2PComm* route_pair(MPI_Comm comm, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    int recvcount, MPI_Datatype recvtype, int source, int recvtag);

// A call the library makes itself on the application's behalf: where the
// implementation declines, `pmpi` does it.
template <typename F>
int or_pmpi(CallResult r, F pmpi) {
  return r ? *r : pmpi();
}

// ---- requests the library must finish at completion (requests.cpp) ------

struct Pending {
  bool is_recv = false;
  bool direct = false;  // posted on the application's communicator: nothing to finish
  bool dual = false;    // MPI_ANY_SOURCE on a split communicator (direct too)
  bool persistent = false;
  bool active = false;    // persistent: started and not yet completed
  bool buffered = false;  // persistent buffered send (send.cpp, bsend_init)
  bool finished = false;  // finished early (status and finish_rc saved)
  bool served = false;    // persistent receive started from the stash: inactive in MPI
  // Persistent receives' source and buffered sends' destination, and tag.
  int peer = MPI_ANY_SOURCE, tag = MPI_ANY_TAG;
  int finish_rc = MPI_SUCCESS;
  MPI_Comm app = MPI_COMM_NULL;
  uint8_t header[kFrameHeaderBytes];
  std::vector<uint8_t> frame;    // coded frame of a nonblocking send
  std::vector<uint8_t> staging;  // receive into a non-contiguous datatype
  // A dual receive's framed twin: the same receive posted on the private
  // communicator into `staging` (capacity of the largest frame that fits
  // the user's buffer).
  MPI_Request twin = MPI_REQUEST_NULL;
  bool twin_active = false;  // posted (or started) and not yet settled
  // The communicator's part, for a receive or a buffered persistent send:
  // kept with the request, since the application may free the communicator
  // meanwhile.
  std::shared_ptr<P2PComm> part;
  MPI_Request companion = MPI_REQUEST_NULL;  // Isendrecv: the send half
  std::vector<uint8_t> keep;                 // Isendrecv_replace: the data sent
  void* buf = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  bool type_owned = false;
  // A framing type of the request's own (not cached), freed with it.
  MPI_Datatype layout = MPI_DATATYPE_NULL;
  MPI_Status status;
  // A persistent request not started (or completed since): MPI gives its
  // completion calls the empty status at once, and nothing is finished.
  bool inactive() const { return persistent && !active; }
};

void put_pending(MPI_Request req, Pending* p);
Pending* find_pending(MPI_Request req);
// Completion takes a request's entry out of the table *before* the PMPI call
// that may free the handle, and puts back those that did not complete: once
// MPI frees a handle another thread may get the same value for a new request,
// which must never find our stale entry.
Pending* take_pending(MPI_Request req);
// The entries of an array of requests (nullptr where not ours); *any says
// whether there was one.
std::vector<Pending*> take_all(int n, const MPI_Request* reqs, bool* any);
void delete_pending(Pending* p);
// A request freed with MPI_Request_free while in flight: its buffers must
// outlive it, until p2p_finalize.
void orphan(Pending* p);

// A buffered send's copy, kept until MPI is done with it.
struct Detached {
  MPI_Request req;
  std::vector<uint8_t> data;
};
void detach(Detached&& d);
// Drops the sends of `sends` MPI is done with (all: waits for every one).
void drop_finished(std::vector<Detached>* sends, bool all);
// The same for the detached sends.
void poll_detached(bool all);

// Finishes the communicator's receives that have completed in MPI but not
// yet for the application, as far as channel order allows: a channel frame
// waiting for its predecessor calls this until the one holding it is done.
// Each is marked finished, for its Wait or Test to report.
void drive_receives(MPI_Comm app, const char* op);
// Frees what is left at MPI_Finalize.
void requests_finalize();

// ---- small shared stages -------------------------------------------------

int report(MPI_Comm app, int rc);  // through app's error handler if rc fails
// Statuses the library fills leave MPI_ERROR alone: only the multiple
// completions (Waitall, Testall, Waitsome, Testsome) set it, and only when
// they return MPI_ERR_IN_STATUS.
void set_status(MPI_Status* s, int source, int tag, size_t raw);
void copy_status(MPI_Status* to, const MPI_Status& from);
// Bytes a receive's status counts.
MPI_Count status_bytes(MPI_Status* s);
// A request that is already complete, carrying `status` (a generalized
// request; nullptr: an empty status).
int completed_request(const MPI_Status* status, MPI_Request* req);
// A frame cut by MPI because it exceeds the posted buffer.
bool truncation(int rc);
void stored_header(size_t bytes, uint8_t* dst);
// A stored frame as one contiguous copy in *out: its header, then
// (buf, count, type) packed.
void stored_copy(const void* buf, int count, MPI_Datatype type, MPI_Comm comm,
                 std::vector<uint8_t>* out);

// What the SMPI build (ADACOMP_FOR_SMPI, docs/scale.md) changes: SimGrid
// SMPI 3.32 takes MPI_BOTTOM as the address (void*)-111, unpacks a
// derived-type receive only in whole elements of the type, aborts in
// MPI_Improbe, MPI_Mprobe, MPI_Mrecv and MPI_Get_elements_x, and its
// MPI_Request_get_status reports every request complete. So there, besides
// the two below: no split communicators (every message framed on the private
// one; dual receives watch requests with MPI_Request_get_status), no
// inter-step channels (a channel frame waiting for its predecessor finishes
// the other receives by the same call), and a nonblocking send is always
// kept in the request table.
#ifdef ADACOMP_FOR_SMPI
constexpr bool kSmpi = true;
#else
constexpr bool kSmpi = false;
#endif
// MPICH can report a receive cancelled although it had matched a message,
// which is then lost (pmodels/mpich#6584; a wildcard benchmark on 2 nodes x
// 2 ranks hung 1 run in 5 here). A dual receive resolves by cancelling one
// side, so on MPICH a communicator that spans nodes frames its same-node
// peers too, as the SMPI build does: one receive, no cancel.
#ifdef MPICH_VERSION
constexpr bool kCancelMayLoseMessages = true;
#else
constexpr bool kCancelMayLoseMessages = false;
#endif
// Frames travel as contiguous bytes only: stored frames are sent from a
// packed copy (stored_copy) and every frame is received into staging, not
// through the zero-copy framing struct (p2p/framing.h).
constexpr bool kPackedFrames = kSmpi;
// No matched probes: the library takes its own messages off the wire with a
// probe, then a receive of the probed envelope. Safe where no other thread
// receives on that communicator meanwhile (SMPI's ranks are single-threaded).
constexpr bool kNoMatchedProbe = kSmpi;
// Bytes of `count` elements of `type`.
size_t bytes_of(int count, MPI_Datatype type);

// Coded frames carry at least this many payload bytes on the wire (padded
// if the codec did better), and messages smaller than this are never coded.
// So a message whose wire payload is smaller is always a stored frame whose
// raw size is visible in the envelope: Probe and Iprobe can report it without
// taking the message off the wire (which keeps synchronous sends pending).
constexpr size_t kMinCodedPayload = 1024;

// ---- lost references (lost_reports.cpp) ----------------------------------
// A receiver that loses a channel's reference (a truncated or failed frame)
// tells the sending process the channel id (0: unknown); the sender reads
// such reports before it codes a channel frame, and the channel's next frame
// goes without XOR, which restarts it at the receiver.
void lost_reports_open();
void lost_reports_close();
void tell_sender(MPI_Comm app, int source, uint32_t id);
void read_lost_reports();

// ---- sending (send.cpp) ---------------------------------------------------

enum class SendMode { standard, sync, ready };
// Blocking (req == nullptr) or nonblocking send of one message on st->comm.
int do_send(SendMode m, const void* buf, int count, MPI_Datatype type, int dest, int tag,
            MPI_Comm comm, MPI_Request* req, P2PComm* st);
int do_bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
             P2PComm* st);
// A persistent buffered send's MPI_Start: the copy sent (send.cpp, bsend_init).
int start_buffered(Pending* p);
// A persistent send's packed copy (kPackedFrames) taken again from the
// user's buffer, at each MPI_Start.
void refresh_stored_copy(Pending* p);

// ---- frames received (frames.cpp) ----------------------------------------

// finish_recv's answer when the frame is a channel frame whose predecessors
// on its channel are not applied yet and the caller must not wait.
constexpr int kNotYourTurn = -1;
// Turns a received frame into the application's data and status. The
// header is in `header` and the payload in the user's buffer (contiguous
// types), or the whole frame is in `staging` (non-empty: other types).
// `cut` says MPI reported the frame truncated (longer than the posted
// buffer). `op` names the call the user made, for its errors. `st` is the
// communicator's part the receive was posted with (only channel frames need
// it).
int finish_recv(P2PComm* st, MPI_Comm app, const uint8_t* header,
                const std::vector<uint8_t>& staging, void* buf, int count, MPI_Datatype type,
                MPI_Status* s, bool may_wait, bool cut, const char* op);
// Delivers a whole frame taken off the wire earlier (probe, matched probe).
int deliver(const Stashed& m, void* buf, int count, MPI_Datatype type, MPI_Status* status,
            const char* op);
// A frame taken off the wire whole, before its receive: a channel frame is
// applied now, in its channel's order, and kept decoded, since the receive
// that takes it may come at any time.
int adopt_frame(P2PComm* st, MPI_Comm app, Stashed* out, const char* op);

// ---- the stash (probe.cpp) -------------------------------------------------

bool take_stashed(P2PComm* st, int source, int tag, Stashed* out);
void stash_front(MPI_Comm app, Stashed&& m);

// ---- receiving (receive.cpp) ----------------------------------------------

int do_irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Request* req, bool persistent, P2PComm* st, const char* op);
// The two halves of Sendrecv (send_req null: a blocking send) or Isendrecv,
// each on the library's route or PMPI's; the receive is posted first.
// Returns the first failure; *recv_req stays MPI_REQUEST_NULL if the
// receive failed.
int post_pair(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
              void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
              MPI_Comm comm, MPI_Request* send_req, MPI_Request* recv_req, const char* op);
// Dual receives: see receive.cpp.
void resolve_dual(MPI_Request handle, Pending* p, const char* op);
void retire_twin(Pending* p, const char* op);

// Completion of one request on behalf of a call: wait_as, test_as (p2p.h).

}  // namespace adacomp
