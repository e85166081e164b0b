#include "runtime/runtime.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>

#include "runtime/comm_state.h"
#include "runtime/stats.h"

namespace adacomp {
namespace {

Config g_config;
bool g_active = false;
std::atomic<int> g_override{static_cast<int>(Override::none)};
int g_err_corrupt = MPI_ERR_OTHER;

[[noreturn]] void abort_job(const std::string& message) {
  std::fprintf(stderr, "adacomp: %s\n", message.c_str());
  std::fflush(stderr);
  PMPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) h = (h ^ ch) * 1099511628211ull;
  return h;
}

// All ranks must run the same library version with the same settings, or
// they could take different collective paths and deadlock.
void check_agreement(MPI_Comm world) {
  std::string fp = std::string("adacomp " ADACOMP_VERSION ";") + config_fingerprint(g_config);
  uint64_t h = fnv1a(fp);
  uint64_t mine[2] = {h, ~h}, maxes[2];
  PMPI_Allreduce(mine, maxes, 2, MPI_UINT64_T, MPI_MAX, world);
  int differs = maxes[0] != h || maxes[1] != ~h;
  int any_differs = 0;
  PMPI_Allreduce(&differs, &any_differs, 1, MPI_INT, MPI_MAX, world);
  if (any_differs) {
    int rank;
    PMPI_Comm_rank(world, &rank);
    std::fprintf(stderr,
                 "adacomp: rank %d runs '%s'; ranks disagree on the AdaComp "
                 "version or configuration (ADACOMP_* variables, adacomp.conf)\n",
                 rank, fp.c_str());
    std::fflush(stderr);
    PMPI_Barrier(world);
    abort_job("stopping: every rank must use the same AdaComp version and configuration");
  }
}

}  // namespace

bool runtime_active() { return g_active; }
const Config& config() { return g_config; }
Override tier_override() { return static_cast<Override>(g_override.load(std::memory_order_relaxed)); }
void set_tier_override(Override o) { g_override.store(static_cast<int>(o), std::memory_order_relaxed); }

void runtime_start() {
  std::string error;
  if (!load_config(&g_config, &error)) abort_job("configuration error: " + error);

  int err_class;
  PMPI_Add_error_class(&err_class);
  PMPI_Add_error_code(err_class, &g_err_corrupt);
  PMPI_Add_error_string(g_err_corrupt,
                        const_cast<char*>("AdaComp: a compressed frame arrived "
                                          "corrupt or truncated"));
  comm_state_init();
  const CommState* world = comm_state(MPI_COMM_WORLD);
  if (!world) abort_job("cannot duplicate MPI_COMM_WORLD");
  check_agreement(world->coll);
  g_active = true;
  if (g_config.verbose && world->rank == 0)
    std::fprintf(stderr,
                 "adacomp %s: mode=%s, thresholds lossless=%zu lossy=%zu pipeline=%zu bytes, "
                 "lossless codec=%s, lossy=%s (%s)\n",
                 ADACOMP_VERSION, mode_name(g_config.mode), g_config.threshold_lossless,
                 g_config.threshold_lossy, g_config.threshold_pipeline,
                 g_config.lossless_auto ? "auto" : find_codec(g_config.lossless_codec)->name,
                 g_config.lossy_enabled() ? find_codec(g_config.lossy_codec)->name : "off",
                 g_config.source.c_str());
}

void runtime_stop() {
  if (!g_active) return;
  report_stats(comm_state(MPI_COMM_WORLD)->coll, g_config.verbose,
               g_config.report_path.c_str());
  g_active = false;
  comm_state_finalize();
}

int raise_failure(MPI_Comm app_comm, Failure f, const char* operation) {
  int code = MPI_ERR_OTHER;
  switch (f) {
    case Failure::corrupt_frame: code = g_err_corrupt; break;
  }
  char text[MPI_MAX_ERROR_STRING];
  int len = 0, rank = -1;
  PMPI_Error_string(code, text, &len);
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "adacomp: rank %d: MPI_%s: %s\n", rank, operation, text);
  std::fflush(stderr);
  PMPI_Comm_call_errhandler(app_comm, code);
  return code;
}

}  // namespace adacomp
