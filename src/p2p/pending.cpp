// Point-to-point's requests around the registry (requests/registry.h): the
// orphans and the receives driven in channel order; the buffered sends in
// flight, and small stages every part of point-to-point shares.
#include <cstring>
#include <thread>

#include "p2p/internal.h"

namespace adacomp {
namespace {

std::mutex g_orphans_mu;
std::vector<Pending*> g_orphans;  // freed with Request_free while active
// Bodies and buffered sends in flight. Their own lock, a leaf: a channel
// frame's body is sent under its communicator's lock.
std::mutex g_detached_mu;
std::vector<Detached> g_detached;

// A request that is already complete, carrying `status` (generalized request).
struct Done {
  MPI_Status status;
  int error = MPI_SUCCESS;
};
// Its return is what the completing call returns.
int done_query(void* extra, MPI_Status* s) {
  const Done* d = static_cast<Done*>(extra);
  *s = d->status;
  return d->error;
}
int done_free(void* extra) {
  delete static_cast<Done*>(extra);
  return MPI_SUCCESS;
}
int done_cancel(void*, int) { return MPI_SUCCESS; }

}  // namespace

void UserMessage::set(P2PComm* st, MPI_Comm comm, void* buf, int count, MPI_Datatype type,
                      int peer, int tag) {
  this->part = st->shared_from_this();
  this->app = comm;
  this->buf = buf;
  this->count = count;
  this->peer = peer;
  this->tag = tag;
  this->type = type;
  if (!is_named(type)) {
    PMPI_Type_dup(type, &this->type);
    type_owned = true;
  }
}

UserMessage::~UserMessage() {
  if (type_owned) PMPI_Type_free(&type);
}

void orphan(Pending* p) {
  std::lock_guard<std::mutex> g(g_orphans_mu);
  g_orphans.push_back(p);
}

void detach(Detached&& d) {
  std::lock_guard<std::mutex> g(g_detached_mu);
  g_detached.push_back(std::move(d));
}

void drop_finished(std::vector<Detached>* sends, bool all) {
  for (size_t i = 0; i < sends->size();) {
    int flag = 0;
    if (all)
      PMPI_Wait(&(*sends)[i].req, MPI_STATUS_IGNORE), flag = 1;
    else
      PMPI_Test(&(*sends)[i].req, &flag, MPI_STATUS_IGNORE);
    if (flag) {
      (*sends)[i] = std::move(sends->back());
      sends->pop_back();
    } else {
      ++i;
    }
  }
}

// A few at a time, round robin: a sender far ahead of its receivers keeps
// many bodies in flight, and testing them all at every send would make each
// send cost their number. Each send tests more than it adds.
void poll_detached() {
  constexpr int kTestsPerCall = 8;
  static size_t next = 0;
  std::lock_guard<std::mutex> g(g_detached_mu);
  for (int k = 0; k < kTestsPerCall && !g_detached.empty(); ++k) {
    if (next >= g_detached.size()) next = 0;
    int flag = 0;
    PMPI_Test(&g_detached[next].req, &flag, MPI_STATUS_IGNORE);
    if (flag) {
      g_detached[next] = std::move(g_detached.back());
      g_detached.pop_back();
    } else {
      ++next;
    }
  }
}

void abandon_detached() {
  std::lock_guard<std::mutex> g(g_detached_mu);
  drop_finished(&g_detached, false);
  // Not every MPI cancels sends (Open MPI 4.1 does not): freed instead, and
  // their memory left to the process's end, since MPI may still read it.
  static auto* abandoned = new std::vector<Detached>;
  for (Detached& d : g_detached) {
    PMPI_Request_free(&d.req);
    abandoned->push_back(std::move(d));
  }
  g_detached.clear();
}

void drive_receives(MPI_Comm app, const char* op) {
  bool progressed = false;
  for_each_request([&](MPI_Request handle, LibraryRequest* r) {
    auto* p = dynamic_cast<PendingRecv*>(r);
    if (!p || p->finished || p->msg.app != app || p->inactive()) return;
    int flag = 0;
    MPI_Status s;
    if (PMPI_Request_get_status(handle, &flag, &s) != MPI_SUCCESS || !flag) return;
    const int rc = p->finish_message(&s, false, false, op);
    if (rc == kNotYourTurn) return;
    p->status = s;
    p->finish_rc = rc;
    p->finished = true;
    progressed = true;
  });
  if (!progressed) std::this_thread::yield();
}

void requests_finalize() {
  std::lock_guard<std::mutex> g(g_orphans_mu);
  for (Pending* p : g_orphans) delete p;
  g_orphans.clear();
}

int report(MPI_Comm app, int rc) {
  if (rc != MPI_SUCCESS) PMPI_Comm_call_errhandler(app, rc);
  return rc;
}

void copy_status(MPI_Status* to, const MPI_Status& from) {
  const int error = to->MPI_ERROR;
  *to = from;
  to->MPI_ERROR = error;
}

void set_status(MPI_Status* s, int source, int tag, size_t raw) {
  s->MPI_SOURCE = source;
  s->MPI_TAG = tag;
  PMPI_Status_set_elements_x(s, MPI_BYTE, static_cast<MPI_Count>(raw));
  PMPI_Status_set_cancelled(s, 0);
}

int completed_request(const MPI_Status* status, MPI_Request* req, int error) {
  auto* d = new Done;
  d->error = error;
  if (status) {
    d->status = *status;
    d->status.MPI_ERROR = MPI_SUCCESS;  // a caller's local status may hold anything there
  } else {
    std::memset(&d->status, 0, sizeof d->status);
    set_status(&d->status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
  }
  int rc = PMPI_Grequest_start(done_query, done_free, done_cancel, d, req);
  if (rc != MPI_SUCCESS) {
    delete d;
    return rc;
  }
  return PMPI_Grequest_complete(*req);
}

void stored_copy(const void* buf, int count, MPI_Datatype type, MPI_Comm comm,
                 std::vector<uint8_t>* out) {
  const size_t bytes = data_size(count, type);
  out->resize(frame_capacity(bytes));
  uint8_t* payload = begin_stored_frame(bytes, ElemKind::bytes, out->data());
  int pos = 0;
  if (bytes) PMPI_Pack(buf, count, type, payload, static_cast<int>(bytes), &pos, comm);
}

MPI_Count status_bytes(MPI_Status* s) {
  if (kSmpi) {  // no MPI_Get_elements_x there; its frames stay below 2 GiB
    int n = 0;
    PMPI_Get_count(s, MPI_BYTE, &n);
    return n;
  }
  MPI_Count n = 0;
  PMPI_Get_elements_x(s, MPI_BYTE, &n);
  return n;
}

}  // namespace adacomp
