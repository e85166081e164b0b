// Lost references: the receiver tells the sender. Reports travel on
// g_control, a private duplicate of MPI_COMM_WORLD; the channel's next
// frame then goes without XOR, which restarts it at the receiver. Frames
// already sent by then fail.
#include <cstring>

#include "p2p/internal.h"

namespace adacomp {
namespace {

constexpr int kTagLost = 1;
MPI_Comm g_control = MPI_COMM_NULL;
// Reports in flight. Its own lock: receives that fail report while the
// request table's lock is held (drive_receives).
std::mutex g_report_mu;
std::vector<Detached> g_reports;

}  // namespace

void lost_reports_open() {
  if (PMPI_Comm_dup(MPI_COMM_WORLD, &g_control) == MPI_SUCCESS)
    PMPI_Comm_set_errhandler(g_control, MPI_ERRORS_RETURN);
}

void lost_reports_close() {
  {
    std::lock_guard<std::mutex> r(g_report_mu);
    drop_finished(&g_reports, true);
  }
  if (g_control != MPI_COMM_NULL) PMPI_Comm_free(&g_control);
}

void tell_sender(MPI_Comm app, int source, uint32_t id) {
  MPI_Group group, world;
  int to = MPI_UNDEFINED;
  PMPI_Comm_group(app, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  PMPI_Group_translate_ranks(group, 1, &source, world, &to);
  PMPI_Group_free(&group);
  PMPI_Group_free(&world);
  if (to == MPI_UNDEFINED || g_control == MPI_COMM_NULL) return;  // not in MPI_COMM_WORLD
  Detached d;
  d.data.resize(sizeof id);
  std::memcpy(d.data.data(), &id, sizeof id);
  std::lock_guard<std::mutex> g(g_report_mu);
  drop_finished(&g_reports, false);  // those delivered
  if (PMPI_Isend(d.data.data(), sizeof id, MPI_BYTE, to, kTagLost, g_control, &d.req) ==
      MPI_SUCCESS)
    g_reports.push_back(std::move(d));
}

void read_lost_reports() {
  for (;;) {
    int flag = 0;
    MPI_Message msg;
    MPI_Status s;
    const int rc = kNoMatchedProbe
                       ? PMPI_Iprobe(MPI_ANY_SOURCE, kTagLost, g_control, &flag, &s)
                       : PMPI_Improbe(MPI_ANY_SOURCE, kTagLost, g_control, &flag, &msg, &s);
    if (rc != MPI_SUCCESS || !flag) return;
    uint32_t id = 0;
    if (kNoMatchedProbe)
      PMPI_Recv(&id, sizeof id, MPI_BYTE, s.MPI_SOURCE, kTagLost, g_control, MPI_STATUS_IGNORE);
    else
      PMPI_Mrecv(&id, sizeof id, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    report_lost_channel(id);
  }
}

}  // namespace adacomp
