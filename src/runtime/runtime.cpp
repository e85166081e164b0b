#include "runtime/runtime.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <chrono>
#include <thread>

#include "codec/bytes.h"
#include "policy/model.h"
#include "runtime/args.h"
#include "runtime/comm_state.h"
#include "runtime/eager_limit.h"
#include "runtime/link_check.h"
#include "runtime/link_probe.h"
#include "runtime/locality.h"
#include "runtime/mpi_library.h"
#include "runtime/report.h"
#include "runtime/stats.h"

namespace adacomp {
namespace {

Config g_config;
size_t g_eager_limit = kDefaultEagerLimit;
bool g_spans_nodes = false;
int g_nodes = 1;
bool g_thread_multiple = false;
bool g_p2p_direct = false;
std::string g_report_path;  // ADACOMP_REPORT expanded (rank 0, which writes it)
bool g_active = false;
std::atomic<int> g_override{static_cast<int>(Override::none)};
std::atomic<int> g_interstep_override{-1};
std::atomic<bool> g_coding_on{true};
int g_err_corrupt = MPI_ERR_OTHER, g_err_truncated = MPI_ERR_OTHER, g_err_lost = MPI_ERR_OTHER;

// Stops every rank the same way: after a collective agreement, each rank
// finalizes MPI and exits non-zero, so that the messages are flushed (an
// abort can lose them) and no rank is left waiting in a collective.
[[noreturn]] void stop_job(MPI_Comm world) {
  std::fflush(stderr);
  PMPI_Barrier(world);
  PMPI_Finalize();
  std::exit(1);
}

// All ranks must have a valid configuration, and the same library version
// with the same settings, or they could take different collective paths
// and deadlock. The same MPI_MAX also elects the eager limit (eager_limit.h):
// one collective for all that MPI_Init agrees on. Returns that limit.
size_t check_agreement(MPI_Comm world, bool valid, const std::string& error) {
  int rank;
  PMPI_Comm_rank(world, &rank);
  std::string fp = std::string("adacomp " ADACOMP_VERSION ";") + config_fingerprint(g_config);
  uint64_t h = bits::fnv1a_64(fp.data(), fp.size());
  // First field: the lowest invalid rank wins the MAX, so its error is
  // printed once (ranks usually share their settings and so their error).
  // Below 2^63: MPICH 4.0's MPI_MAX on MPI_UINT64_T compares as signed.
  // (h and ~h stay correct either way: a rank holds the maximum of both only
  // when all ranks hold the same h, so a difference stops every rank.)
  const uint64_t invalid = (uint64_t{1} << 62) - static_cast<uint64_t>(rank);
  uint64_t mine[4] = {valid ? 0u : invalid, h, ~h, eager_limit_vote(local_eager_limit())}, maxes[4];
  PMPI_Allreduce(mine, maxes, 4, MPI_UINT64_T, MPI_MAX, world);
  if (maxes[0] != 0) {
    if (maxes[0] == mine[0])
      std::fprintf(stderr, "adacomp: configuration error%s: %s\n",
                   rank == 0 ? "" : (" on rank " + std::to_string(rank)).c_str(), error.c_str());
    stop_job(world);
  }
  if (maxes[1] != h || maxes[2] != ~h) {  // then on every rank: see the note above
    // Once, not per rank: rank 0's settings and the first rank that differs.
    uint64_t h0 = h;
    PMPI_Bcast(&h0, 1, MPI_UINT64_T, 0, world);
    int mine_differs = h != h0 ? rank : INT32_MAX, first = 0;
    PMPI_Allreduce(&mine_differs, &first, 1, MPI_INT, MPI_MIN, world);
    if (rank == 0 || rank == first)
      std::fprintf(stderr,
                   "adacomp: rank %d runs '%s'; ranks disagree on the AdaComp "
                   "version or configuration (ADACOMP_* variables, adacomp.conf)\n",
                   rank, fp.c_str());
    stop_job(world);
  }
  return eager_limit_elected(maxes[3]);
}

#ifndef ADACOMP_STATIC_IN_EVERY_RANK
// Every rank must start the library: the collectives below would otherwise
// wait forever for ranks that never call them (a rank started without it).
// A nonblocking duplicate of MPI_COMM_WORLD first, waited for at most
// `timeout` seconds, turns that wait into an error on the ranks that have it.
void await_every_rank(double timeout) {
  MPI_Comm probe;
  MPI_Request req;
  if (PMPI_Comm_idup(MPI_COMM_WORLD, &probe, &req) != MPI_SUCCESS) return;
  const double start = PMPI_Wtime();
  for (int done = 0, polls = 0; !done; ++polls) {
    PMPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done) break;
    if (PMPI_Wtime() - start > timeout) {
      int rank = -1;
      PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
      std::fprintf(stderr,
                   "adacomp: rank %d: not every rank started AdaComp within %g s of MPI_Init "
                   "(ADACOMP_INIT_TIMEOUT): a rank runs without the library, or has not "
                   "reached MPI_Init; every rank must load it (e.g. through the adacomp "
                   "launcher)\n",
                   rank, timeout);
      std::fflush(stderr);
      PMPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (polls > 1000) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  PMPI_Comm_free(&probe);
}
#endif

std::string threshold_text(size_t bytes) {
  return bytes == kNever ? "never" : std::to_string(bytes);
}

// ADACOMP_VERBOSE >= 1: the library is active, for which MPI, with which
// settings, read from which sources.
void print_banner() {
  const Config& c = g_config;
  std::fprintf(stderr,
               "adacomp %s (for %s): mode=%s, thresholds lossless=%s lossy=%s pipeline=%s "
               "bytes, lossless codec=%s, lossy=%s, eager limit=%zu\nadacomp: settings from %s\n",
               ADACOMP_VERSION, ADACOMP_MPI_BUILT_FOR, mode_name(c.mode),
               threshold_text(c.threshold_lossless).c_str(),
               threshold_text(c.threshold_lossy).c_str(),
               threshold_text(c.threshold_pipeline).c_str(),
               c.lossless_auto ? "auto" : find_codec(c.lossless_codec)->name,
               !c.lossy_enabled() ? "off" : c.lossy_auto ? "auto" : find_codec(c.lossy_codec)->name,
               g_eager_limit,
               c.source.c_str());
}

}  // namespace

bool runtime_active() { return g_active; }
LinkModel inter_node_link() { return link_now(); }
bool job_spans_nodes() { return g_spans_nodes; }
int job_nodes() { return g_nodes; }

bool threads_share_buffers() { return g_thread_multiple; }
bool p2p_direct_between_nodes() { return g_p2p_direct; }
const char* p2p_route_name() {
  return !g_spans_nodes ? "none" : g_p2p_direct ? "direct" : "framed";
}
size_t eager_limit() { return g_eager_limit; }
bool node_local_raw() { return g_config.model && g_config.adaptive() && !g_config.intra.known(); }
const Config& config() { return g_config; }
Override tier_override() { return static_cast<Override>(g_override.load(std::memory_order_relaxed)); }
void set_tier_override(Override o) { g_override.store(static_cast<int>(o), std::memory_order_relaxed); }
bool interstep_enabled() {
  int o = g_interstep_override.load(std::memory_order_relaxed);
  return o < 0 ? g_config.interstep : o != 0;
}
void set_interstep_override(int on) { g_interstep_override.store(on < 0 ? -1 : on != 0, std::memory_order_relaxed); }

bool coding_on() { return g_coding_on.load(std::memory_order_relaxed); }
void set_coding_level(int level) {
  g_coding_on.store(level != 0, std::memory_order_relaxed);
  set_stats_region(level != 0 ? 1 : 0);
}

// Before any handle is used: with the other MPI's library underneath, every
// handle this build knows is wrong. Each rank stops alike; the launcher's
// rank-0 variable (MPI not usable for it) keeps the message to one copy.
void check_mpi_library() {
  const std::string mismatch = mpi_library_mismatch();
  if (mismatch.empty()) return;
  const char* rank = nullptr;
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (!rank) rank = std::getenv(var);
  if (!rank || std::string(rank) == "0") std::fprintf(stderr, "adacomp: %s\n", mismatch.c_str());
  std::fflush(stderr);
  PMPI_Finalize();
  std::exit(1);
}

void runtime_start() {
  check_mpi_library();
  report_begin();
  std::string error;
  bool valid = load_config(&g_config, &error);
#ifndef ADACOMP_STATIC_IN_EVERY_RANK  // SMPI: linked into the program (and it lacks Comm_idup)
  await_every_rank(g_config.init_timeout_s);
#endif

  int err_class;
  PMPI_Add_error_class(&err_class);
  const struct {
    int* code;
    const char* text;
  } errors[] = {
      {&g_err_corrupt, "AdaComp: a compressed frame arrived corrupt (its header, checksum or "
                       "coded data do not verify)"},
      {&g_err_truncated, "AdaComp: a compressed frame arrived truncated (fewer bytes than its "
                         "header says)"},
      {&g_err_lost, "AdaComp: an inter-step (XOR) frame arrived whose reference was lost (an "
                    "earlier message of its channel was truncated or damaged)"},
  };
  for (const auto& e : errors) {
    PMPI_Add_error_code(err_class, e.code);
    PMPI_Add_error_string(*e.code, const_cast<char*>(e.text));
  }
  comm_state_init();
  args_init();
  locality_init(valid ? g_config.node_map : std::vector<int>{});
  const CommState* world = comm_state(MPI_COMM_WORLD);
  if (!world) {
    std::fprintf(stderr, "adacomp: cannot duplicate MPI_COMM_WORLD\n");
    PMPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (valid && !g_config.report_path.empty() && world->coll.rank == 0)
    valid = expand_report_path(g_config.report_path, &g_report_path, &error);
  g_eager_limit = check_agreement(world->coll.comm, valid, error);
  g_spans_nodes = world->spans_nodes();
  g_nodes = world->loc.nodes;
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  g_thread_multiple = provided == MPI_THREAD_MULTIPLE;
  LinkModel link = g_config.link;
  // Only the adaptive policy's point-to-point decisions use it.
  const bool measured =
      !link.known() && g_config.model && g_config.adaptive() && world->spans_nodes();
  if (measured) link = probe_inter_node_link(*world, g_config);
  link_start(link, measured);
  g_p2p_direct = inter_node_direct(g_config, link);
  set_call_timing(g_config.verbose > 0 || !g_config.report_path.empty());
  g_active = true;
  if (g_config.verbose && world->coll.rank == 0) {
    print_banner();
    if (world->spans_nodes())
      std::fprintf(stderr,
                   "adacomp: %d ranks on %d nodes; link between nodes %.3g MB/s, %.3g us (%s); "
                   "point-to-point between nodes %s\n",
                   world->coll.size, world->loc.nodes, link.bandwidth_Bps / 1e6,
                   link.latency_s * 1e6,
                   g_config.link.known() ? "calibrated"
                   : measured            ? "measured at MPI_Init"
                                         : "not measured",
                   p2p_route_name());
  }
}

void runtime_stop() {
  if (!g_active) return;
  const MPI_Comm world = comm_state(MPI_COMM_WORLD)->coll.comm;
  if (link_measured()) {  // the report shows one figure: every rank's check, agreed
    double vote = link_vote(), largest = 0;
    PMPI_Allreduce(&vote, &largest, 1, MPI_DOUBLE, MPI_MAX, world);
    link_agree(largest);
  }
  report_stats(world, g_config.verbose, g_report_path);
  // Every rank enters PMPI_Finalize only once rank 0 has printed and written
  // the report. Otherwise the other ranks start disconnecting while rank 0
  // still makes MPI progress (receiving the rows, then in MPI_Finalize's own
  // first steps), and MPICH 4.0 over UCX's TCP transport can hang there: a
  // rank's disconnect flush needs its peer to answer, and a peer that
  // already finished its own disconnect waits in the PMI barrier without
  // progress (docs/report.md, "MPI_Finalize").
  PMPI_Barrier(world);
  g_active = false;
  args_finalize();
  comm_state_finalize();
}

int raise_failure(MPI_Comm app_comm, Failure f, const char* operation, const char* reason) {
  int code = MPI_ERR_OTHER;
  switch (f) {
    case Failure::corrupt_frame: code = g_err_corrupt; break;
    case Failure::truncated_frame: code = g_err_truncated; break;
    case Failure::lost_reference: code = g_err_lost; break;
  }
  char text[MPI_MAX_ERROR_STRING];
  int len = 0, rank = -1;
  PMPI_Error_string(code, text, &len);
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "adacomp: rank %d: MPI_%s: %s%s%s%s\n", rank, operation, text,
               reason ? " (" : "", reason ? reason : "", reason ? ")" : "");
  std::fflush(stderr);
  PMPI_Comm_call_errhandler(app_comm, code);
  return code;
}

}  // namespace adacomp
