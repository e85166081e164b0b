// MPI-4 Isendrecv and Isendrecv_replace.
#include "p2p/internal.h"
#include "p2p/p2p.h"
#include "runtime/large_count.h"

#if MPI_VERSION >= 4
namespace adacomp {

// Isendrecv: the receive half is the returned request; the send half rides
// along in its request (Pending::companion) and is completed with it.
CallResult isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                     int recvtag, MPI_Comm comm, MPI_Request* req) {
  const P2PComm* st =
      route_pair(comm, sendcount, sendtype, dest, sendtag, recvcount, recvtype, source, recvtag);
  if (!st) return kDeclined;
  MPI_Request s = MPI_REQUEST_NULL;
  int rc = post_pair(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                     source, recvtag, comm, &s, req, "Isendrecv");
  if (rc != MPI_SUCCESS) return rc;
  Pending* p = find_request_as<Pending>(*req);
  if (!p && st->direct(source)) {
    // A receive straight on the application's communicator, still open.
    p = new PendingDirectRecv;
    p->companion = s;
    register_request(*req, p);
    return MPI_SUCCESS;
  }
  if (!p) {
    // Already complete (probed message, MPI_PROC_NULL): a fresh request
    // carries the send half.
    MPI_Status done;
    rc = or_pmpi_untimed(completion::wait("Isendrecv", req, &done),
                         [&] { return PMPI_Wait(req, &done); });
    if (rc != MPI_SUCCESS) return rc;
    p = new Pending;
    p->companion = s;
    if (completed_request(&done, req) != MPI_SUCCESS) return report(comm, MPI_ERR_INTERN);
    register_request(*req, p);
    return MPI_SUCCESS;
  }
  p->companion = s;
  return MPI_SUCCESS;
}

CallResult isendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                             int source, int recvtag, MPI_Comm comm, MPI_Request* req) {
  if (!route_pair(comm, count, type, dest, sendtag, count, type, source, recvtag)) return kDeclined;
  // The data sent is copied first and kept with the request. Not declined
  // for a copy over INT_MAX bytes: the receive must stay the library's.
  // with_count frees the copy's wrapping datatype when Isendrecv returns:
  // the send half is posted by then, and the library keeps no datatype of
  // a send that is not persistent.
  SendCopy c;
  int rc = copy_to_send(buf, count, type, comm, &c);
  if (rc != MPI_SUCCESS) return rc;
  rc = with_count(c.count, c.type, [&](int n, MPI_Datatype t) {
    return or_pmpi_untimed(
        isendrecv(c.buf, n, t, dest, sendtag, buf, count, type, source, recvtag, comm, req), [&] {
          return PMPI_Isendrecv(c.buf, n, t, dest, sendtag, buf, count, type, source, recvtag,
                                comm, req);
        });
  });
  if (rc != MPI_SUCCESS) return rc;
  Pending* p = find_request_as<Pending>(*req);
  if (p) p->keep = std::move(c.data);  // vector moves keep the data's address
  return MPI_SUCCESS;
}

}  // namespace adacomp
#endif  // MPI_VERSION >= 4
