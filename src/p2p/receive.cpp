// Receiving: blocking, nonblocking and persistent receives, posted as the
// application posted them (one receive, MPI's own matching); a marker among
// what they receive is finished at completion (frames.cpp). Sendrecv.
#include <climits>
#include <cstring>

#include "report/stats.h"
#include "p2p/internal.h"
#include "p2p/p2p.h"
#include "runtime/datatype.h"
#include "runtime/large_count.h"

namespace adacomp {

int do_irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Request* req, bool persistent, P2PComm* st, const char* op) {
  if (!persistent) {
    stats_for(OpKind::recv).calls.fetch_add(1, std::memory_order_relaxed);
    Stashed m;
    if (take_stashed(st, source, tag, &m)) {
      MPI_Status s{};
      const int rc = deliver(m, buf, count, type, &s, op);
      if (rc != MPI_SUCCESS && !truncation(rc)) return rc;
      return report(comm, completed_request(&s, req, rc));
    }
  }
  std::vector<uint8_t> staging;
  if (!recv_staging(count, type, &staging)) return report(comm, MPI_ERR_COUNT);
  void* at = staging.empty() ? buf : staging.data();
  const int n = staging.empty() ? count : static_cast<int>(staging.size());
  const MPI_Datatype as = staging.empty() ? type : MPI_BYTE;
  int rc = persistent ? PMPI_Recv_init(at, n, as, source, tag, comm, req)
                      : PMPI_Irecv(at, n, as, source, tag, comm, req);
  if (rc != MPI_SUCCESS) return rc;
  auto* p = new PendingRecv;
  p->staging = std::move(staging);  // a vector's move keeps its data's address
  p->persistent = persistent;
  p->msg.set(st, comm, buf, count, type, source, tag);
  register_request(*req, p);
  return MPI_SUCCESS;
}

CallResult recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                MPI_Status* status) {
  P2PComm* part = p2p_of(comm);
  if (part && small_receive(part, count, type, source)) {
    MPI_Status local;
    MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
    const int rc = PMPI_Recv(buf, count, type, source, tag, comm, s);
    if (truncation(rc)) lose_cut_marker(part, s->MPI_SOURCE);
    return rc;
  }
  P2PComm* st = route(comm, count, type, source, Peer::source, tag);
  if (!st) return kDeclined;
  stats_for(OpKind::recv).calls.fetch_add(1, std::memory_order_relaxed);
  Stashed m;
  if (take_stashed(st, source, tag, &m)) return deliver(m, buf, count, type, status, "Recv");
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  std::vector<uint8_t> staging, body;
  if (!recv_staging(count, type, &staging)) return report(comm, MPI_ERR_COUNT);
  int rc = staging.empty() ? PMPI_Recv(buf, count, type, source, tag, comm, s)
                           : PMPI_Recv(staging.data(), static_cast<int>(staging.size()), MPI_BYTE,
                                       source, tag, comm, s);
  if (rc != MPI_SUCCESS && !truncation(rc)) return rc;
  const int r =
      finish_recv(st, comm, staging, &body, buf, count, type, s, true, rc != MPI_SUCCESS, "Recv");
  return rc != MPI_SUCCESS ? rc : r;
}
CallResult irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                 MPI_Request* req) {
  P2PComm* st = route_recv(comm, count, type, source, tag);
  if (!st) return kDeclined;
  return do_irecv(buf, count, type, source, tag, comm, req, false, st, "Irecv");
}
CallResult recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                     MPI_Request* req) {
  // Not route_recv: a marker a probe stashes later must still reach a
  // small persistent receive started after it, through MPI_Start.
  P2PComm* st = route(comm, count, type, source, Peer::source, tag);
  if (!st) return kDeclined;
  return do_irecv(buf, count, type, source, tag, comm, req, true, st, "Recv_init");
}

int post_pair(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
              void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
              MPI_Comm comm, MPI_Request* send_req, MPI_Request* recv_req, const char* op) {
  // Isendrecv's send half rides on its receive's request: that receive
  // stays the library's whatever its size.
  P2PComm* rs = send_req ? route(comm, recvcount, recvtype, source, Peer::source, recvtag)
                         : route_recv(comm, recvcount, recvtype, source, recvtag);
  int rc =
      rs ? do_irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, recv_req, false, rs, op)
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
  int rc_send = post_pair(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                          source, recvtag, comm, nullptr, &r, "Sendrecv");
  if (r == MPI_REQUEST_NULL) return rc_send;  // the receive failed
  int rc = or_pmpi_untimed(completion::wait("Sendrecv", &r, status),
                           [&] { return PMPI_Wait(&r, status); });
  return rc_send != MPI_SUCCESS ? rc_send : rc;
}

int copy_to_send(void* buf, int count, MPI_Datatype type, MPI_Comm comm, SendCopy* out) {
  const TypeInfo ti = type_info(type);
  const size_t bytes = data_size(count, type);
  out->data.resize(bytes);
  if (ti.contiguous) {
    if (bytes) std::memcpy(out->data.data(), static_cast<uint8_t*>(buf) + ti.true_lb, bytes);
    out->buf = out->data.data() - ti.true_lb;
    out->count = count;
    out->type = type;
    return MPI_SUCCESS;
  }
  out->buf = out->data.data();
  out->count = static_cast<MPI_Count>(bytes);
  out->type = MPI_BYTE;
  if (!bytes) return MPI_SUCCESS;
#if MPI_VERSION >= 4
  MPI_Count pos = 0;
  return PMPI_Pack_c(buf, count, type, out->data.data(), out->count, &pos, comm);
#else
  if (bytes > static_cast<size_t>(INT_MAX)) return report(comm, MPI_ERR_COUNT);
  int pos = 0;
  return PMPI_Pack(buf, count, type, out->data.data(), static_cast<int>(bytes), &pos, comm);
#endif
}

CallResult sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                            int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  if (!route_pair(comm, count, type, dest, sendtag, count, type, source, recvtag)) return kDeclined;
  // Not declined for a copy too large to pack: the receive must stay the
  // library's whatever its size, or a marker would land as data.
  SendCopy c;
  const int rc = copy_to_send(buf, count, type, comm, &c);
  if (rc != MPI_SUCCESS) return rc;
  auto both = [&](int n, MPI_Datatype t) {
    return or_pmpi_untimed(
        sendrecv(c.buf, n, t, dest, sendtag, buf, count, type, source, recvtag, comm, status), [&] {
          return PMPI_Sendrecv(c.buf, n, t, dest, sendtag, buf, count, type, source, recvtag, comm,
                               status);
        });
  };
#if MPI_VERSION >= 4
  return with_count(c.count, c.type, both);
#else
  return both(static_cast<int>(c.count), c.type);  // copy_to_send kept it within an int
#endif
}

}  // namespace adacomp
