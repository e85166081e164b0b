// Point-to-point call families: every send mode, blocking, nonblocking and
// persistent, the combined calls, matched probes, the large-count forms, a
// receive larger than the message and a message ending inside an element.
// Rank 0 sends to rank 1 unless the family says otherwise.
#include "fuzz.h"

namespace fuzz {
namespace {

constexpr int kTag = 11;

enum class Mode { standard, synchronous, buffered, ready };

// Rank 0's send of `count` of the send type in `mode`, blocking or not.
void send(const Api& api, const Case& c, Outcome& out, Mode mode, bool nonblocking) {
  void* buf = out.region(c.stype, c.count);
  MPI_Request req;
  if (mode == Mode::ready) PMPI_Barrier(c.comm);  // the receive is posted
  if (!nonblocking) {
    auto call = mode == Mode::standard      ? api.Send
                : mode == Mode::synchronous ? api.Ssend
                : mode == Mode::buffered    ? api.Bsend
                                            : api.Rsend;
    call(buf, c.count, c.stype, 1, kTag, c.comm);
    return;
  }
  auto call = mode == Mode::standard      ? api.Isend
              : mode == Mode::synchronous ? api.Issend
              : mode == Mode::buffered    ? api.Ibsend
                                          : api.Irsend;
  call(buf, c.count, c.stype, 1, kTag, c.comm, &req);
  api.Wait(&req, MPI_STATUS_IGNORE);
}

// Rank 1's receive of `count` of the receive type (posted before a ready
// send's barrier).
void receive(const Api& api, const Case& c, Outcome& out, Mode mode, int count) {
  void* buf = out.region(c.rtype, count);
  MPI_Request req;
  MPI_Status st;
  api.Irecv(buf, count, c.rtype, 0, kTag, c.comm, &req);
  if (mode == Mode::ready) PMPI_Barrier(c.comm);
  api.Wait(&req, &st);
  out.status(st, c.rtype);
}

template <Mode mode, bool nonblocking, int extra = 0>
void pair(const Api& api, const Case& c, Outcome& out) {
  if (c.rank == 0) send(api, c, out, mode, nonblocking);
  if (c.rank == 1) {
    if (nonblocking || mode == Mode::ready) {
      receive(api, c, out, mode, c.count + extra);
    } else {
      void* buf = out.region(c.rtype, c.count + extra);
      MPI_Status st;
      api.Recv(buf, c.count + extra, c.rtype, 0, kTag, c.comm, &st);
      out.status(st, c.rtype);
    }
  }
  if (mode == Mode::ready && c.rank > 1) PMPI_Barrier(c.comm);
}

// A message of one basic element fewer than `count` receive elements hold:
// MPI_Get_count is MPI_UNDEFINED, MPI_Get_elements the elements that came.
void partial_element(const Api& api, const Case& c, Outcome& out) {
  if (c.gen->basic == MPI_DATATYPE_NULL) return;
  MPI_Count type_size = 0, basic_size = 0;
  PMPI_Type_size_x(c.rtype, &type_size);
  PMPI_Type_size_x(c.gen->basic, &basic_size);
  const int elements = static_cast<int>(c.count * type_size / basic_size);
  if (elements < 1) return;
  if (c.rank == 0) {
    void* buf = out.region(c.gen->basic, elements - 1);
    api.Send(buf, elements - 1, c.gen->basic, 1, kTag, c.comm);
  }
  if (c.rank == 1) {
    void* buf = out.region(c.rtype, c.count);
    MPI_Status st;
    api.Recv(buf, c.count, c.rtype, 0, kTag, c.comm, &st);
    out.status(st, c.rtype);
  }
}

// A message longer than the receive: MPI_ERR_TRUNCATE, and no byte
// written outside the receive buffer.
template <bool nonblocking>
void truncated(const Api& api, const Case& c, Outcome& out) {
#ifdef OPEN_MPI
  // Open MPI 4.1's own receive writes past a truncated buffer once the
  // message leaves its eager protocol (1000 doubles: 8 bytes past): no
  // oracle there.
  MPI_Count size = 0;
  PMPI_Type_size_x(c.stype, &size);
  if ((c.count + 1) * size > 4096) return;
#endif
  if (c.rank == 0) {
    void* buf = out.region(c.stype, c.count + 1);
    api.Send(buf, c.count + 1, c.stype, 1, kTag, c.errors_return);
  }
  if (c.rank != 1) return;
  void* buf = out.region(c.rtype, c.count);
  out.regions().back().guards_only = true;
  MPI_Status st;
  if (!nonblocking) {
    out.error(api.Recv(buf, c.count, c.rtype, 0, kTag, c.errors_return, &st));
  } else {
    // MPICH 4.0 raises a failed MPI_Wait on MPI_COMM_WORLD, not on the
    // request's communicator: errors return there too meanwhile.
    MPI_Errhandler fatal;
    PMPI_Comm_get_errhandler(MPI_COMM_WORLD, &fatal);
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Request req;
    api.Irecv(buf, c.count, c.rtype, 0, kTag, c.errors_return, &req);
    out.error(api.Wait(&req, &st));
    PMPI_Comm_set_errhandler(MPI_COMM_WORLD, fatal);
    PMPI_Errhandler_free(&fatal);
  }
}

// Probe, then receive what it found: the probed status counts what was
// sent, coded or not.
void probe(const Api& api, const Case& c, Outcome& out) {
  if (c.rank == 0) send(api, c, out, Mode::standard, false);
  if (c.rank != 1) return;
  MPI_Status st;
  int flag = 0;
  api.Probe(0, kTag, c.comm, &st);
  out.status(st, c.rtype);
  while (!flag) api.Iprobe(0, kTag, c.comm, &flag, &st);
  out.status(st, c.rtype);
  void* buf = out.region(c.rtype, c.count);
  api.Recv(buf, c.count, c.rtype, st.MPI_SOURCE, st.MPI_TAG, c.comm, &st);
  out.status(st, c.rtype);
}

// Around the ring, or to itself.
template <bool self>
void sendrecv(const Api& api, const Case& c, Outcome& out) {
  const int to = self ? c.rank : (c.rank + 1) % c.size;
  const int from = self ? c.rank : (c.rank + c.size - 1) % c.size;
  void* sbuf = out.region(c.stype, c.count);
  void* rbuf = out.region(c.rtype, c.count);
  MPI_Status st;
  api.Sendrecv(sbuf, c.count, c.stype, to, kTag, rbuf, c.count, c.rtype, from, kTag, c.comm, &st);
  out.status(st, c.rtype);
}

void sendrecv_replace(const Api& api, const Case& c, Outcome& out) {
  void* buf = out.region(c.rtype, c.count);
  MPI_Status st;
  api.Sendrecv_replace(buf, c.count, c.rtype, (c.rank + 1) % c.size, kTag,
                       (c.rank + c.size - 1) % c.size, kTag, c.comm, &st);
  out.status(st, c.rtype);
}

// Persistent: started twice, then freed.
template <Mode mode>
void persistent(const Api& api, const Case& c, Outcome& out) {
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Status st;
  void* buf = nullptr;
  if (c.rank == 0) {
    buf = out.region(c.stype, c.count);
    auto init = mode == Mode::standard      ? api.Send_init
                : mode == Mode::synchronous ? api.Ssend_init
                : mode == Mode::buffered    ? api.Bsend_init
                                            : api.Rsend_init;
    init(buf, c.count, c.stype, 1, kTag, c.comm, &req);
  }
  if (c.rank == 1) {
    buf = out.region(c.rtype, c.count);
    api.Recv_init(buf, c.count, c.rtype, 0, kTag, c.comm, &req);
  }
  for (int round = 0; round < 2; ++round) {
    if (c.rank == 1) api.Start(&req);
    if (mode == Mode::ready) PMPI_Barrier(c.comm);
    if (c.rank == 0) api.Start(&req);
    if (c.rank <= 1) api.Wait(&req, &st);
    if (c.rank == 1) out.status(st, c.rtype);
  }
  if (c.rank <= 1) api.Request_free(&req);
}

template <bool nonblocking>
void matched_probe(const Api& api, const Case& c, Outcome& out) {
  if (c.rank == 0) send(api, c, out, Mode::standard, false);
  if (c.rank != 1) return;
  void* buf = out.region(c.rtype, c.count);
  MPI_Message msg;
  MPI_Status st;
  if (!nonblocking) {
    api.Mprobe(0, kTag, c.comm, &msg, &st);
    api.Mrecv(buf, c.count, c.rtype, &msg, &st);
  } else {
    int flag = 0;
    while (!flag) api.Improbe(0, kTag, c.comm, &flag, &msg, &st);
    MPI_Request req;
    api.Imrecv(buf, c.count, c.rtype, &msg, &req);
    api.Wait(&req, &st);
  }
  out.status(st, c.rtype);
}

#if FUZZ_HAS_MPI4 && (!defined(MPICH_NUMVERSION) || MPICH_NUMVERSION >= 40100000)
void isendrecv(const Api& api, const Case& c, Outcome& out) {
  void* sbuf = out.region(c.stype, c.count);
  void* rbuf = out.region(c.rtype, c.count);
  MPI_Request req;
  MPI_Status st;
  api.Isendrecv(sbuf, c.count, c.stype, (c.rank + 1) % c.size, kTag, rbuf, c.count, c.rtype,
                (c.rank + c.size - 1) % c.size, kTag, c.comm, &req);
  api.Wait(&req, &st);
  out.status(st, c.rtype);
}

void isendrecv_replace(const Api& api, const Case& c, Outcome& out) {
  void* buf = out.region(c.rtype, c.count);
  MPI_Request req;
  MPI_Status st;
  api.Isendrecv_replace(buf, c.count, c.rtype, (c.rank + 1) % c.size, kTag,
                        (c.rank + c.size - 1) % c.size, kTag, c.comm, &req);
  api.Wait(&req, &st);
  out.status(st, c.rtype);
}
#endif

#if FUZZ_HAS_MPI4
// The large-count forms: blocking, nonblocking and combined.
void large_count(const Api& api, const Case& c, Outcome& out) {
  const MPI_Count n = c.count;
  MPI_Status st;
  MPI_Request req;
  if (c.rank == 0) api.Send_c(out.region(c.stype, n), n, c.stype, 1, kTag, c.comm);
  if (c.rank == 1) {
    api.Recv_c(out.region(c.rtype, n), n, c.rtype, 0, kTag, c.comm, &st);
    out.status(st, c.rtype);
  }
  if (c.rank == 0) api.Isend_c(out.region(c.stype, n), n, c.stype, 1, kTag, c.comm, &req);
  if (c.rank == 1) api.Irecv_c(out.region(c.rtype, n + 1), n + 1, c.rtype, 0, kTag, c.comm, &req);
  if (c.rank <= 1) api.Wait(&req, &st);
  if (c.rank == 1) out.status(st, c.rtype);
  void* sbuf = out.region(c.stype, n);
  void* rbuf = out.region(c.rtype, n);
  api.Sendrecv_c(sbuf, n, c.stype, (c.rank + 1) % c.size, kTag, rbuf, n, c.rtype,
                 (c.rank + c.size - 1) % c.size, kTag, c.comm, &st);
  out.status(st, c.rtype);
}
#endif

}  // namespace

void add_p2p_families(std::vector<Family>& f) {
  f.push_back({"Send/Recv", pair<Mode::standard, false>, false});
  f.push_back({"Ssend/Recv", pair<Mode::synchronous, false>, false});
  f.push_back({"Bsend/Recv", pair<Mode::buffered, false>, false});
  f.push_back({"Rsend/Irecv", pair<Mode::ready, false>, false});
  f.push_back({"Isend/Irecv", pair<Mode::standard, true>, false});
  f.push_back({"Issend/Irecv", pair<Mode::synchronous, true>, false});
  f.push_back({"Ibsend/Irecv", pair<Mode::buffered, true>, false});
  f.push_back({"Irsend/Irecv", pair<Mode::ready, true>, false});
  f.push_back({"Send/Recv of a larger count", pair<Mode::standard, false, 2>, false});
  f.push_back({"Send/Recv of a partial element", partial_element, false});
  f.push_back({"Send/Recv truncated", truncated<false>, false});
  f.push_back({"Send/Irecv truncated", truncated<true>, false});
  f.push_back({"Probe, Iprobe, Recv", probe, false});
  f.push_back({"Sendrecv ring", sendrecv<false>, false});
  f.push_back({"Sendrecv to self", sendrecv<true>, false});
  f.push_back({"Sendrecv_replace", sendrecv_replace, false});
  f.push_back({"Send_init/Recv_init", persistent<Mode::standard>, false});
  f.push_back({"Ssend_init/Recv_init", persistent<Mode::synchronous>, false});
  f.push_back({"Bsend_init/Recv_init", persistent<Mode::buffered>, false});
  f.push_back({"Rsend_init/Recv_init", persistent<Mode::ready>, false});
  f.push_back({"Mprobe/Mrecv", matched_probe<false>, false});
  f.push_back({"Improbe/Imrecv", matched_probe<true>, false});
#if FUZZ_HAS_MPI4
  // MPICH 4.0's own Isendrecv cannot be the oracle: its status holds no
  // count nor source, and it reads freed memory on derived datatypes.
#if !defined(MPICH_NUMVERSION) || MPICH_NUMVERSION >= 40100000
  f.push_back({"Isendrecv", isendrecv, false});
  f.push_back({"Isendrecv_replace", isendrecv_replace, false});
#endif
  f.push_back({"Send_c/Recv_c, Isend_c/Irecv_c, Sendrecv_c", large_count, false});
#endif
}

}  // namespace fuzz
