// Lost references: the receiver tells the sender. Reports travel on the
// library's world communicator (bodies.cpp) under kTagLost; the channel's
// next frame then goes without XOR, which restarts it at the receiver.
// Frames already sent by then fail.
#include <cstring>

#include "p2p/internal.h"

namespace adacomp {
namespace {

// Reports in flight. Its own lock: receives that fail report while the
// request registry's lock is held (drive_receives).
std::mutex g_report_mu;
std::vector<Detached> g_reports;

}  // namespace

void lost_reports_close() {
  std::lock_guard<std::mutex> r(g_report_mu);
  drop_finished(&g_reports, true);
}

void tell_sender(const P2PComm* st, int source, uint32_t id) {
  MPI_Comm world = library_world();
  if (!st || source < 0 || source >= static_cast<int>(st->world.size()) || world == MPI_COMM_NULL)
    return;
  Detached d;
  d.data.resize(sizeof id);
  std::memcpy(d.data.data(), &id, sizeof id);
  std::lock_guard<std::mutex> g(g_report_mu);
  drop_finished(&g_reports, false);  // those delivered
  if (PMPI_Isend(d.data.data(), sizeof id, MPI_BYTE, st->world[source], kTagLost, world, &d.req) ==
      MPI_SUCCESS)
    g_reports.push_back(std::move(d));
}

void read_lost_reports() {
  MPI_Comm world = library_world();
  for (;;) {
    int flag = 0;
    MPI_Message msg;
    MPI_Status s;
    const int rc = kNoMatchedProbe ? PMPI_Iprobe(MPI_ANY_SOURCE, kTagLost, world, &flag, &s)
                                   : PMPI_Improbe(MPI_ANY_SOURCE, kTagLost, world, &flag, &msg, &s);
    if (rc != MPI_SUCCESS || !flag) return;
    uint32_t id = 0;
    if (kNoMatchedProbe)
      PMPI_Recv(&id, sizeof id, MPI_BYTE, s.MPI_SOURCE, kTagLost, world, MPI_STATUS_IGNORE);
    else
      PMPI_Mrecv(&id, sizeof id, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    report_lost_channel(id);
  }
}

}  // namespace adacomp
