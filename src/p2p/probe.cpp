// Probes and matched probes: MPI's own on the application's communicator.
// A probed message of kMarkerBytes is a marker: it is taken off the wire
// with its body (matched probe + receive) into the communicator's stash,
// which every receive checks first, so the status carries the original
// count. A matched probe of a marker hands out the library's own message
// handle, which only its Mrecv and Imrecv take; any other is MPI's.
#include <memory>
#include <type_traits>
#include <unordered_map>

#include "report/stats.h"
#include "p2p/internal.h"
#include "p2p/p2p.h"

namespace adacomp {
namespace {

bool matches(const Stashed& m, int source, int tag) {
  return (source == MPI_ANY_SOURCE || source == m.source) && (tag == MPI_ANY_TAG || tag == m.tag);
}

size_t raw_size_of(const Stashed& m) { return frame_raw_bytes(m.frame.data(), m.frame.size()); }

// Takes the message `peek` describes off the wire (a marker: with its body).
int fetch(P2PComm* st, MPI_Comm app, const MPI_Status& peek, Stashed* out, const char* op) {
  MPI_Message msg = MPI_MESSAGE_NULL;
  MPI_Status s = peek;
  // The next message of that envelope: the one probed, unless another
  // thread received it meanwhile.
  if (!kNoMatchedProbe) {
    int rc = PMPI_Mprobe(peek.MPI_SOURCE, peek.MPI_TAG, app, &msg, &s);
    if (rc != MPI_SUCCESS) return rc;
  }
  return take_message(st, app, &msg, s, out, op);
}

// Matched-probe handles the library hands out: a message it has already
// taken off the wire. Never passed to PMPI. Each also has a Fortran handle,
// a number in 0x0A000000..0x0AFFFFFF: MPI never hands those out (Open MPI's
// Fortran handles are small table indices, MPICH's have the handle-kind bits
// 30-31 set), and MPI's Fortran MPI_MESSAGE_NULL / NO_PROC (0 and 1, MPICH
// 0x2c000000 and 0x6c000000) lie outside it.
struct LibMessage {
  Stashed* m;
  MPI_Fint f;
};
std::mutex g_msg_mu;
std::unordered_map<MPI_Message, LibMessage> g_msgs;
std::unordered_map<MPI_Fint, MPI_Message> g_fmsgs;  // Fortran handle -> C handle
uint32_t g_msg_serial = 0;

// Open MPI's C handles are pointers (the message's own address serves),
// MPICH's are ints, like its Fortran ones (the Fortran number serves, so
// MPICH's own f2c, an identity, agrees with ours).
template <typename H>
H c_handle(Stashed* m, MPI_Fint f) {
  if constexpr (std::is_pointer_v<H>) {
    return reinterpret_cast<H>(m);
  } else {
    return static_cast<H>(f);
  }
}

MPI_Message register_message(Stashed* m) {
  std::lock_guard<std::mutex> g(g_msg_mu);
  MPI_Fint f;
  do {
    f = static_cast<MPI_Fint>(0x0A000000 | (++g_msg_serial & 0xFFFFFF));
  } while (g_fmsgs.count(f));
  MPI_Message h = c_handle<MPI_Message>(m, f);
  g_msgs[h] = {m, f};
  g_fmsgs[f] = h;
  return h;
}

Stashed* take_message(MPI_Message h) {
  std::lock_guard<std::mutex> g(g_msg_mu);
  if (g_msgs.empty()) return nullptr;
  auto it = g_msgs.find(h);
  if (it == g_msgs.end()) return nullptr;
  Stashed* m = it->second.m;
  g_fmsgs.erase(it->second.f);
  g_msgs.erase(it);
  return m;
}

int iprobe_impl(int source, int tag, MPI_Comm comm, bool block, int* flag, MPI_Status* status,
                P2PComm* st, const char* op) {
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  {
    std::lock_guard<std::mutex> g(st->mu);
    for (const Stashed& m : st->stash) {
      if (matches(m, source, tag)) {
        *flag = 1;
        set_status(s, m.source, m.tag, raw_size_of(m));
        return MPI_SUCCESS;
      }
    }
  }
  *flag = 1;
  MPI_Status probed;  // copied without MPI_ERROR, which single calls leave alone
  int rc = block ? PMPI_Probe(source, tag, comm, &probed)
                 : PMPI_Iprobe(source, tag, comm, flag, &probed);
  if (rc == MPI_SUCCESS && *flag) copy_status(s, probed);
  if (rc != MPI_SUCCESS || !*flag || !st->is_marker(status_bytes(s), s->MPI_SOURCE)) return rc;
  // A marker: taken off the wire with its body, for the original size.
  Stashed m;
  rc = fetch(st, comm, *s, &m, op);
  if (rc != MPI_SUCCESS) return rc;
  set_status(s, m.source, m.tag, raw_size_of(m));
  std::lock_guard<std::mutex> g(st->mu);
  st->stash.push_back(std::move(m));
  st->stashed.store(st->stash.size(), std::memory_order_release);
  return MPI_SUCCESS;
}

int mprobe_impl(int source, int tag, MPI_Comm comm, bool block, int* flag, MPI_Message* msg,
                MPI_Status* status, P2PComm* st, const char* op) {
  MPI_Status local;
  MPI_Status* s = status == MPI_STATUS_IGNORE ? &local : status;
  auto m = std::make_unique<Stashed>();
  *flag = 1;
  if (!take_stashed(st, source, tag, m.get())) {
    MPI_Status probed;  // copied without MPI_ERROR, which single calls leave alone
    int rc = block ? PMPI_Mprobe(source, tag, comm, msg, &probed)
                   : PMPI_Improbe(source, tag, comm, flag, msg, &probed);
    if (rc == MPI_SUCCESS && *flag) copy_status(s, probed);
    // MPI's own message handle, unless a marker: Mrecv / Imrecv pass it on.
    if (rc != MPI_SUCCESS || !*flag || !st->is_marker(status_bytes(s), s->MPI_SOURCE)) return rc;
    rc = take_message(st, comm, msg, *s, m.get(), op);
    if (rc != MPI_SUCCESS) return rc;
  }
  set_status(s, m->source, m->tag, raw_size_of(*m));
  *msg = register_message(m.release());
  return MPI_SUCCESS;
}

}  // namespace

bool take_stashed(P2PComm* st, int source, int tag, Stashed* out) {
  if (st->stashed.load(std::memory_order_acquire) == 0) return false;  // no lock for nothing
  std::lock_guard<std::mutex> g(st->mu);
  for (auto it = st->stash.begin(); it != st->stash.end(); ++it) {
    if (matches(*it, source, tag)) {
      *out = std::move(*it);
      st->stash.erase(it);
      st->stashed.store(st->stash.size(), std::memory_order_release);
      return true;
    }
  }
  return false;
}

MPI_Fint message_c2f(MPI_Message msg) {
  {
    std::lock_guard<std::mutex> g(g_msg_mu);
    auto it = g_msgs.find(msg);
    if (it != g_msgs.end()) return it->second.f;
  }
  return PMPI_Message_c2f(msg);
}

MPI_Message message_f2c(MPI_Fint msg) {
  {
    std::lock_guard<std::mutex> g(g_msg_mu);
    auto it = g_fmsgs.find(msg);
    if (it != g_fmsgs.end()) return it->second;
  }
  return PMPI_Message_f2c(msg);
}

CallResult iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  P2PComm* st = route(comm, 0, MPI_BYTE, source, Peer::source, tag);
  if (!st) return kDeclined;
  return iprobe_impl(source, tag, comm, false, flag, status, st, "Iprobe");
}
CallResult probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  P2PComm* st = route(comm, 0, MPI_BYTE, source, Peer::source, tag);
  if (!st) return kDeclined;
  int flag = 0;
  return iprobe_impl(source, tag, comm, true, &flag, status, st, "Probe");
}
CallResult improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* msg,
                   MPI_Status* status) {
  P2PComm* st = route(comm, 0, MPI_BYTE, source, Peer::source, tag);
  if (!st) return kDeclined;
  return mprobe_impl(source, tag, comm, false, flag, msg, status, st, "Improbe");
}
CallResult mprobe(int source, int tag, MPI_Comm comm, MPI_Message* msg, MPI_Status* status) {
  P2PComm* st = route(comm, 0, MPI_BYTE, source, Peer::source, tag);
  if (!st) return kDeclined;
  int flag = 0;
  return mprobe_impl(source, tag, comm, true, &flag, msg, status, st, "Mprobe");
}

namespace {
// The message of a matched receive: the library's, taken from its handle
// and counted, with *rc the argument error it gives (already reported), or
// nullptr: one of MPI's.
std::unique_ptr<Stashed> matched(MPI_Message* msg, int count, MPI_Datatype type, int* rc) {
  std::unique_ptr<Stashed> m(take_message(*msg));
  if (!m) return m;
  stats_for(OpKind::recv).calls.fetch_add(1, std::memory_order_relaxed);
  *msg = MPI_MESSAGE_NULL;
  const int e = arg_error(m->app, count, type, MPI_PROC_NULL, Peer::none, 0);
  *rc = e ? report(m->app, e) : MPI_SUCCESS;
  return m;
}
}  // namespace

// Matched receives never decline: a message the library took off the wire
// has no PMPI form, and MPI's own handles go to PMPI here.
CallResult mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* msg, MPI_Status* status) {
  int rc = MPI_SUCCESS;
  std::unique_ptr<Stashed> m = matched(msg, count, type, &rc);
  if (!m) {
    // MPICH writes MPI_ERROR here; single completions leave it alone.
    if (status == MPI_STATUS_IGNORE) return PMPI_Mrecv(buf, count, type, msg, status);
    MPI_Status s;
    rc = PMPI_Mrecv(buf, count, type, msg, &s);
    copy_status(status, s);
    return rc;
  }
  if (rc != MPI_SUCCESS) return rc;
  return deliver(*m, buf, count, type, status, "Mrecv");
}
CallResult imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* msg, MPI_Request* req) {
  int rc = MPI_SUCCESS;
  std::unique_ptr<Stashed> m = matched(msg, count, type, &rc);
  if (!m) return PMPI_Imrecv(buf, count, type, msg, req);
  if (rc == MPI_SUCCESS) {
    MPI_Status s{};
    rc = deliver(*m, buf, count, type, &s, "Imrecv");
    if (rc == MPI_SUCCESS || truncation(rc)) rc = report(m->app, completed_request(&s, req, rc));
  }
  return rc;
}

}  // namespace adacomp
