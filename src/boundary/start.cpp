// The library's start right after PMPI_Init* and its stop right before
// PMPI_Finalize (docs/design.md, "MPI_Init and MPI_Finalize"): every
// layer's set-up and the one agreement of MPI_Init, the statistics and the
// private communicators at MPI_Finalize.
#include "boundary/start.h"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "codec/bytes.h"
#include "report/report.h"
#include "report/stats.h"
#include "decision/model.h"
#include "runtime/args.h"
#include "runtime/comm_hints.h"
#include "runtime/comm_state.h"
#include "runtime/datatype.h"
#include "runtime/eager_limit.h"
#include "requests/idle_wait.h"
#include "runtime/link_check.h"
#include "runtime/link_probe.h"
#include "runtime/locality.h"
#include "runtime/mpi_library.h"
#include "runtime/runtime.h"

namespace adacomp {
namespace {

std::string g_report_path;     // ADACOMP_REPORT expanded (rank 0, which writes it)
bool g_report_wanted = false;  // by any rank: then MPI_Finalize gathers the statistics
double g_agreement_s = 0, g_probe_s = 0;  // MPI_Init's steps on this rank

// Stops every rank the same way: after a collective agreement, each rank
// finalizes MPI and exits non-zero, so that the messages are flushed (an
// abort can lose them) and no rank is left waiting in a collective.
[[noreturn]] void stop_job(MPI_Comm world) {
  std::fflush(stderr);
  PMPI_Barrier(world);
  PMPI_Finalize();
  std::exit(1);
}

// What each rank brings to MPI_Init's agreement, one row per rank.
enum AgreementField { kNode, kInvalid, kFingerprint, kEagerLimit, kWantsReport, kFields };

// Every rank's row, gathered over MPI_COMM_WORLD: the library's first
// collective, and on one node under the default policy its only one. Every
// rank must start the library, or the collectives of MPI_Init would wait
// forever for ranks that never call them (a rank started without it): the
// gather is nonblocking and waited for at most `timeout` seconds, which
// turns that wait into an error on the ranks that have the library. On
// MPI_COMM_WORLD itself, as a private duplicate would cost a collective of
// its own first: nothing of the application's can be on MPI_COMM_WORLD
// during MPI_Init, so its messages and the library's do not meet.
std::vector<uint64_t> gather_rows(const uint64_t (&mine)[kFields], int size, double timeout) {
  std::vector<uint64_t> rows(static_cast<size_t>(size) * kFields);
#ifdef ADACOMP_STATIC_IN_EVERY_RANK  // SMPI: linked into the program, so in every rank
  (void)timeout;
  PMPI_Allgather(mine, kFields, MPI_UINT64_T, rows.data(), kFields, MPI_UINT64_T, MPI_COMM_WORLD);
#else
  MPI_Request req;
  PMPI_Iallgather(mine, kFields, MPI_UINT64_T, rows.data(), kFields, MPI_UINT64_T, MPI_COMM_WORLD,
                  &req);
  if (!wait_asleep(&req, timeout)) {
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
#endif
  return rows;
}

// All ranks must have a valid configuration, and the same library version
// with the same settings, or they could take different collective paths
// and deadlock: then every rank stops here. The same gather tells every
// rank the world's layout (node identities, runtime/locality.h), the eager
// limit (the least any rank's MPI gave, eager_limit.h) and whether any rank
// wants the statistics that MPI_Finalize gathers: one collective for
// everything MPI_Init agrees on.
void agree(bool valid, const std::string& error, JobFacts* job) {
  const Config& cfg = config();
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string fp = std::string("adacomp " ADACOMP_VERSION ";") + config_fingerprint(cfg);
  const bool wants_report = cfg.verbose > 0 || !cfg.report_path.empty();
  const uint64_t mine[kFields] = {node_identity(), valid ? 0u : 1u,
                                  bits::fnv1a_64(fp.data(), fp.size()), local_eager_limit(),
                                  wants_report ? 1u : 0u};
  const std::vector<uint64_t> rows = gather_rows(mine, size, cfg.init_timeout_s);
  auto field = [&](int r, AgreementField f) { return rows[static_cast<size_t>(r) * kFields + f]; };

  int first_invalid = -1, first_differing = -1;
  std::vector<uint64_t> nodes(size);
  uint64_t least_eager = 0, report = 0;
  for (int r = size - 1; r >= 0; --r) {
    if (field(r, kInvalid)) first_invalid = r;
    if (field(r, kFingerprint) != field(0, kFingerprint)) first_differing = r;
    nodes[r] = field(r, kNode);
    const uint64_t eager = field(r, kEagerLimit);  // 0: that rank's MPI did not tell
    if (eager && (!least_eager || eager < least_eager)) least_eager = eager;
    report |= field(r, kWantsReport);
  }
  // Printed once: the lowest invalid rank's error (ranks usually share
  // their settings and so their error), or rank 0's settings and those of
  // the first rank that differs.
  if (first_invalid >= 0) {
    if (rank == first_invalid)
      std::fprintf(stderr, "adacomp: configuration error%s: %s\n",
                   rank == 0 ? "" : (" on rank " + std::to_string(rank)).c_str(), error.c_str());
    stop_job(MPI_COMM_WORLD);
  }
  if (first_differing >= 0) {
    if (rank == 0 || rank == first_differing)
      std::fprintf(stderr,
                   "adacomp: rank %d runs '%s'; ranks disagree on the AdaComp "
                   "version or configuration (ADACOMP_* variables, adacomp.conf)\n",
                   rank, fp.c_str());
    stop_job(MPI_COMM_WORLD);
  }
  job->eager_limit = static_cast<size_t>(least_eager);
  g_report_wanted = report != 0;
  // Valid and alike on every rank by now, the node map included.
  locality_init(nodes, rank, cfg.node_map);
}

std::string threshold_text(size_t bytes) {
  return bytes == kNever ? "never" : std::to_string(bytes);
}

// ADACOMP_VERBOSE >= 1: the library is active, for which MPI, with which
// settings, read from which sources.
void print_banner() {
  const Config& c = config();
  std::fprintf(stderr,
               "adacomp %s (for %s): mode=%s, thresholds lossless=%s lossy=%s pipeline=%s "
               "bytes, lossless codec=%s, lossy=%s, eager limit=%zu\nadacomp: settings from %s\n",
               ADACOMP_VERSION, ADACOMP_MPI_BUILT_FOR, mode_name(c.mode),
               threshold_text(c.threshold_lossless).c_str(),
               threshold_text(c.threshold_lossy).c_str(),
               threshold_text(c.threshold_pipeline).c_str(),
               c.lossless_auto ? "auto" : find_codec(c.lossless_codec)->name,
               !c.lossy_enabled() ? "off"
               : c.lossy_auto     ? "auto"
                                  : find_codec(c.lossy_codec)->name,
               eager_limit(), c.source.c_str());
}

}  // namespace

// Before any handle is used: with another MPI's library underneath, every
// handle this build knows is wrong. Each rank stops alike; the launcher's
// rank-0 variable (MPI not usable for it) keeps the message to one copy.
// SMPI: linked into each simulated program, whose only MPI is the simulator.
void stop_on_wrong_mpi() {
#ifndef ADACOMP_STATIC_IN_EVERY_RANK
  const std::string mismatch = mpi_library_mismatch();
  if (mismatch.empty()) return;
  const char* rank = nullptr;
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (!rank) rank = std::getenv(var);
  const bool tells = !rank || std::string(rank) == "0";
  if (tells) std::fprintf(stderr, "adacomp: %s\n", mismatch.c_str());
  std::fflush(stderr);
  // The launcher ends the job when the first rank exits: the others leave
  // rank 0 the time to print, or its line could be lost with it.
  if (!tells) std::this_thread::sleep_for(std::chrono::seconds(2));
  std::exit(1);
#endif
}

// ADACOMP_LOSSY_RULES, checked against the report's operation names.
static bool parse_rules(Config* c, std::string* error) {
  if (c->lossy_rules.text.empty()) return true;
  const auto known = [](const std::string& op) {
    for (int i = 0; i < static_cast<int>(OpKind::kCount); ++i)
      if (op == op_name(static_cast<OpKind>(i))) return true;
    return false;
  };
  std::string why;
  if (!parse_lossy_rules(c->lossy_rules.text, known, &c->lossy_rules, &why)) {
    *error = "ADACOMP_LOSSY_RULES: " + why;
    return false;
  }
  for (const LossyRule& r : c->lossy_rules.rules)
    if (r.lossy && r.abs == 0 && r.rel == 0 && !c->lossy_enabled()) {
      *error = "ADACOMP_LOSSY_RULES: rule '" + r.text +
               "' is lossy under the job's bound, and none is set: give the rule abs= or rel=, "
               "or set ADACOMP_ERROR_BOUND or ADACOMP_REL_ERROR_BOUND";
      return false;
    }
  return true;
}

#ifndef ADACOMP_STATIC_IN_EVERY_RANK
// At load (the library preloaded or linked in), before the program can
// reach a function or handle the running MPI lacks: Open MPI 4 and 5, and
// MPICH and Intel MPI, share a soname, so the loader takes either for the
// other. MPI_Get_library_version may be called before MPI_Init.
__attribute__((constructor)) static void check_mpi_library_at_load() { stop_on_wrong_mpi(); }
#endif

void runtime_start() {
  report_begin();
  std::string error;
  Config cfg;
  bool valid = load_config(&cfg, &error) && parse_rules(&cfg, &error);
  set_config(cfg);
  errors_init();
  comm_state_init();
  comm_hints_init();
  args_init();
  learn_predefined_sizes();
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (valid && !cfg.report_path.empty() && rank == 0)
    valid = expand_report_path(cfg.report_path, &g_report_path, &error);
  JobFacts job;
  const double agreement_start = PMPI_Wtime();
  agree(valid, error, &job);
  g_agreement_s = PMPI_Wtime() - agreement_start;
  const Locality layout = learn_locality(MPI_COMM_WORLD);  // from the table agree filled
  job.nodes = layout.nodes;
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  job.thread_multiple = provided == MPI_THREAD_MULTIPLE;
  LinkModel link = cfg.link;
  // Only the adaptive policy's decisions use it: the senders' coding (link)
  // and the route and T1 (route_link, from the fastest transfer when
  // measured: runtime/link_probe.cpp).
  const bool measured = !link.known() && cfg.model && cfg.adaptive() && layout.nodes > 1;
  LinkModel route_link = link;
  if (measured) {
    const double probe_start = PMPI_Wtime();
    const ProbeReading probe = probe_inter_node_link(layout, cfg);
    link = probe.link;
    route_link = {probe.fastest_Bps, link.latency_s};
    g_probe_s = PMPI_Wtime() - probe_start;
  }
  link_start(link, measured);
  job.p2p_direct = inter_node_direct(cfg, route_link);
  cfg.threshold_lossless = auto_threshold_lossless(cfg, route_link);
  set_config(cfg);
  set_job(job);
  set_call_timing(cfg.verbose > 0 || !cfg.report_path.empty());
  set_active(true);
  // A nonblocking collective cannot make a communicator's private copy or
  // node groups (making them is collective and blocking): MPI_COMM_WORLD's
  // are made here, where every rank is anyway, so that its nonblocking
  // collectives are compressed from the first, as its duplicates' are after
  // a blocking one. Only where nonblocking compression is on
  // (ADACOMP_NONBLOCKING): a job that leaves it off pays nothing.
  if (cfg.nonblocking && cfg.mode != Mode::raw) {
    CommState* world = comm_state(MPI_COMM_WORLD);
    if (world && world->spans_nodes()) ensure_node_groups(world);
  }
  if (cfg.verbose && rank == 0) {
    print_banner();
    if (job_spans_nodes())
      std::fprintf(stderr,
                   "adacomp: %d ranks on %d nodes; link between nodes %.3g MB/s, %.3g us (%s); "
                   "point-to-point between nodes %s\n",
                   static_cast<int>(layout.node_of.size()), layout.nodes, link.bandwidth_Bps / 1e6,
                   link.latency_s * 1e6,
                   cfg.link.known() ? "calibrated"
                   : measured       ? "measured at MPI_Init"
                                    : "not measured",
                   p2p_route_name());
  }
}

void print_startup_times(double pmpi_s, double p2p_s, double library_s) {
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (config().verbose < 2 || rank != 0) return;
  const double ms = 1e3;
  std::fprintf(stderr,
               "adacomp: rank 0's MPI_Init: %.1f ms in MPI's own, %.1f ms in AdaComp's "
               "(agreement %.1f, link probe %.1f, point-to-point set-up %.1f, other %.1f)\n",
               pmpi_s * ms, library_s * ms, g_agreement_s * ms, g_probe_s * ms, p2p_s * ms,
               (library_s - g_agreement_s - g_probe_s - p2p_s) * ms);
}

void runtime_stop() {
  if (!runtime_active()) return;
  // Measured alike on every rank (link_start), so every rank votes alike;
  // on MPI_COMM_WORLD itself, as the probe at MPI_Init was: nothing of the
  // application's may be pending at MPI_Finalize, and the world's private
  // communicator, made here only for it, would cost a collective of its own
  // (35-60 ms between two emulated nodes, Open MPI). Point-to-point's
  // closing may have taken the vote already (p2p/bodies_comm.cpp).
  link_agree_at_finalize();
  if (g_report_wanted) {
    const CommState* world = comm_state(MPI_COMM_WORLD);  // made here if nothing made it
    report_stats(world->coll.comm, config().verbose, g_report_path);
    // Every rank enters PMPI_Finalize only once rank 0 has printed and
    // written the report. Otherwise the other ranks start disconnecting
    // while rank 0 still makes MPI progress (receiving the rows, then in
    // MPI_Finalize's own first steps), and MPICH 4.0 over UCX's TCP
    // transport can hang there: a rank's disconnect flush needs its peer to
    // answer, and a peer that already finished its own disconnect waits in
    // the PMI barrier without progress (docs/report.md, "MPI_Finalize").
    PMPI_Barrier(world->coll.comm);
  }
  set_active(false);
  args_finalize();
  comm_hints_finalize();
  comm_state_finalize();
}

}  // namespace adacomp
