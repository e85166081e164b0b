// The library's world communicator: the bodies of coded messages (and of
// plain messages of exactly kMarkerBytes) travel there, to the receiver's
// rank in MPI_COMM_WORLD, under a tag made of the sequence number the
// marker carries; the lost-reference reports too (kTagLost). One
// communicator for the whole job, so a communicator with point-to-point
// state costs no context id of its own.
#include <atomic>
#include <memory>

#include "p2p/internal.h"
#include "requests/idle_wait.h"
#include "runtime/link_check.h"
#include "runtime/locality.h"

namespace adacomp {
namespace {

MPI_Comm g_world = MPI_COMM_NULL;
// Per destination world rank: the next sequence number. Tags of bodies run
// over [1, tag_ub] (kTagLost is 0), so a tag is reused only after tag_ub
// more bodies to the same peer; the receiver takes a body as soon as its
// marker arrives, so two bodies in flight never share one.
std::unique_ptr<std::atomic<uint32_t>[]> g_next;
int g_tag_span = 32767;
// Each world rank's node, and this rank's: bodies from another node tell
// the link check what the link achieves (runtime/link_check.h).
std::vector<int> g_node_of;
int g_my_node = 0;

int body_tag(uint32_t sequence) { return 1 + static_cast<int>(sequence % g_tag_span); }

}  // namespace

void bodies_open() {
  int size = 0;
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  g_next.reset(new std::atomic<uint32_t>[size]);
  for (int i = 0; i < size; ++i) g_next[i].store(0, std::memory_order_relaxed);
  int* ub = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &found);
  if (found && ub && *ub > 1) g_tag_span = *ub;           // tags 1..tag_ub
  const Locality world = learn_locality(MPI_COMM_WORLD);  // the world table, no communication
  g_node_of = world.node_of;
  g_my_node = world.node;
  if (comm_dup_asleep(MPI_COMM_WORLD, &g_world) == MPI_SUCCESS)
    PMPI_Comm_set_errhandler(g_world, MPI_ERRORS_RETURN);
}

// Every rank is here (MPI_Finalize): a body still unreceived now was
// announced by a marker no receive will read (one cut short by a receive
// smaller than the marker). Those that reached this rank are received and
// dropped; this rank's are given up rather than waited for.
void bodies_close() {
  if (g_world == MPI_COMM_NULL) return;
  lost_reports_close();
  PMPI_Barrier(g_world);
  for (;;) {
    int flag = 0;
    MPI_Message msg;
    MPI_Status s;
    int rc = kNoMatchedProbe ? PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, g_world, &flag, &s)
                             : PMPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, g_world, &flag, &msg, &s);
    if (rc != MPI_SUCCESS || !flag) break;
    std::vector<uint8_t> dropped(static_cast<size_t>(status_bytes(&s)));
    const int n = static_cast<int>(dropped.size());
    if (kNoMatchedProbe)
      PMPI_Recv(dropped.data(), n, MPI_BYTE, s.MPI_SOURCE, s.MPI_TAG, g_world, &s);
    else
      PMPI_Mrecv(dropped.data(), n, MPI_BYTE, &msg, &s);
  }
  abandon_detached();
  // Then every rank makes MPI progress until all are here, so that no rank
  // enters PMPI_Finalize with bodies still in its MPI's send queue: MPICH
  // 4.0 over UCX's TCP transport can hang there (docs/report.md,
  // "MPI_Finalize"; the report's barrier did this before MPI_Finalize
  // gathered statistics only when asked). Where the link was measured, its
  // vote at MPI_Finalize is that barrier. Both are blocking, MPI's own
  // collectives: nonblocking ones waited for without busy polling brought
  // MPICH 4.0's 1 s disconnect in PMPI_Finalize into 7 of 10 empty jobs on
  // 2 x 2 emulated nodes (1 in 10 blocking).
  if (!link_agree_at_finalize()) PMPI_Barrier(g_world);
  PMPI_Comm_free(&g_world);
  g_next.reset();
}

MPI_Comm library_world() { return g_world; }

int send_body(int to, std::vector<uint8_t>&& frame, uint32_t* sequence) {
  *sequence = g_next[to].fetch_add(1, std::memory_order_relaxed);
  poll_detached();  // those received
  Detached d;
  d.data = std::move(frame);
  int rc = PMPI_Isend(d.data.data(), static_cast<int>(d.data.size()), MPI_BYTE, to,
                      body_tag(*sequence), g_world, &d.req);
  if (rc == MPI_SUCCESS) detach(std::move(d));
  return rc;
}

int recv_body(int from, const Marker& m, std::vector<uint8_t>* body) {
  body->resize(m.body_bytes);
  const double start = PMPI_Wtime();
  const int rc = PMPI_Recv(body->data(), static_cast<int>(m.body_bytes), MPI_BYTE, from,
                           body_tag(m.sequence), g_world, MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS && from < static_cast<int>(g_node_of.size()) &&
      g_node_of[static_cast<size_t>(from)] != g_my_node)
    note_link_transfer(m.body_bytes, PMPI_Wtime() - start);
  return rc;
}

}  // namespace adacomp
