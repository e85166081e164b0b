// What the files of src/p2p share: the per-communicator part, the requests
// the library must finish, and the stages of sending and receiving
// a message. Wire convention (docs/p2p.md): everything the application sends
// travels on its communicator with its tag. A message that is not coded goes
// as the application sent it. A coded one is announced there by a marker of
// kMarkerBytes (wire/marker.h), sent in the application's send mode; its body
// (a frame: wire/frame.h header and payload) follows on the library's world
// communicator, to the destination's world rank, under a tag made of the
// marker's sequence number (bodies.cpp). A plain message of exactly
// kMarkerBytes goes as a marker and a stored body, so a receive (posted as
// the application posted it) knows a marker by its size: any other size is
// the application's data, in place. Peers on this rank's node, on a
// communicator that spans nodes, are never coded, and their messages never
// markers.
//
// Locks nest one way only: the request registry's (requests/registry.h, held
// while drive_receives finishes receives) may hold a communicator's `mu` or the
// reports' (lost_reports.cpp); a communicator's may hold the lost-channel
// list's (interstep.cpp) and the bodies in flight's (a channel frame's body
// is sent under its communicator's lock). The others are leaves.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "p2p/interstep.h"
#include "decision/gate.h"
#include "runtime/args.h"
#include "decision/call_result.h"
#include "runtime/comm_state.h"
#include "requests/wait_test.h"
#include "runtime/datatype.h"
#include "requests/registry.h"
#include "runtime/runtime.h"
#include "wire/frame.h"
#include "wire/marker.h"

namespace adacomp {

// A whole frame taken off the wire before its receive (probe, matched probe);
// a plain message taken that way is kept as a stored frame.
struct Stashed {
  int source = MPI_ANY_SOURCE;
  int tag = MPI_ANY_TAG;
  MPI_Comm app = MPI_COMM_NULL;
  std::vector<uint8_t> frame;
};

// Point-to-point's part of a communicator's state (runtime/comm_state.h).
struct P2PComm : std::enable_shared_from_this<P2PComm> {
  // The communicator's, learned once; a copy, as a receive may complete
  // after MPI_Comm_free has deleted the communicator's state.
  Locality loc;
  std::vector<int> world;  // each rank's rank in MPI_COMM_WORLD
  // The communicator spans nodes: messages between ranks of one node go
  // as the application sent them (never coded, never a marker).
  bool spans = false;
  bool direct(int peer) const {
    return spans && peer >= 0 && peer < static_cast<int>(loc.node_of.size()) && loc.same_node(peer);
  }
  // A received message of `bytes` from `source` is a marker.
  bool is_marker(MPI_Count bytes, int source) const {
    return bytes == static_cast<MPI_Count>(kMarkerBytes) && !direct(source);
  }
  // Its error handler ends the job (MPI_ERRORS_ARE_FATAL, MPI_ERRORS_ABORT):
  // learned when the part is made, kept by MPI_Comm_set_errhandler.
  std::atomic<bool> fatal_errors{true};
  // One lock for the stash and the inter-step channels. Held from coding a
  // channel frame until its marker is posted, so markers reach the wire in
  // position order; never held while waiting.
  std::mutex mu;
  std::deque<Stashed> stash;  // messages taken off the wire by a probe
  // stash.size(), read without the lock by small_receive and take_stashed.
  std::atomic<size_t> stashed{0};
  SendChannels sending;
  RecvChannels receiving;
};

// The part of `comm`, or nullptr: point-to-point is off, or not for `comm`.
P2PComm* p2p_of(MPI_Comm comm);
// The part of `comm` if the library takes a call with this peer; nullptr
// declines it: no part, MPI_PROC_NULL, a peer on this node, bad arguments
// (PMPI reports those: runtime/args.h), or a send that can never be coded
// nor be a marker (fewer than kMinCodedPayload bytes and than the lossless
// threshold, not kMarkerBytes), so
// that such a send costs one size query more than MPI's.
P2PComm* route(MPI_Comm comm, int count, MPI_Datatype type, int peer, Peer role, int tag);
// The same for a nonblocking receive, which also declines where it cannot
// hold a marker (fewer than kMarkerBytes), no probe has stashed one on
// `comm`, and either inter-step coding is off or a truncation ends the job
// (fatal error handlers): otherwise a marker cut short must be told to its
// sender (lose_cut_marker) at completion. Small receives and their
// completions are then MPI's own.
P2PComm* route_recv(MPI_Comm comm, int count, MPI_Datatype type, int source, int tag);
// Whether a receive of (count, type) from `source` on `st` cannot hold a
// marker while none is stashed: recv() then makes it MPI's own receive, and
// only a truncation has anything left to do.
bool small_receive(const P2PComm* st, int count, MPI_Datatype type, int source);
// The same for a call that sends to `dest` and receives from `source`: both
// sides declined as above, or either side's bad arguments, decline it.
P2PComm* route_pair(MPI_Comm comm, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    int recvcount, MPI_Datatype recvtype, int source, int recvtag);

// A call the library makes itself on the application's behalf: where the
// implementation declines, `pmpi` does it, untimed (unlike entry::or_pmpi,
// which times the declined application call for the adaptive model).
template <typename F>
int or_pmpi_untimed(CallResult r, F pmpi) {
  return r ? *r : pmpi();
}

// ---- bodies on the library's world communicator (bodies.cpp) -------------

void bodies_open();   // MPI_Init: the world communicator, sequence numbers
void bodies_close();  // MPI_Finalize: bodies never received are cancelled
MPI_Comm library_world();
// Sends `frame` to world rank `to` (nonblocking, kept until MPI is done with
// it) under a fresh sequence number, which it returns in *sequence.
int send_body(int to, std::vector<uint8_t>&& frame, uint32_t* sequence);
// Receives the body announced by `m` from world rank `from` into *body.
int recv_body(int from, const Marker& m, std::vector<uint8_t>* body);

// ---- requests the library must finish at completion (requests.cpp) ------

// Point-to-point's requests in the registry (requests/registry.h), one type
// per kind; their hooks are completion.cpp's. The base alone serves an
// Isendrecv whose receive was complete at once: only its send half is left.
struct Pending : LibraryRequest {
  int finish(MPI_Request handle, MPI_Status* s, bool may_wait, bool cut,
             const char* op) final;
  // MPI_Start's part of the kind; returns the start's code.
  virtual int start(MPI_Request* req) { return PMPI_Start(req); }

  bool persistent = false;
  bool active = false;                       // persistent: started and not yet completed
  MPI_Request companion = MPI_REQUEST_NULL;  // Isendrecv: the send half
  std::vector<uint8_t> keep;                 // Isendrecv_replace: the data sent
  // A persistent request not started (or completed since): MPI gives its
  // completion calls the empty status at once, and nothing is finished.
  bool inactive() const { return persistent && !active; }

 private:
  // finish()'s part of the kind, once MPI has completed the request.
  virtual int finish_kind(MPI_Status*, bool /*may_wait*/, bool /*cut*/, const char* /*op*/) {
    return MPI_SUCCESS;
  }
};

// The application's message, for a request that reads or writes it after
// its call returned: receives and persistent sends.
struct UserMessage {
  UserMessage() = default;
  UserMessage(const UserMessage&) = delete;
  UserMessage& operator=(const UserMessage&) = delete;
  ~UserMessage();
  // Keeps (buf, count, type) of the call on `comm`, whose part is `st`: a
  // derived datatype is duplicated, since the user may free theirs meanwhile.
  void set(P2PComm* st, MPI_Comm comm, void* buf, int count, MPI_Datatype type, int peer, int tag);

  void* buf = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  bool type_owned = false;  // a duplicate, freed with the request
  // A receive's source or a send's destination, and tag.
  int peer = MPI_ANY_SOURCE, tag = MPI_ANY_TAG;
  MPI_Comm app = MPI_COMM_NULL;
  // The communicator's part, kept with the request, since the application
  // may free the communicator meanwhile.
  std::shared_ptr<P2PComm> part;
};

// A coded send, whose marker lives until it completes; a persistent one
// (send_init of exactly kMarkerBytes, bsend_init) keeps the user's message
// for each start.
struct PendingSend : Pending {
  int start(MPI_Request* req) override;

  uint8_t marker[kMarkerBytes];
  bool buffered = false;  // persistent buffered send (send.cpp, bsend_init)
  UserMessage msg;        // persistent only
};

// A nonblocking or persistent receive, finished when it completes.
struct PendingRecv : Pending {
  bool served() const override { return from_stash; }
  int start(MPI_Request* req) override;
  // Finishes the message MPI has completed (finish_recv on this receive).
  int finish_message(MPI_Status* s, bool may_wait, bool cut, const char* op);

  UserMessage msg;
  bool finished = false;    // finished early (status and finish_rc saved)
  bool from_stash = false;  // persistent receive started from the stash: inactive in MPI
  int finish_rc = MPI_SUCCESS;
  MPI_Status status;
  // The body, once taken off the wire (kept while its channel frame waits
  // for its turn).
  std::vector<uint8_t> body;
  // Under MPI_THREAD_MULTIPLE the receive lands here (recv_staging).
  std::vector<uint8_t> staging;

 private:
  int finish_kind(MPI_Status* s, bool may_wait, bool cut, const char* op) override;
};

// Isendrecv's receive from a peer on this node, straight on the
// application's communicator: nothing to finish but a truncation to report.
struct PendingDirectRecv : Pending {
 private:
  int finish_kind(MPI_Status*, bool, bool cut, const char*) override {
    return cut ? MPI_ERR_TRUNCATE : MPI_SUCCESS;  // PMPI has reported it already
  }
};

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
// Drops some of the detached sends MPI is done with (a bounded number of
// tests per call).
void poll_detached();
// Gives up the detached sends still in flight (MPI_Finalize, bodies_close).
void abandon_detached();

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
// request; nullptr: an empty status) and `error`, which its MPI_Wait or
// MPI_Test returns (a message delivered truncated: MPI_ERR_TRUNCATE there,
// as MPI's own receive would give it).
int completed_request(const MPI_Status* status, MPI_Request* req, int error = MPI_SUCCESS);
// A stored frame as one contiguous copy in *out: its header, then
// (buf, count, type) packed.
void stored_copy(const void* buf, int count, MPI_Datatype type, MPI_Comm comm,
                 std::vector<uint8_t>* out);

// What the SMPI build (ADACOMP_FOR_SMPI, docs/scale.md) changes: SimGrid
// SMPI 3.32 aborts in MPI_Improbe, MPI_Mprobe, MPI_Mrecv and
// MPI_Get_elements_x, and its MPI_Request_get_status reports every request
// complete. So there: no inter-step channels (a channel frame waiting for its
// predecessor finishes the other receives by the same call), a nonblocking
// send is always kept in the request registry, and no matched probes (below).
#ifdef ADACOMP_FOR_SMPI
constexpr bool kSmpi = true;
#else
constexpr bool kSmpi = false;
#endif
// No matched probes: the library takes a marker off the wire with a probe,
// then a receive of the probed envelope. Safe where no other thread
// receives on that communicator meanwhile (SMPI's ranks are single-threaded).
constexpr bool kNoMatchedProbe = kSmpi;

// ---- lost references (lost_reports.cpp) ----------------------------------
// A receiver that loses a channel's reference (a truncated or failed frame)
// tells the sending process the channel id (0: unknown); the sender reads
// such reports before it codes a channel frame, and the channel's next frame
// goes without XOR, which restarts it at the receiver. Reports travel on
// the library's world communicator under kTagLost, a tag no body uses.
constexpr int kTagLost = 0;
void lost_reports_close();
void tell_sender(const P2PComm* st, int source, uint32_t id);
void read_lost_reports();

// ---- sending (send.cpp) ---------------------------------------------------

enum class SendMode { standard, sync, ready };
// Blocking (req == nullptr) or nonblocking send of one message.
int do_send(SendMode m, const void* buf, int count, MPI_Datatype type, int dest, int tag,
            MPI_Comm comm, MPI_Request* req, P2PComm* st);
int do_bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
             P2PComm* st);

// ---- messages received (frames.cpp) ---------------------------------------

// A receive smaller than a marker failed with MPI_ERR_TRUNCATE from
// `source`: it may have cut a marker whose body no receive will take, so
// that sender's channels must not wait for a frame that may be lost.
void lose_cut_marker(P2PComm* st, int source);

// Where a receive into (count, type) lands: the user's buffer, or under
// MPI_THREAD_MULTIPLE (threads_share_buffers) `staging`, resized to the
// receive's capacity in bytes: other threads may receive into the same
// buffer at once (legal, contents undefined), and a marker must not be
// overwritten before it is read. False: the capacity exceeds an int.
bool recv_staging(int count, MPI_Datatype type, std::vector<uint8_t>* staging);
// Finishes a receive MPI has completed (status *s) into the user's (buf,
// count, type), or into `staging` when not empty (recv_staging): a message
// of any size but kMarkerBytes is the application's and is left as it is
// (unpacked from staging); a marker is read from where it landed, its body
// taken from the world communicator into *body (kept there across
// kNotYourTurn) and decoded into the buffer, and the status says the
// original size. `cut`: MPI reported the message truncated. `op` names the
// call the user made, for its errors. `st` is the communicator's part the
// receive was posted with. kNotYourTurn (requests/registry.h) when the body
// is a channel frame whose predecessors are not applied yet and !may_wait.
int finish_recv(P2PComm* st, MPI_Comm app, const std::vector<uint8_t>& staging,
                std::vector<uint8_t>* body, void* buf, int count, MPI_Datatype type, MPI_Status* s,
                bool may_wait, bool cut, const char* op);
// Delivers a whole frame taken off the wire earlier (probe, matched probe).
int deliver(const Stashed& m, void* buf, int count, MPI_Datatype type, MPI_Status* status,
            const char* op);
// Takes the matched message `msg` (of `bytes`, from `source`) off the wire
// into *out: a marker with its body, channel frames applied now in their
// channel's order and kept decoded (the receive that takes it may come at
// any time); anything else as a stored frame. With kNoMatchedProbe, the
// message is received by its envelope (source, tag) instead.
int take_message(P2PComm* st, MPI_Comm app, MPI_Message* msg, const MPI_Status& probed,
                 Stashed* out, const char* op);

// ---- the stash (probe.cpp) -------------------------------------------------

bool take_stashed(P2PComm* st, int source, int tag, Stashed* out);

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
// What Sendrecv_replace and Isendrecv_replace send: a copy of (buf, count,
// type) taken before the receive overwrites it, described as (buf, count,
// type) again. Contiguous data keeps its datatype (and so its float codec);
// other data is packed, and then `count` bytes may exceed an int (sent
// through with_count, runtime/large_count.h).
struct SendCopy {
  std::vector<uint8_t> data;
  const void* buf = nullptr;
  MPI_Count count = 0;
  MPI_Datatype type = MPI_BYTE;
};
// MPI_SUCCESS, or an error already through comm's handler: the pack's, or
// MPI_ERR_COUNT for packed data over INT_MAX bytes under MPI-3, whose
// MPI_Pack counts bytes in an int.
int copy_to_send(void* buf, int count, MPI_Datatype type, MPI_Comm comm, SendCopy* out);

}  // namespace adacomp
