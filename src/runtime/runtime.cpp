// Process-wide library state (runtime/runtime.h) and the library's errors.
#include "runtime/runtime.h"

#include <atomic>
#include <cstdio>

#include "requests/registry.h"
#include "runtime/eager_limit.h"
#include "runtime/link_check.h"

namespace adacomp {

Config detail::g_config;
std::atomic<int> detail::g_override{static_cast<int>(Override::none)};

namespace {

using detail::g_config;
using detail::g_override;
size_t g_eager_limit = kDefaultEagerLimit;
bool g_spans_nodes = false;
int g_nodes = 1;
bool g_p2p_direct = false;
bool g_active = false;
std::atomic<int> g_interstep_override{-1};
std::atomic<bool> g_coding_on{true};
std::atomic<int> g_pcontrol_level{1};
int g_err_corrupt = MPI_ERR_OTHER, g_err_truncated = MPI_ERR_OTHER, g_err_lost = MPI_ERR_OTHER;

}  // namespace

bool runtime_active() { return g_active; }
LinkModel inter_node_link() { return link_now(); }
bool job_spans_nodes() { return g_spans_nodes; }
int job_nodes() { return g_nodes; }

bool p2p_direct_between_nodes() { return g_p2p_direct; }
const char* p2p_route_name() {
  return !g_spans_nodes ? "none" : g_p2p_direct ? "direct" : "framed";
}
size_t eager_limit() { return g_eager_limit; }
bool node_local_raw() { return g_config.node_local_raw(); }
void set_tier_override(Override o) {
  g_override.store(static_cast<int>(o), std::memory_order_relaxed);
}
bool interstep_enabled() {
  int o = g_interstep_override.load(std::memory_order_relaxed);
  return o < 0 ? g_config.interstep : o != 0;
}
void set_interstep_override(int on) {
  g_interstep_override.store(on < 0 ? -1 : on != 0, std::memory_order_relaxed);
}

bool coding_on() { return g_coding_on.load(std::memory_order_relaxed); }
void set_pcontrol_level(int level) {
  g_pcontrol_level.store(level, std::memory_order_relaxed);
  g_coding_on.store(level != 0, std::memory_order_relaxed);
}
int pcontrol_level() { return g_pcontrol_level.load(std::memory_order_relaxed); }

void set_config(const Config& c) { g_config = c; }
void set_job(const JobFacts& job) {
  g_eager_limit = job.eager_limit ? job.eager_limit : kDefaultEagerLimit;
  g_spans_nodes = job.nodes > 1;
  g_nodes = job.nodes;
  set_threads_share_buffers(job.thread_multiple);
  g_p2p_direct = job.p2p_direct;
}
void set_active(bool active) { g_active = active; }

void errors_init() {
  int err_class;
  PMPI_Add_error_class(&err_class);
  const struct {
    int* code;
    const char* text;
  } errors[] = {
      {&g_err_corrupt,
       "AdaComp: a compressed frame arrived corrupt (its header, checksum or "
       "coded data do not verify)"},
      {&g_err_truncated,
       "AdaComp: a compressed frame arrived truncated (fewer bytes than its "
       "header says)"},
      {&g_err_lost,
       "AdaComp: an inter-step (XOR) frame arrived whose reference was lost (an "
       "earlier message of its channel was truncated or damaged)"},
  };
  for (const auto& e : errors) {
    PMPI_Add_error_code(err_class, e.code);
    PMPI_Add_error_string(*e.code, const_cast<char*>(e.text));
  }
}

int raise_failure(MPI_Comm app_comm, Failure f, const char* operation, const char* reason) {
  int code = MPI_ERR_OTHER;
  switch (f) {
    case Failure::corrupt_frame:
      code = g_err_corrupt;
      break;
    case Failure::truncated_frame:
      code = g_err_truncated;
      break;
    case Failure::lost_reference:
      code = g_err_lost;
      break;
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
