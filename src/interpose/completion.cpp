// The completion family over the point-to-point layer's requests, the
// nonblocking collectives' and MPI's own, and the polled blocking calls
// (interpose/completion.h). The engine's part is coll/schedule.h's
// collective_pass; the point-to-point layer's is its Test form (p2p/p2p.h).
#include "interpose/completion.h"

#include <thread>
#include <vector>

#include "coll/schedule.h"
#include "interpose/entry.h"
#include "p2p/p2p.h"

namespace adacomp {

using entry::or_pmpi;

namespace {

void pause() { std::this_thread::yield(); }

// A failed collective among an array's completions: its code in its status
// (MPI_ERR_IN_STATUS), the others' MPI_ERROR set; `slots` statuses were filled.
template <class SlotOf>
int with_errors(const std::vector<Finished>& fin, int rc, MPI_Status statuses[], int slots,
                SlotOf slot_of) {
  int first = MPI_SUCCESS;
  for (const Finished& f : fin)
    if (f.rc != MPI_SUCCESS && first == MPI_SUCCESS) first = f.rc;
  if (first == MPI_SUCCESS) return rc;
  if (statuses == MPI_STATUSES_IGNORE) return first;
  if (rc == MPI_SUCCESS)
    for (int k = 0; k < slots; ++k) statuses[k].MPI_ERROR = MPI_SUCCESS;
  for (const Finished& f : fin)
    if (f.rc != MPI_SUCCESS) statuses[slot_of(f.index)].MPI_ERROR = f.rc;
  return MPI_ERR_IN_STATUS;
}

// A single completion's outcome (Test, Testany).
int single(const std::vector<Finished>& fin, int rc, MPI_Status* status) {
  for (const Finished& f : fin) {
    if (f.rc == MPI_SUCCESS) continue;
    if (status != MPI_STATUS_IGNORE) status->MPI_ERROR = f.rc;
    return f.rc;
  }
  return rc;
}

// One pass of each Test form with the engine (coll/schedule.h collective_pass).
// The single-request forms raise their errors as the call `op`.
int test_pass(const char* op, MPI_Request* req, int* flag, MPI_Status* status) {
  int rc = MPI_SUCCESS;
  auto fin = collective_pass(
      1, req,
      [&] {
        return or_pmpi(test_as(op, req, flag, status),
                       [&] { return PMPI_Test(req, flag, status); });
      },
      [&](int) { return *flag != 0; }, &rc);
  return single(fin, rc, status);
}

// MPI_Wait on behalf of the call `op`: polls while the engine is involved,
// then, if still not done, waits in the point-to-point layer (or MPI) as
// usual.
int wait_pass(const char* op, MPI_Request* req, MPI_Status* status) {
  for (int flag = 0; collectives_involved(1, req); pause()) {
    const int rc = test_pass(op, req, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
  }
  return or_pmpi(wait_as(op, req, status), [&] { return PMPI_Wait(req, status); });
}

int testall_pass(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  int rc = MPI_SUCCESS;
  auto fin = collective_pass(
      n, reqs,
      [&] {
        return or_pmpi(p2p::testall(n, reqs, flag, statuses),
                       [&] { return PMPI_Testall(n, reqs, flag, statuses); });
      },
      [&](int) { return *flag != 0; }, &rc);
  return with_errors(fin, rc, statuses, *flag ? n : 0, [](int i) { return i; });
}

int testany_pass(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
  int rc = MPI_SUCCESS;
  auto fin = collective_pass(
      n, reqs,
      [&] {
        return or_pmpi(p2p::testany(n, reqs, index, flag, status),
                       [&] { return PMPI_Testany(n, reqs, index, flag, status); });
      },
      [&](int i) { return *flag && *index == i; }, &rc);
  return single(fin, rc, status);
}

int testsome_pass(int n, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  int rc = MPI_SUCCESS;
  auto fin = collective_pass(
      n, reqs,
      [&] {
        return or_pmpi(p2p::testsome(n, reqs, outcount, indices, statuses),
                       [&] { return PMPI_Testsome(n, reqs, outcount, indices, statuses); });
      },
      [&](int i) {
        for (int k = 0; k < *outcount; ++k)
          if (indices[k] == i) return true;
        return false;
      },
      &rc);
  const int slots = *outcount == MPI_UNDEFINED ? 0 : *outcount;
  return with_errors(fin, rc, statuses, slots, [&](int i) {
    int k = 0;
    while (k < slots - 1 && indices[k] != i) ++k;
    return k;
  });
}

}  // namespace

CallResult test(MPI_Request* req, int* flag, MPI_Status* status) {
  if (!collectives_involved(1, req)) return p2p::test(req, flag, status);
  return test_pass("Test", req, flag, status);
}

CallResult testall(int n, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  if (!collectives_involved(n, reqs)) return p2p::testall(n, reqs, flag, statuses);
  return testall_pass(n, reqs, flag, statuses);
}

CallResult testany(int n, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
  if (!collectives_involved(n, reqs)) return p2p::testany(n, reqs, index, flag, status);
  return testany_pass(n, reqs, index, flag, status);
}

CallResult testsome(int n, MPI_Request reqs[], int* outcount, int indices[],
                    MPI_Status statuses[]) {
  if (!collectives_involved(n, reqs)) return p2p::testsome(n, reqs, outcount, indices, statuses);
  return testsome_pass(n, reqs, outcount, indices, statuses);
}

// Each wait polls while the engine is involved, then, if still not done,
// waits in the point-to-point layer (or MPI) as usual.
CallResult wait(MPI_Request* req, MPI_Status* status) {
  if (!collectives_involved(1, req)) return p2p::wait(req, status);
  return wait_pass("Wait", req, status);
}

// With the engine involved, MPI_Waitall is MPI_Wait on each request in turn,
// which the standard makes equivalent (MPI 4.0 section 3.7.5), rather than a
// Testall loop: MPICH 4.0's MPI_Testall fails with MPI_ERR_IN_STATUS, every
// status a success, once a persistent collective of its own (MPI_Barrier_init)
// completes in it (MPICH's coll/p_order under ADACOMP_NONBLOCKING=on).
CallResult waitall(int n, MPI_Request reqs[], MPI_Status statuses[]) {
  if (!collectives_involved(n, reqs)) return p2p::waitall(n, reqs, statuses);
  std::vector<int> codes(static_cast<size_t>(n), MPI_SUCCESS);
  int first = MPI_SUCCESS;
  for (int i = 0; i < n; ++i) {
    MPI_Status* status = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
    codes[i] = or_pmpi(wait(&reqs[i], status), [&] { return PMPI_Wait(&reqs[i], status); });
    if (first == MPI_SUCCESS) first = codes[i];
  }
  if (first == MPI_SUCCESS || statuses == MPI_STATUSES_IGNORE) return first;
  for (int i = 0; i < n; ++i) statuses[i].MPI_ERROR = codes[i];
  return MPI_ERR_IN_STATUS;
}

CallResult waitany(int n, MPI_Request reqs[], int* index, MPI_Status* status) {
  for (int flag = 0; collectives_involved(n, reqs); pause()) {
    const int rc = testany_pass(n, reqs, index, &flag, status);
    if (rc != MPI_SUCCESS || flag) return rc;
  }
  return p2p::waitany(n, reqs, index, status);
}

CallResult waitsome(int n, MPI_Request reqs[], int* outcount, int indices[],
                    MPI_Status statuses[]) {
  while (collectives_involved(n, reqs)) {
    const int rc = testsome_pass(n, reqs, outcount, indices, statuses);
    if (rc != MPI_SUCCESS || *outcount != 0) return rc;
    pause();
  }
  return p2p::waitsome(n, reqs, outcount, indices, statuses);
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
  return wait_pass("Send", &r, MPI_STATUS_IGNORE);
}

int ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  MPI_Request r;
  const int rc = or_pmpi(issend(buf, count, type, dest, tag, comm, &r),
                         [&] { return PMPI_Issend(buf, count, type, dest, tag, comm, &r); });
  if (rc != MPI_SUCCESS) return rc;
  return wait_pass("Ssend", &r, MPI_STATUS_IGNORE);
}

int recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
         MPI_Status* status) {
  MPI_Request r;
  const int rc = or_pmpi(irecv(buf, count, type, source, tag, comm, &r),
                         [&] { return PMPI_Irecv(buf, count, type, source, tag, comm, &r); });
  if (rc != MPI_SUCCESS) return rc;
  return wait_pass("Recv", &r, status);
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
    wait_pass("Sendrecv", &r[0], MPI_STATUS_IGNORE);
    return rc;
  }
  // Both halves are posted: completing them one after the other cannot
  // deadlock (p2p sendrecv does the same), and each wait names Sendrecv.
  rc = wait_pass("Sendrecv", &r[0], status);
  const int rs = wait_pass("Sendrecv", &r[1], MPI_STATUS_IGNORE);
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
  return wait_pass("Mrecv", &r, status);
}

}  // namespace polled
}  // namespace adacomp
