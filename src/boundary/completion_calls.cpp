// The intercepted completion calls over the point-to-point layer's requests,
// the nonblocking collectives' and MPI's own, and the polled blocking calls
// (boundary/completion_calls.h). The Wait and Test families are one loop over the
// registry of requests (requests/wait_test.h); Start, Request_free and
// Request_get_status ask each owner in turn, the engine (coll/schedule.h)
// and the point-to-point layer (p2p/p2p.h).
#include "boundary/completion_calls.h"

#include <thread>

#include "coll/schedule.h"
#include "boundary/entry.h"
#include "p2p/p2p.h"
#include "requests/wait_test.h"

namespace adacomp {

using entry::or_pmpi;

namespace {

void pause() { std::this_thread::yield(); }

// MPI_Wait on behalf of the call `op`, which its errors name.
int wait_as(const char* op, MPI_Request* req, MPI_Status* status) {
  return or_pmpi(completion::wait(op, req, status), [&] { return PMPI_Wait(req, status); });
}

}  // namespace

CallResult wait(MPI_Request* req, MPI_Status* status) {
  return completion::wait("Wait", req, status);
}
CallResult test(MPI_Request* req, int* flag, MPI_Status* status) {
  return completion::test("Test", req, flag, status);
}
CallResult waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  return completion::waitall(n, reqs, statuses);
}
CallResult testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  return completion::testall(n, reqs, flag, statuses);
}
CallResult waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
  return completion::waitany(n, reqs, index, status);
}
CallResult testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
  return completion::testany(n, reqs, index, flag, status);
}
CallResult waitsome(int n, MPI_Request reqs[], int* outcount, int indices[],
                    MPI_Status statuses[]) {
  return completion::waitsome(n, reqs, outcount, indices, statuses);
}
CallResult testsome(int n, MPI_Request reqs[], int* outcount, int indices[],
                    MPI_Status statuses[]) {
  return completion::testsome(n, reqs, outcount, indices, statuses);
}

CallResult start(MPI_Request* req) {
  if (CallResult r = collective_start(req)) return r;
  return p2p::start(req);
}

CallResult startall(int n, MPI_Request reqs[]) {
  int rc = MPI_SUCCESS;
  for (int i = 0; i < n; ++i) {
    const int r = or_pmpi(start(&reqs[i]), [&] { return PMPI_Start(&reqs[i]); });
    if (rc == MPI_SUCCESS) rc = r;
  }
  return rc;
}

CallResult request_free(MPI_Request* req) {
  if (CallResult r = collective_request_free(req)) return r;
  return p2p::request_free(req);
}

// A collective's request is a generalized request (or a persistent
// receive) that MPI reports on once the engine has completed it.
CallResult request_get_status(MPI_Request req, int* flag, MPI_Status* status) {
  progress_collectives();
  return p2p::request_get_status(req, flag, status);
}

// ---- the polled blocking calls ----------------------------------------------

namespace polled {

int send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  MPI_Request r;
  const int rc = or_pmpi(isend(buf, count, type, dest, tag, comm, &r),
                         [&] { return PMPI_Isend(buf, count, type, dest, tag, comm, &r); });
  if (rc != MPI_SUCCESS) return rc;
  return wait_as("Send", &r, MPI_STATUS_IGNORE);
}

int ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  MPI_Request r;
  const int rc = or_pmpi(issend(buf, count, type, dest, tag, comm, &r),
                         [&] { return PMPI_Issend(buf, count, type, dest, tag, comm, &r); });
  if (rc != MPI_SUCCESS) return rc;
  return wait_as("Ssend", &r, MPI_STATUS_IGNORE);
}

int recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
         MPI_Status* status) {
  MPI_Request r;
  const int rc = or_pmpi(irecv(buf, count, type, source, tag, comm, &r),
                         [&] { return PMPI_Irecv(buf, count, type, source, tag, comm, &r); });
  if (rc != MPI_SUCCESS) return rc;
  return wait_as("Recv", &r, status);
}

int sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
             MPI_Comm comm, MPI_Status* status) {
  MPI_Request r[2];
  int rc = or_pmpi(irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &r[0]), [&] {
    return PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &r[0]);
  });
  if (rc != MPI_SUCCESS) return rc;
  rc = or_pmpi(isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &r[1]), [&] {
    return PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &r[1]);
  });
  if (rc != MPI_SUCCESS) {
    PMPI_Cancel(&r[0]);
    wait_as("Sendrecv", &r[0], MPI_STATUS_IGNORE);
    return rc;
  }
  // Both halves are posted: completing them one after the other cannot
  // deadlock (p2p sendrecv does the same), and each wait names Sendrecv.
  rc = wait_as("Sendrecv", &r[0], status);
  const int rs = wait_as("Sendrecv", &r[1], MPI_STATUS_IGNORE);
  return rc != MPI_SUCCESS ? rc : rs;
}

int probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  for (int flag = 0; collectives_outstanding(); pause()) {
    progress_collectives();
    const int rc = or_pmpi(iprobe(source, tag, comm, &flag, status),
                           [&] { return PMPI_Iprobe(source, tag, comm, &flag, status); });
    if (rc != MPI_SUCCESS || flag) return rc;
  }
  return or_pmpi(adacomp::probe(source, tag, comm, status),
                 [&] { return PMPI_Probe(source, tag, comm, status); });
}

int mprobe(int source, int tag, MPI_Comm comm, MPI_Message* msg, MPI_Status* status) {
  for (int flag = 0; collectives_outstanding(); pause()) {
    progress_collectives();
    const int rc = or_pmpi(improbe(source, tag, comm, &flag, msg, status),
                           [&] { return PMPI_Improbe(source, tag, comm, &flag, msg, status); });
    if (rc != MPI_SUCCESS || flag) return rc;
  }
  return or_pmpi(adacomp::mprobe(source, tag, comm, msg, status),
                 [&] { return PMPI_Mprobe(source, tag, comm, msg, status); });
}

int mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* msg, MPI_Status* status) {
  MPI_Request r;
  const int rc = or_pmpi(imrecv(buf, count, type, msg, &r),
                         [&] { return PMPI_Imrecv(buf, count, type, msg, &r); });
  if (rc != MPI_SUCCESS) return rc;
  return wait_as("Mrecv", &r, status);
}

}  // namespace polled
}  // namespace adacomp
