// Receiving: blocking, nonblocking and persistent receives, dual receives
// (MPI_ANY_SOURCE on a communicator split by node), Sendrecv.
#include <climits>
#include <cstring>

#include "p2p/framing.h"
#include "p2p/internal.h"
#include "p2p/p2p.h"
#include "runtime/datatype.h"
#include "runtime/stats.h"

namespace adacomp {
namespace {

// Where a receive lands. Contiguous buffers: the header in `header`, the
// payload straight in the user's buffer, described as bytes (a coded
// payload need not be a whole number of elements, and MPICH drops partial
// elements). Non-contiguous datatypes, every type with kPackedFrames, and
// every receive under MPI_THREAD_MULTIPLE (threads_share_buffers): the whole
// frame into `staging`, then unpacked. `rc` is MPI_SUCCESS or why
// the datatype could not be made.
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
  if (!kPackedFrames && !threads_share_buffers() && (cap == 0 || ti.contiguous)) {
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

int do_recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
            MPI_Status* status, P2PComm* st) {
  stats_for(OpKind::recv).calls.fetch_add(1, std::memory_order_relaxed);
  Stashed m;
  if (take_stashed(st, source, tag, &m)) return deliver(m, buf, count, type, status, "Recv");
  uint8_t header[kFrameHeaderBytes];
  std::vector<uint8_t> staging;
  RecvLayout l = recv_layout(header, buf, count, type, false, &staging);
  if (l.rc != MPI_SUCCESS) return report(comm, l.rc);
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  int rc = PMPI_Recv(l.base, l.count, l.type, source, tag, st->comm, s);
  if (l.derived) PMPI_Type_free(&l.type);
  if (rc != MPI_SUCCESS && !truncation(rc)) return report(comm, rc);
  return finish_recv(st, comm, header, staging, buf, count, type, s, true, rc != MPI_SUCCESS,
                     "Recv");
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
bool twin_message(Pending* p, const MPI_Status& ts, Stashed* m, int* adopted, const char* op) {
  int cancelled = 0;
  PMPI_Test_cancelled(&ts, &cancelled);
  if (cancelled) return false;
  int got = 0;
  PMPI_Get_count(&ts, MPI_BYTE, &got);
  m->frame.assign(p->staging.begin(), p->staging.begin() + (got > 0 ? got : 0));
  m->source = ts.MPI_SOURCE;
  m->tag = ts.MPI_TAG;
  m->app = p->app;
  P2PComm* st = p2p_of(p->app);
  *adopted = st ? adopt_frame(st, p->app, m, op) : MPI_ERR_COMM;
  return true;
}

}  // namespace

int do_irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Request* req, bool persistent, P2PComm* st, const char* op) {
  const bool dual = st->dual(source);
  if (!persistent) {
    stats_for(OpKind::recv).calls.fetch_add(1, std::memory_order_relaxed);
    Stashed m;
    if (take_stashed(st, source, tag, &m)) {
      MPI_Status s{};
      int rc = deliver(m, buf, count, type, &s, op);
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
  p->peer = source;
  p->tag = tag;
  p->part = st->shared_from_this();
  if (is_named(type)) {
    p->type = type;
  } else {
    PMPI_Type_dup(type, &p->type);  // the user may free theirs while we wait
    p->type_owned = true;
  }
  int rc;
  if (dual) {
    // Posted as the application posted it; resolve_dual() takes a framed
    // message from the private communicator instead if one comes first.
    p->direct = p->dual = true;
    const size_t capacity = kFrameHeaderBytes + bytes_of(count, type);
    if (capacity > INT_MAX) {  // the twin's staging (README, Known limitations)
      delete_pending(p);
      return report(comm, MPI_ERR_COUNT);
    }
    p->staging.resize(capacity);
    const int cap = static_cast<int>(capacity);
    rc = persistent ? PMPI_Recv_init(p->staging.data(), cap, MPI_BYTE, source, tag, st->comm,
                                     &p->twin)
                    : PMPI_Irecv(p->staging.data(), cap, MPI_BYTE, source, tag, st->comm, &p->twin);
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
    rc = persistent ? PMPI_Recv_init(l.base, l.count, l.type, source, tag, st->comm, req)
                    : PMPI_Irecv(l.base, l.count, l.type, source, tag, st->comm, req);
    if (l.derived) p->layout = l.type;
  }
  if (rc != MPI_SUCCESS) {
    delete_pending(p);
    return report(comm, rc);
  }
  put_pending(*req, p);
  return MPI_SUCCESS;
}

// Cancels a dual receive's twin once the direct side has matched; a framed
// message it matched all the same goes to the stash.
void retire_twin(Pending* p, const char* op) {
  PMPI_Cancel(&p->twin);
  Stashed m;
  int adopted = MPI_SUCCESS;
  if (twin_message(p, settle_twin(p), &m, &adopted, op) && adopted == MPI_SUCCESS)
    stash_front(p->app, std::move(m));
}

// A dual receive is posted twice: directly (the handle the application
// holds) and framed on the private communicator (its twin), so that MPI
// orders it against other receives on both routes. Once the direct side has
// matched, the twin is retired. A framed message (the twin's, or one that a
// tie left in the stash) is taken by cancelling the direct side: if that
// works, the framed message is delivered into the user's buffer and the
// request is marked finished with its status; if the direct side matched
// meanwhile, it wins and the framed message waits at the front of the stash
// for the next receive. Only the request's owner calls this (taken from the
// table).
void resolve_dual(MPI_Request handle, Pending* p, const char* op) {
  if (p->finished || !p->twin_active) return;
  int twin_done = 0, direct_done = 0;
  MPI_Status ts, ds;
  PMPI_Request_get_status(p->twin, &twin_done, &ts);
  PMPI_Request_get_status(handle, &direct_done, &ds);
  if (direct_done) {
    retire_twin(p, op);
    return;
  }
  Stashed m;
  int adopted = MPI_SUCCESS;
  P2PComm* st = p2p_of(p->app);
  if (twin_done) twin_message(p, settle_twin(p), &m, &adopted, op);
  else if (!st || !take_stashed(st, MPI_ANY_SOURCE, p->tag, &m)) return;
  MPI_Request h = handle;
  PMPI_Cancel(&h);
  do PMPI_Request_get_status(handle, &direct_done, &ds);
  while (!direct_done);
  int cancelled = 0;
  PMPI_Test_cancelled(&ds, &cancelled);
  if (p->twin_active) retire_twin(p, op);
  if (cancelled) {
    p->finish_rc = adopted != MPI_SUCCESS ? adopted
                                          : deliver(m, p->buf, p->count, p->type, &p->status, op);
    p->finished = true;
  } else if (adopted == MPI_SUCCESS) {
    stash_front(p->app, std::move(m));
  }
}

CallResult recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                MPI_Status* status) {
  P2PComm* st = route(comm, count, type, source, Peer::source, tag);
  if (!st) return kDeclined;
  if (st->dual(source)) {
    MPI_Request r;
    int rc = do_irecv(buf, count, type, source, tag, comm, &r, false, st, "Recv");
    return rc != MPI_SUCCESS ? rc : or_pmpi(wait_as("Recv", &r, status), [&] {
      return PMPI_Wait(&r, status);
    });
  }
  return do_recv(buf, count, type, source, tag, comm, status, st);
}
CallResult irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                 MPI_Request* req) {
  P2PComm* st = route(comm, count, type, source, Peer::source, tag);
  if (!st) return kDeclined;
  return do_irecv(buf, count, type, source, tag, comm, req, false, st, "Irecv");
}
CallResult recv_init(void* buf, int count, MPI_Datatype type, int source, int tag,
                     MPI_Comm comm, MPI_Request* req) {
  P2PComm* st = route(comm, count, type, source, Peer::source, tag);
  if (!st) return kDeclined;
  return do_irecv(buf, count, type, source, tag, comm, req, true, st, "Recv_init");
}

int post_pair(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
              void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
              MPI_Comm comm, MPI_Request* send_req, MPI_Request* recv_req, const char* op) {
  P2PComm* rs = route(comm, recvcount, recvtype, source, Peer::source, recvtag);
  int rc = rs ? do_irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, recv_req, false,
                         rs, op)
              : PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, recv_req);
  if (rc != MPI_SUCCESS) {
    *recv_req = MPI_REQUEST_NULL;
    return rc;
  }
  P2PComm* ss = route(comm, sendcount, sendtype, dest, Peer::dest, sendtag);
  if (!ss)
    return send_req ? PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, send_req)
                    : PMPI_Send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
  return do_send(SendMode::standard, sendbuf, sendcount, sendtype, dest, sendtag, comm, send_req,
                 ss);
}

CallResult sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                    int recvtag, MPI_Comm comm, MPI_Status* status) {
  if (!route_pair(comm, sendcount, sendtype, dest, sendtag, recvcount, recvtype, source, recvtag))
    return kDeclined;
  MPI_Request r = MPI_REQUEST_NULL;
  int rc_send = post_pair(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                          recvtype, source, recvtag, comm, nullptr, &r, "Sendrecv");
  if (r == MPI_REQUEST_NULL) return rc_send;  // the receive failed
  int rc = or_pmpi(wait_as("Sendrecv", &r, status), [&] { return PMPI_Wait(&r, status); });
  return rc_send != MPI_SUCCESS ? rc_send : rc;
}

CallResult sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                            int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  if (!route_pair(comm, count, type, dest, sendtag, count, type, source, recvtag))
    return kDeclined;
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
  return or_pmpi(sendrecv(sbuf, scount, stype, dest, sendtag, buf, count, type, source, recvtag,
                          comm, status),
                 [&] {
                   return PMPI_Sendrecv(sbuf, scount, stype, dest, sendtag, buf, count, type,
                                        source, recvtag, comm, status);
                 });
}

}  // namespace adacomp
