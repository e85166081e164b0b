// Point-to-point's life: MPI_Init and MPI_Finalize, its part of each
// communicator's state (made where every member is present: MPI_COMM_WORLD
// and MPI_COMM_SELF at init, new communicators in the intercepted
// constructors), and the routing of each call.
#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include "p2p/internal.h"
#include "p2p/p2p.h"
#include "runtime/comm_hints.h"

namespace adacomp {

std::atomic<bool> detail::g_p2p_on{false};

namespace {

int attached(int rc, MPI_Comm* newcomm) {
  if (rc == MPI_SUCCESS) p2p_attach(*newcomm);
  return rc;
}

// Whether any communicator can ever get a part (see p2p_attach): not when
// the adaptive policy passes traffic inside a node through and the job is
// on one node, or its link between nodes routes everything direct. Then
// point-to-point stays off, as in raw mode, and MPI_Init makes no world
// communicator for bodies (bodies_open, a collective over MPI_COMM_WORLD)
// nor MPI_Finalize its barrier. Decided alike on every rank: the
// configuration, layout and link are agreed.
bool frames_possible() {
  if (!node_local_raw()) return true;
  return job_spans_nodes() &&
         (config().hierarchy == Hierarchy::flat || !p2p_direct_between_nodes());
}

}  // namespace

P2PComm* p2p_of(MPI_Comm comm) {
  if (!p2p_engaged()) return nullptr;
  CommState* s = find_comm_state(comm);
  return s ? s->p2p_part.get() : nullptr;
}

namespace {

// A send that the library would pass on unchanged (send.cpp, make_body,
// encode_message): below the smallest coded payload, the lossless
// threshold, which every transfer's gate applies whatever the override, and
// where the model decides, the point-to-point floor (decision/gate.h verdict).
bool never_coded(int count, MPI_Datatype type) {
  const MPI_Count bytes = bytes_of(count, type);
  const Config& c = config();
  const size_t floor = std::max({kMinCodedPayload, c.threshold_lossless,
                                 transfer_adaptive(c, tier_override()) ? c.threshold_p2p : 0});
  return bytes >= 0 && bytes < static_cast<MPI_Count>(floor) &&
         bytes != static_cast<MPI_Count>(kMarkerBytes);
}

bool send_declined(const P2PComm* st, int count, MPI_Datatype type, int dest) {
  return dest == MPI_PROC_NULL || st->direct(dest) || never_coded(count, type);
}
bool is_fatal(MPI_Errhandler h) {
  const MPI_Errhandler errors_abort = mpi_errors_abort();
  return h == MPI_ERRORS_ARE_FATAL || (errors_abort != MPI_ERRHANDLER_NULL && h == errors_abort);
}
bool fatal_handler(MPI_Comm comm) {
  MPI_Errhandler h = MPI_ERRHANDLER_NULL;
  if (PMPI_Comm_get_errhandler(comm, &h) != MPI_SUCCESS) return false;
  const bool fatal = is_fatal(h);
  PMPI_Errhandler_free(&h);
  return fatal;
}

// MPI_COMM_WORLD's handler is fatal: learned at MPI_Init, kept by
// comm_set_errhandler (each communicator's: P2PComm::fatal_errors). The
// world part's own copy would take a state look-up per receive on another
// communicator, evicting that one from the per-thread cache.
std::atomic<bool> g_world_fatal{true};

// A truncated receive on `comm` ends the job: its error handler and
// MPI_COMM_WORLD's are both fatal (MPICH 4.0 raises a request's completion
// error on the world's handler, Open MPI on the communicator's). No sender
// then goes on to wait for a channel frame that a cut marker lost.
bool truncation_ends_job(const P2PComm* st, MPI_Comm comm) {
  return st->fatal_errors.load(std::memory_order_relaxed) &&
         (comm == MPI_COMM_WORLD || g_world_fatal.load(std::memory_order_relaxed));
}

bool recv_declined(const P2PComm* st, int count, MPI_Datatype type, int source, MPI_Comm comm) {
  return source == MPI_PROC_NULL || st->direct(source) ||
         (small_receive(st, count, type, source) &&
          (!interstep_enabled() || truncation_ends_job(st, comm)));
}

}  // namespace

// No marker can reach such a receive whole: one would be truncated by MPI
// as the coded message it announces would be. A stashed marker must still
// be found first (MPI's order).
bool small_receive(const P2PComm* st, int count, MPI_Datatype type, int source) {
  const MPI_Count bytes = bytes_of(count, type);
  return source != MPI_PROC_NULL && !st->direct(source) && bytes >= 0 &&
         bytes < static_cast<MPI_Count>(kMarkerBytes) &&
         st->stashed.load(std::memory_order_acquire) == 0;
}

P2PComm* route(MPI_Comm comm, int count, MPI_Datatype type, int peer, Peer role, int tag) {
  P2PComm* st = p2p_of(comm);
  if (!st ||
      (role == Peer::dest ? send_declined(st, count, type, peer)
                          : peer == MPI_PROC_NULL || st->direct(peer)) ||
      arg_error(comm, count, type, peer, role, tag))
    return nullptr;
  return st;
}

P2PComm* route_recv(MPI_Comm comm, int count, MPI_Datatype type, int source, int tag) {
  P2PComm* st = p2p_of(comm);
  if (!st || recv_declined(st, count, type, source, comm) ||
      arg_error(comm, count, type, source, Peer::source, tag))
    return nullptr;
  return st;
}

P2PComm* route_pair(MPI_Comm comm, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    int recvcount, MPI_Datatype recvtype, int source, int recvtag) {
  P2PComm* st = p2p_of(comm);
  if (!st ||
      (send_declined(st, sendcount, sendtype, dest) &&
       recv_declined(st, recvcount, recvtype, source, comm)) ||
      arg_error(comm, sendcount, sendtype, dest, Peer::dest, sendtag) ||
      arg_error(comm, recvcount, recvtype, source, Peer::source, recvtag))
    return nullptr;
  return st;
}

void p2p_init() {
  if (!runtime_active() || config().mode == Mode::raw || !frames_possible()) return;
  bodies_open();
  g_world_fatal.store(fatal_handler(MPI_COMM_WORLD), std::memory_order_relaxed);
  detail::g_p2p_on.store(true, std::memory_order_release);
  p2p_attach(MPI_COMM_WORLD);
  p2p_attach(MPI_COMM_SELF);
}

// The parts of MPI_COMM_WORLD and MPI_COMM_SELF go with their states
// (comm_state_finalize, after this).
void p2p_finalize() {
  if (!p2p_engaged()) return;
  detail::g_p2p_on.store(false, std::memory_order_release);
  bodies_close();
  requests_finalize();
}

void p2p_attach(MPI_Comm comm) {
  if (!p2p_engaged() || comm == MPI_COMM_NULL) return;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) return;  // intercommunicators pass through
  // In the adaptive policy a communicator inside one node has nothing to
  // code (unless calibration found that coding pays there): its traffic
  // passes straight through, at plain MPI's cost. Every rank sees the same
  // layout, so all decide alike. (A job on one node never gets here:
  // frames_possible.) The layout, learned once for both layers. The
  // collectives' communicator is made now only where nonblocking collectives
  // may be compressed: they cannot make it later without blocking
  // (comm_state).
  CommState* s =
      comm_state(comm, config().nonblocking ? StatePart::collectives : StatePart::layout);
  if (!s || (node_local_raw() && s->loc.nodes == 1)) return;
  // A link on which coding cannot pay routes every peer on another node
  // direct too (p2p_direct_between_nodes): nothing is left to frame.
  if (s->loc.nodes > 1 && config().hierarchy != Hierarchy::flat && p2p_direct_between_nodes())
    return;
  // Bodies go to world ranks: a communicator with a rank outside this
  // MPI_COMM_WORLD (spawned processes) passes through. A local look-up,
  // the same on every rank.
  auto part = std::make_shared<P2PComm>();
  part->loc = s->loc;
  part->spans = s->loc.nodes > 1 && config().hierarchy != Hierarchy::flat;
  part->fatal_errors.store(fatal_handler(comm), std::memory_order_relaxed);
  MPI_Group group, world;
  PMPI_Comm_group(comm, &group);
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  int size = 0;
  PMPI_Group_size(group, &size);
  std::vector<int> ranks(static_cast<size_t>(size));
  for (int i = 0; i < size; ++i) ranks[i] = i;
  part->world.resize(ranks.size());
  PMPI_Group_translate_ranks(group, size, ranks.data(), world, part->world.data());
  PMPI_Group_free(&group);
  PMPI_Group_free(&world);
  for (int r : part->world)
    if (r == MPI_UNDEFINED) return;
  s->p2p_part = std::move(part);
}

// A handler asked once per receive would cost two PMPI queries each
// (truncation_ends_job); the application changes it only here.
CallResult comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  const int rc = PMPI_Comm_set_errhandler(comm, errhandler);
  if (rc != MPI_SUCCESS) return rc;
  const bool fatal = is_fatal(errhandler);
  if (comm == MPI_COMM_WORLD) g_world_fatal.store(fatal, std::memory_order_relaxed);
  if (P2PComm* st = p2p_of(comm)) st->fatal_errors.store(fatal, std::memory_order_relaxed);
  return rc;
}

// ---- communicator constructors: PMPI, then the new communicator's part ----

CallResult comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return attached(PMPI_Comm_dup(comm, newcomm), newcomm);
}
// The duplicate has the hints of `info` alone, not `comm`'s (MPI 4.0
// section 7.4.2), though the attribute copy brought those along.
CallResult comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  const int rc = attached(PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm);
  return rc == MPI_SUCCESS ? set_comm_hints(*newcomm, info, true, "Comm_dup_with_info") : rc;
}
CallResult comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm,
                               MPI_Request* request) {
  return idup_with_hints(comm, info, newcomm, request);
}
// MPI keeps the info too (its own keys, and get_info where it returns ours).
CallResult comm_set_info(MPI_Comm comm, MPI_Info info) {
  const int rc = PMPI_Comm_set_info(comm, info);
  return rc == MPI_SUCCESS ? set_comm_hints(comm, info, false, "Comm_set_info") : rc;
}
CallResult comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return attached(PMPI_Comm_split(comm, color, key, newcomm), newcomm);
}
CallResult comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                           MPI_Comm* newcomm) {
  return attached(PMPI_Comm_split_type(comm, split_type, key, info, newcomm), newcomm);
}
CallResult comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  return attached(PMPI_Comm_create(comm, group, newcomm), newcomm);
}
CallResult comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  return attached(PMPI_Comm_create_group(comm, group, tag, newcomm), newcomm);
}
CallResult cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                       MPI_Comm* newcomm) {
  return attached(PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm), newcomm);
}
CallResult cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  return attached(PMPI_Cart_sub(comm, remain_dims, newcomm), newcomm);
}
CallResult graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                        int reorder, MPI_Comm* newcomm) {
  return attached(PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm), newcomm);
}
CallResult dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                             const int destinations[], const int weights[], MPI_Info info,
                             int reorder, MPI_Comm* newcomm) {
  return attached(PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info,
                                         reorder, newcomm),
                  newcomm);
}
CallResult dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                      const int sourceweights[], int outdegree,
                                      const int destinations[], const int destweights[],
                                      MPI_Info info, int reorder, MPI_Comm* newcomm) {
  return attached(
      PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree,
                                      destinations, destweights, info, reorder, newcomm),
      newcomm);
}
CallResult intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newcomm) {
  return attached(PMPI_Intercomm_merge(intercomm, high, newcomm), newcomm);
}

}  // namespace adacomp
