// Point-to-point's hooks of completion: finishing a request MPI completed
// (markers' bodies received and decoded), Start, Request_free and
// Request_get_status (namespace p2p; the intercepted calls are
// boundary/completion_calls.cpp's, the Wait and Test families
// requests/wait_test.cpp's). A call over none of the library's requests is
// declined.

#include "report/stats.h"
#include "p2p/internal.h"
#include "p2p/p2p.h"

namespace adacomp {

int Pending::finish(MPI_Request handle, MPI_Status* s, bool may_wait, bool cut, const char* op) {
  if (inactive()) {
    register_request(handle, this);  // inactive: MPI has given the empty status
    return MPI_SUCCESS;
  }
  int rc = finish_kind(s, may_wait, cut, op);
  if (rc == kNotYourTurn) return rc;
  if (companion != MPI_REQUEST_NULL) {
    // Isendrecv completes when both halves have; the send half is ours too.
    int rs = or_pmpi_untimed(completion::wait(op, &companion, MPI_STATUS_IGNORE),
                             [&] { return PMPI_Wait(&companion, MPI_STATUS_IGNORE); });
    if (rc == MPI_SUCCESS) rc = rs;
  }
  if (persistent) {
    active = false;
    register_request(handle, this);
  } else {
    delete this;
  }
  return rc;
}

int PendingRecv::finish_message(MPI_Status* s, bool may_wait, bool cut, const char* op) {
  return finish_recv(msg.part.get(), msg.app, staging, &body, msg.buf, msg.count, msg.type, s,
                     may_wait, cut, op);
}

int PendingRecv::finish_kind(MPI_Status* s, bool may_wait, bool cut, const char* op) {
  int rc = MPI_SUCCESS;
  if (finished) {
    copy_status(s, status);
    rc = finish_rc;
    finished = from_stash = false;
  } else {
    rc = finish_message(s, may_wait, cut, op);
    if (rc == kNotYourTurn) return rc;
  }
  body.clear();  // a persistent receive's next start
  return rc;
}

// Persistent requests are counted per start. A persistent receive first
// looks in the stash, as every other receive does: a message a probe took
// off the wire is delivered at once and the request is not started in MPI.
int PendingRecv::start(MPI_Request* req) {
  stats_for(OpKind::recv).calls.fetch_add(1, std::memory_order_relaxed);
  P2PComm* st = p2p_of(msg.app);
  Stashed m;
  if (!st || !take_stashed(st, msg.peer, msg.tag, &m)) return PMPI_Start(req);
  finish_rc = deliver(m, msg.buf, msg.count, msg.type, &status, "Start");
  finished = from_stash = true;
  return MPI_SUCCESS;
}

namespace p2p {

CallResult start(MPI_Request* req) {
  Pending* p = take_request_as<Pending>(*req);
  if (!p) return kDeclined;
  const int rc = p->start(req);
  p->active = rc == MPI_SUCCESS;
  register_request(*req, p);
  return rc;
}

CallResult request_free(MPI_Request* req) {
  Pending* p = take_request_as<Pending>(*req);
  if (!p) return kDeclined;
  MPI_Request handle = *req;
  int rc = PMPI_Request_free(req);
  if (rc != MPI_SUCCESS)
    register_request(handle, p);
  else if (p->persistent)
    delete p;
  else
    orphan(p);  // still in flight: its marker must outlive it
  return rc;
}

// Out of the registry while it is finished, so that the receives a channel
// frame drives cannot finish it a second time.
CallResult request_get_status(MPI_Request req, int* flag, MPI_Status* status) {
  Pending* p = take_request_as<Pending>(req);
  if (!p) return kDeclined;
  auto* r = dynamic_cast<PendingRecv*>(p);
  int rc = MPI_SUCCESS;
  if (!r || r->inactive()) {
    rc = PMPI_Request_get_status(req, flag, status);
  } else if (r->finished) {
    *flag = 1;
    if (status != MPI_STATUS_IGNORE) copy_status(status, r->status);
  } else {
    rc = PMPI_Request_get_status(req, flag, &r->status);
    if (rc == MPI_SUCCESS && *flag) {
      rc = r->finish_message(&r->status, true, false, "Request_get_status");
      r->finish_rc = rc;
      r->finished = true;
      if (status != MPI_STATUS_IGNORE) copy_status(status, r->status);
    }
  }
  register_request(req, p);
  return rc;
}

}  // namespace p2p
}  // namespace adacomp
