// Point-to-point's hooks of completion: finishing a request MPI completed
// (markers' bodies received and decoded), Start, Request_free and
// Request_get_status (namespace p2p; the intercepted calls are
// interpose/completion.cpp's, the Wait and Test families runtime/completion.cpp's).
// A call over none of the library's requests is declined.

#include "p2p/internal.h"
#include "p2p/p2p.h"
#include "runtime/stats.h"

namespace adacomp {

int Pending::finish(MPI_Request handle, MPI_Status* s, bool may_wait, bool cut, const char* op) {
  if (inactive()) {
    register_request(handle, this);  // inactive: MPI has given the empty status
    return MPI_SUCCESS;
  }
  int rc = MPI_SUCCESS;
  if (is_recv) {
    if (finished) {
      copy_status(s, status);
      rc = finish_rc;
      finished = from_stash = false;
    } else if (direct) {
      rc = cut ? MPI_ERR_TRUNCATE : MPI_SUCCESS;  // PMPI has reported it already
    } else {
      rc = finish_recv(part.get(), app, staging, &body, buf, count, type, s, may_wait, cut, op);
      if (rc == kNotYourTurn) return rc;
    }
    body.clear();  // a persistent receive's next start
  }
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

namespace p2p {

// Persistent requests are counted per start. A persistent receive first
// looks in the stash, as every other receive does: a message a probe took
// off the wire is delivered at once and the request is not started in MPI.
CallResult start(MPI_Request* req) {
  Pending* p = take_request_as<Pending>(*req);
  if (!p) return kDeclined;
  if (!p->buffered)  // do_bsend counts its own
    stats_for(p->is_recv ? OpKind::recv : OpKind::send)
        .calls.fetch_add(1, std::memory_order_relaxed);
  int rc = MPI_SUCCESS;
  P2PComm* st = p->is_recv ? p2p_of(p->app) : nullptr;
  Stashed m;
  if (st && take_stashed(st, p->peer, p->tag, &m)) {
    p->finish_rc = deliver(m, p->buf, p->count, p->type, &p->status, "Start");
    p->finished = p->from_stash = true;
  } else {
    if (!p->is_recv) rc = start_send(p);
    if (rc == MPI_SUCCESS) rc = PMPI_Start(req);
  }
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
  int rc = MPI_SUCCESS;
  if (!p->is_recv || (p->direct && !p->finished) || p->inactive()) {
    rc = PMPI_Request_get_status(req, flag, status);
  } else if (p->finished) {
    *flag = 1;
    if (status != MPI_STATUS_IGNORE) copy_status(status, p->status);
  } else {
    rc = PMPI_Request_get_status(req, flag, &p->status);
    if (rc == MPI_SUCCESS && *flag) {
      rc = finish_recv(p->part.get(), p->app, p->staging, &p->body, p->buf, p->count, p->type,
                       &p->status, true, false, "Request_get_status");
      p->finish_rc = rc;
      p->finished = true;
      if (status != MPI_STATUS_IGNORE) copy_status(status, p->status);
    }
  }
  register_request(req, p);
  return rc;
}

}  // namespace p2p
}  // namespace adacomp
