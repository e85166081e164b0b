// Process-wide library state: the configuration and what MPI_Init learned
// about the job, set by the library's start (boundary/start.cpp) and read
// by every layer above; the library's error codes.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>

#include "decision/config.h"
#include "decision/tier.h"

namespace adacomp {

// Read inline: the pass-through of every intercepted call reads them
// (boundary/entry.h).
namespace detail {
extern Config g_config;
extern std::atomic<int> g_override;
}  // namespace detail

// True between a successful runtime_start() and runtime_stop()
// (boundary/start.h); false means pass everything through (e.g. MPI
// initialised by something we did not intercept).
bool runtime_active();
inline const Config& config() { return detail::g_config; }
// The link between nodes: calibrated, or measured at MPI_Init when the job
// spans nodes (unknown otherwise), and raised during the run by what the
// library's own transfers achieved (runtime/link_check.h).
LinkModel inter_node_link();
// The largest message every rank's MPI sends eagerly (runtime/eager_limit.h).
size_t eager_limit();
// Whether MPI_COMM_WORLD spans several nodes (if not, no communicator does).
bool job_spans_nodes();
// The nodes MPI_COMM_WORLD spans (ADACOMP_NODE_MAP, else MPI's split).
int job_nodes();
// Whether point-to-point between nodes travels direct (decision/model.h
// inter_node_direct), decided once at MPI_Init from agreed inputs.
bool p2p_direct_between_nodes();
// That route class as the banner and the report name it: "direct",
// "framed", or "none" (the job runs on one node).
const char* p2p_route_name();
// The adaptive policy never codes inside a node unless calibration found
// that it pays there: on a job inside one node it passes everything through.
bool node_local_raw();

// Set by adacomp_override_tier(); Override::none means the configuration.
inline Override tier_override() {
  return static_cast<Override>(detail::g_override.load(std::memory_order_relaxed));
}
void set_tier_override(Override o);
// Point-to-point inter-step coding: the configuration, unless
// adacomp_override_interstep() set it (-1 restores the configuration). Only
// senders decide, so ranks need not agree.
bool interstep_enabled();
void set_interstep_override(int on);

// MPI_Pcontrol: level 0 switches coding off, any other level on again;
// the statistics of each level are kept apart (report/op_stats.h regions).
// Local to a rank, and safe when ranks differ: a collective's path never
// depends on it, only the codec of the frames it sends (stored when off),
// which every frame names; the reduction on codes agrees on it with its
// grid (coll/ring_codes.cpp); a point-to-point sender alone decides.
bool coding_on();
// The last MPI_Pcontrol level (1 before any), which lossy rules may select
// (decision/lossy_rules.h pcontrol=); level 0 switches coding off.
int pcontrol_level();
void set_pcontrol_level(int level);  // boundary/lifecycle.cpp pcontrol

// ---- Written by the library's start and stop alone (boundary/start.cpp) ----
// The configuration, set as soon as it is loaded.
void set_config(const Config& c);
// What MPI_Init agreed on and learned about the job, set before the library
// is marked active.
struct JobFacts {
  size_t eager_limit = 0;  // the least any rank's MPI gave; 0: none did (kDefaultEagerLimit)
  int nodes = 1;           // MPI_COMM_WORLD's
  bool thread_multiple = false;
  bool p2p_direct = false;  // decision/model.h inter_node_direct
};
void set_job(const JobFacts& job);
void set_active(bool active);
// Registers the AdaComp error class and the codes raise_failure raises.
void errors_init();

// What went wrong with a frame; each has its own error code (one AdaComp
// class) and message.
enum class Failure {
  corrupt_frame,    // header, checksum or coded data do not verify
  truncated_frame,  // fewer bytes arrived than the frame says it has
  lost_reference,   // an XOR frame whose channel lost its reference
};

// Raises an AdaComp error on the application's communicator through its
// error handler (fatal by default) and returns the MPI error code to return
// from the intercepted call when the handler returns. The message is also
// printed by the library itself: MPI's own abort path can lose it.
// `operation` is the call the user made ("Wait"), `reason` what failed
// (a codec's codec_status_string, or which check of the frame), if known.
int raise_failure(MPI_Comm app_comm, Failure f, const char* operation,
                  const char* reason = nullptr);

}  // namespace adacomp
