// Completion of the library's point-to-point requests: the Wait and Test
// families, Start, Request_free and Request_get_status (namespace p2p; the
// intercepted calls are interpose/completion.cpp's). The library's requests
// are finished here (markers' bodies received and decoded); a call over
// none of them is declined.

#include "p2p/internal.h"
#include "p2p/p2p.h"
#include "runtime/stats.h"

namespace adacomp {
namespace {

// Finishes a completed request the library owns (already out of the table).
// `s` is a real status. A persistent request goes back into the table.
// kNotYourTurn (only when !may_wait): nothing done, try again later.
int complete(MPI_Request handle, Pending* p, MPI_Status* s, bool may_wait, bool cut,
             const char* op) {
  if (p->inactive()) {
    put_pending(handle, p);  // inactive: MPI has given the empty status
    return MPI_SUCCESS;
  }
  int rc = MPI_SUCCESS;
  if (p->is_recv) {
    if (p->finished) {
      copy_status(s, p->status);
      rc = p->finish_rc;
      p->finished = p->served = false;
    } else if (p->direct) {
      rc = cut ? MPI_ERR_TRUNCATE : MPI_SUCCESS;  // PMPI has reported it already
    } else {
      rc = finish_recv(p->part.get(), p->app, p->staging, &p->body, p->buf, p->count, p->type, s,
                       may_wait, cut, op);
      if (rc == kNotYourTurn) return rc;
    }
    p->body.clear();  // a persistent receive's next start
  }
  if (p->companion != MPI_REQUEST_NULL) {
    // Isendrecv completes when both halves have; the send half is ours too.
    int rs = or_pmpi_untimed(wait_as(op, &p->companion, MPI_STATUS_IGNORE),
                             [&] { return PMPI_Wait(&p->companion, MPI_STATUS_IGNORE); });
    if (rc == MPI_SUCCESS) rc = rs;
  }
  if (p->persistent) {
    p->active = false;
    put_pending(handle, p);
  } else {
    delete_pending(p);
  }
  return rc;
}

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

// Completes the requests marked done; the others stay in (or go back to)
// the table (internal.h release_pending). Channel frames
// among them are finished in channel order, whatever their order in the
// array: passes that finish what is ready, then waiting for the rest.
// `in_status`: a multiple completion (all, some), which reports a failure
// as MPI_ERR_IN_STATUS with each completed status's MPI_ERROR set; the
// others (any) leave MPI_ERROR alone and return the failure.
int finish_some(const std::vector<MPI_Request>& handles, std::vector<Pending*>& ps,
                const std::vector<char>& done, const std::vector<int>& status_index,
                MPI_Status* statuses, int rc, bool in_status, const char* op) {
  for (size_t i = 0; i < ps.size(); ++i)
    if (ps[i]) release_pending(handles[i], ps[i], done[i]);
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
      int r = complete(handles[i], ps[i], s, may_wait, cut, op);
      if (r == kNotYourTurn) {
        remaining = true;
        continue;
      }
      left[i] = 0;
      progressed = true;
      if (r == MPI_SUCCESS) continue;
      if (!in_status) {
        rc = r;
        continue;
      }
      if (rc == MPI_SUCCESS)  // MPI set no MPI_ERROR: the completed ones succeeded
        for (size_t j = 0; j < ps.size(); ++j)
          if (done[j] && statuses && status_index[j] >= 0)
            statuses[status_index[j]].MPI_ERROR = MPI_SUCCESS;
      s->MPI_ERROR = r;
      rc = MPI_ERR_IN_STATUS;
    }
    if (!remaining) return rc;
    if (!progressed) may_wait = true;
  }
}

// Waitall/Testall: every request completes at once or none does.
CallResult all_impl(bool wait_mode, int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  const char* op = wait_mode ? "Waitall" : "Testall";
  bool any = false;
  std::vector<Pending*> ps = claim_all(n, reqs, &any);
  if (!any) return kDeclined;
  std::vector<MPI_Request> handles(reqs, reqs + n);
  std::vector<MPI_Status> local(n);
  MPI_Status* ss = statuses == MPI_STATUSES_IGNORE ? local.data() : statuses;
  *flag = 1;
  int rc = wait_mode ? PMPI_Waitall(n, reqs, ss) : PMPI_Testall(n, reqs, flag, ss);
  std::vector<char> done(n, (rc == MPI_SUCCESS || rc == MPI_ERR_IN_STATUS) && *flag);
  // A failure may be reported before the others complete (Open MPI): those
  // are still in flight (MPI_ERR_PENDING) and stay the library's.
  if (rc == MPI_ERR_IN_STATUS)
    for (int i = 0; i < n; ++i) done[i] = done[i] && ss[i].MPI_ERROR != MPI_ERR_PENDING;
  std::vector<int> idx(n);
  for (int i = 0; i < n; ++i) idx[i] = i;
  return finish_some(handles, ps, done, idx, ss, rc, true, op);
}

// Waitany/Testany: one request (served ones first).
CallResult any_impl(bool wait_mode, int n, MPI_Request reqs[], int* index, int* flag,
                    MPI_Status* status) {
  const char* op = wait_mode ? "Waitany" : "Testany";
  bool any = false;
  std::vector<Pending*> ps = claim_all(n, reqs, &any);
  if (!any) return kDeclined;
  std::vector<MPI_Request> handles(reqs, reqs + n);
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  *flag = 1;
  int rc = MPI_SUCCESS;
  if (!take_served(ps, reqs, 1, index, s))
    rc = wait_mode ? PMPI_Waitany(n, reqs, index, s) : PMPI_Testany(n, reqs, index, flag, s);
  std::vector<char> done(n, 0);
  std::vector<int> idx(n, -1);
  if ((rc == MPI_SUCCESS || truncation(rc)) && *flag && *index != MPI_UNDEFINED)
    done[*index] = 1, idx[*index] = 0;
  return finish_some(handles, ps, done, idx, s, rc, false, op);
}

// Waitsome/Testsome.
CallResult some_impl(bool wait_mode, int n, MPI_Request reqs[], int* outcount, int indices[],
                     MPI_Status statuses[]) {
  const char* op = wait_mode ? "Waitsome" : "Testsome";
  bool any = false;
  std::vector<Pending*> ps = claim_all(n, reqs, &any);
  if (!any) return kDeclined;
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
  return finish_some(handles, ps, done, idx, ss, rc, true, op);
}

}  // namespace

CallResult wait_as(const char* op, MPI_Request* req, MPI_Status* status) {
  Pending* p = take_pending(*req);
  if (!p) return kDeclined;
  MPI_Request handle = *req;
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  int rc = PMPI_Wait(req, s);
  if (rc != MPI_SUCCESS && !truncation(rc)) {
    put_pending(handle, p);
    return rc;
  }
  return complete(handle, p, s, true, rc != MPI_SUCCESS, op);
}

CallResult test_as(const char* op, MPI_Request* req, int* flag, MPI_Status* status) {
  Pending* p = claim_pending(*req);
  if (!p) return kDeclined;
  MPI_Request handle = *req;
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  int rc = PMPI_Test(req, flag, s);
  const bool completed = (rc == MPI_SUCCESS || truncation(rc)) && *flag;
  release_pending(handle, p, completed);
  if (!completed) return rc;
  return complete(handle, p, s, true, rc != MPI_SUCCESS, op);
}

namespace p2p {

CallResult wait(MPI_Request* req, MPI_Status* status) { return wait_as("Wait", req, status); }
CallResult test(MPI_Request* req, int* flag, MPI_Status* status) {
  return test_as("Test", req, flag, status);
}
CallResult waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  int flag = 0;
  return all_impl(true, n, reqs, &flag, statuses);
}
CallResult testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  return all_impl(false, n, reqs, flag, statuses);
}
CallResult waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
  int flag = 0;
  return any_impl(true, n, reqs, index, &flag, status);
}
CallResult testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
  return any_impl(false, n, reqs, index, flag, status);
}
CallResult waitsome(int n, MPI_Request reqs[], int* outcount, int indices[],
                    MPI_Status statuses[]) {
  return some_impl(true, n, reqs, outcount, indices, statuses);
}
CallResult testsome(int n, MPI_Request reqs[], int* outcount, int indices[],
                    MPI_Status statuses[]) {
  return some_impl(false, n, reqs, outcount, indices, statuses);
}

// Persistent requests are counted per start. A persistent receive first
// looks in the stash, as every other receive does: a message a probe took
// off the wire is delivered at once and the request is not started in MPI.
CallResult start(MPI_Request* req) {
  Pending* p = take_pending(*req);
  if (!p) return kDeclined;
  if (!p->buffered)  // do_bsend counts its own
    stats_for(p->is_recv ? OpKind::recv : OpKind::send)
        .calls.fetch_add(1, std::memory_order_relaxed);
  int rc = MPI_SUCCESS;
  P2PComm* st = p->is_recv ? p2p_of(p->app) : nullptr;
  Stashed m;
  if (st && take_stashed(st, p->peer, p->tag, &m)) {
    p->finish_rc = deliver(m, p->buf, p->count, p->type, &p->status, "Start");
    p->finished = p->served = true;
  } else {
    if (!p->is_recv) rc = start_send(p);
    if (rc == MPI_SUCCESS) rc = PMPI_Start(req);
  }
  p->active = rc == MPI_SUCCESS;
  put_pending(*req, p);
  return rc;
}

CallResult request_free(MPI_Request* req) {
  Pending* p = take_pending(*req);
  if (!p) return kDeclined;
  MPI_Request handle = *req;
  int rc = PMPI_Request_free(req);
  if (rc != MPI_SUCCESS)
    put_pending(handle, p);
  else if (p->persistent)
    delete_pending(p);
  else
    orphan(p);  // still in flight: its marker must outlive it
  return rc;
}

// Out of the table while it is finished, so that the receives a channel
// frame drives cannot finish it a second time.
CallResult request_get_status(MPI_Request req, int* flag, MPI_Status* status) {
  Pending* p = take_pending(req);
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
  put_pending(req, p);
  return rc;
}

}  // namespace p2p
}  // namespace adacomp
