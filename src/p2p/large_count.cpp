// MPI-4: the large-count (_c) forms, overloads over MPI_Count, and
// Isendrecv. A large-count form runs its int form: counts that fit an int
// as they are, larger ones as one element of a contiguous datatype. A
// declined call is declined whole, so its entry point calls the PMPI _c form
// with the user's own arguments.
#include <climits>
#include <cstring>

#include "p2p/internal.h"
#include "p2p/p2p.h"

#if MPI_VERSION >= 4
namespace adacomp {
namespace {

template <typename F>
CallResult with_count(MPI_Count count, MPI_Datatype type, F f) {
  if (count <= INT_MAX) return f(static_cast<int>(count), type);
  MPI_Datatype big;
  PMPI_Type_contiguous_c(count, type, &big);
  PMPI_Type_commit(&big);
  CallResult r = f(1, big);
  PMPI_Type_free(&big);
  return r;
}

}  // namespace

#define ADACOMP_SEND_C(name)                                                                    \
  CallResult name(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag,       \
                  MPI_Comm comm) {                                                              \
    return with_count(count, type,                                                              \
                      [&](int n, MPI_Datatype t) { return name(buf, n, t, dest, tag, comm); }); \
  }
#define ADACOMP_ISEND_C(name)                                                             \
  CallResult name(const void* buf, MPI_Count count, MPI_Datatype type, int dest, int tag, \
                  MPI_Comm comm, MPI_Request* req) {                                      \
    return with_count(count, type, [&](int n, MPI_Datatype t) {                           \
      return name(buf, n, t, dest, tag, comm, req);                                       \
    });                                                                                   \
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

CallResult recv(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                MPI_Status* status) {
  return with_count(count, type, [&](int n, MPI_Datatype t) {
    return recv(buf, n, t, source, tag, comm, status);
  });
}
CallResult irecv(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                 MPI_Request* req) {
  return with_count(
      count, type, [&](int n, MPI_Datatype t) { return irecv(buf, n, t, source, tag, comm, req); });
}
CallResult recv_init(void* buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                     MPI_Comm comm, MPI_Request* req) {
  return with_count(count, type, [&](int n, MPI_Datatype t) {
    return recv_init(buf, n, t, source, tag, comm, req);
  });
}
CallResult mrecv(void* buf, MPI_Count count, MPI_Datatype type, MPI_Message* msg,
                 MPI_Status* status) {
  return with_count(count, type,
                    [&](int n, MPI_Datatype t) { return mrecv(buf, n, t, msg, status); });
}
CallResult imrecv(void* buf, MPI_Count count, MPI_Datatype type, MPI_Message* msg,
                  MPI_Request* req) {
  return with_count(count, type,
                    [&](int n, MPI_Datatype t) { return imrecv(buf, n, t, msg, req); });
}
CallResult sendrecv(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return with_count(sendcount, sendtype, [&](int sn, MPI_Datatype st) {
    return with_count(recvcount, recvtype, [&](int rn, MPI_Datatype rt) {
      return sendrecv(sendbuf, sn, st, dest, sendtag, recvbuf, rn, rt, source, recvtag, comm,
                      status);
    });
  });
}
CallResult sendrecv_replace(void* buf, MPI_Count count, MPI_Datatype type, int dest, int sendtag,
                            int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return with_count(count, type, [&](int n, MPI_Datatype t) {
    return sendrecv_replace(buf, n, t, dest, sendtag, source, recvtag, comm, status);
  });
}

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

CallResult isendrecv(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request* req) {
  return with_count(sendcount, sendtype, [&](int sn, MPI_Datatype st) {
    return with_count(recvcount, recvtype, [&](int rn, MPI_Datatype rt) {
      return isendrecv(sendbuf, sn, st, dest, sendtag, recvbuf, rn, rt, source, recvtag, comm, req);
    });
  });
}

CallResult isendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                             int source, int recvtag, MPI_Comm comm, MPI_Request* req) {
  if (!route_pair(comm, count, type, dest, sendtag, count, type, source, recvtag)) return kDeclined;
  // The data sent is packed first and kept with the request.
  const size_t bytes = data_size(count, type);
  std::vector<uint8_t> copy(bytes);
  int pos = 0;
  if (bytes) PMPI_Pack(buf, count, type, copy.data(), static_cast<int>(bytes), &pos, comm);
  const int n = static_cast<int>(bytes);
  int rc = or_pmpi_untimed(isendrecv(copy.data(), n, MPI_BYTE, dest, sendtag, buf, count, type,
                                     source, recvtag, comm, req),
                           [&] {
                             return PMPI_Isendrecv(copy.data(), n, MPI_BYTE, dest, sendtag, buf,
                                                   count, type, source, recvtag, comm, req);
                           });
  if (rc != MPI_SUCCESS) return rc;
  Pending* p = find_request_as<Pending>(*req);
  if (p) p->keep = std::move(copy);  // vector moves keep the data's address
  return MPI_SUCCESS;
}

CallResult isendrecv_replace(void* buf, MPI_Count count, MPI_Datatype type, int dest, int sendtag,
                             int source, int recvtag, MPI_Comm comm, MPI_Request* req) {
  return with_count(count, type, [&](int n, MPI_Datatype t) {
    return isendrecv_replace(buf, n, t, dest, sendtag, source, recvtag, comm, req);
  });
}

}  // namespace adacomp
#endif  // MPI_VERSION >= 4
