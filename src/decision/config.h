// Run-time configuration: read once at MPI_Init from the site files
// (PREFIX/etc/adacomp.conf, then adacomp-<mpi>.conf), then a key=value file
// (ADACOMP_CONFIG, default ./adacomp.conf, as written by adacomp-calibrate),
// then ADACOMP_* environment variables, later ones overriding earlier ones
// key by key (decision/config_sources.h). Every value is validated; nothing
// falls back silently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "decision/lossy_rules.h"

namespace adacomp {

// A tier threshold no message reaches (`never` in settings).
constexpr size_t kNever = SIZE_MAX;

// ADACOMP_MODE. adaptive_pipelined is the setting's value `pipelined`: the
// adaptive policy that also cuts large messages into chunks (unlike
// Override::pipelined, which forces the pipelined tier at every size).
enum class Mode : int { raw = 0, lossless = 1, lossy = 2, adaptive = 3, adaptive_pipelined = 4 };

// Measured by adacomp-calibrate; zero means "not calibrated".
struct LinkModel {
  double bandwidth_Bps = 0;  // achieved point-to-point bandwidth
  // Shown only (verbose line, JSON report): a coded message pays the same
  // latency as a plain one, so the break-even (decision/model.h) is per byte.
  double latency_s = 0;
  bool known() const { return bandwidth_Bps > 0; }
};

// How collectives use the node layout of a communicator that spans nodes.
//   automatic: rails when every node holds the same number of ranks, else leaders
//   rails:     every local rank drives the inter-node ring for its own slice
//   leaders:   one leader per node runs the inter-node stage
//   flat:      ignore the layout (every hop treated alike)
enum class Hierarchy : int { automatic, rails, leaders, flat };

// How point-to-point travels between ranks on different nodes:
//   automatic: framed (on the private communicator, where it may be coded)
//              only where coding can pay on the link (decision/model.h,
//              inter_node_direct); direct otherwise
//   direct:    always direct: unframed, at plain MPI's cost, never coded
//   framed:    always framed
enum class P2PRoute : int { automatic, direct, framed };

// Call sites of the report: at most this many stack frames each.
constexpr int kMaxSiteDepth = 8;

// One setting as the report shows it: its value and where it came from
// ("environment", a configuration file's path, or "default").
struct SettingValue {
  std::string key, value, source;
};

struct Config {
  // The default pipelines from T3: measured faster than `adaptive` for Bcast
  // and Reduce on every link and layout tried (up to 3.6x), and for
  // Allreduce but at 32 MB on 2 x 2 at 10 Gbit/s. From T3 the model times
  // each codec whole and in chunks (decision/tier.h Candidates), so T3 can be
  // low: at 10 Gbit/s chunks made Bcast and Reduce of 256-512 KB 1.3-2x
  // faster than whole calls, while MPICH's Allreduce stays faster whole,
  // which the model measures (docs/benchmarks.md, "T3 at 256 KB"). With a
  // bound, T3 is raised to T2 (config.cpp).
  Mode mode = Mode::adaptive_pipelined;
  // Tier thresholds in message bytes (T1 <= T2 <= T3). T1 unset
  // (threshold_lossless_auto) is 64K, lowered at MPI_Init to
  // kSlowLinkThreshold where the agreed link between nodes is slow
  // (decision/model.h auto_threshold_lossless).
  size_t threshold_lossless = 64 * 1024;
  bool threshold_lossless_auto = true;
  // Point-to-point under the adaptive policy: a message codes only from
  // this size (and T1) on. Why a floor of its own: a sender decides from an
  // estimate (decision/model.h CodingEstimate), not from timing plain MPI as
  // the collectives' model does, and the estimate does not see what a coded
  // message's second send (its marker and body) costs: at 1 Gbit/s forced
  // coding ran 8 and 16 KB Sendrecvs at 0.47-0.75x plain; 32 KB gained
  // 2.3x on 2 x 1 but lost (0.67x) on 2 x 2, 64 KB gained on both
  // (docs/p2p.md). Only a sender reads it, so ranks may differ.
  size_t threshold_p2p = 64 * 1024;
  size_t threshold_lossy = 1024 * 1024;
  size_t threshold_pipeline = 256 * 1024;
  // Pipelining: each unit that moves (a ring block, a tree's message) is cut
  // into chunks whose frames MPI sends eagerly (pipeline_eager, the
  // default: the kernel transmits one while the next is coded), else into
  // chunks of pipeline_chunk_bytes, or, when that is 0
  // (ADACOMP_PIPELINE_CHUNKS set alone), into pipeline_chunks.
  bool pipeline_eager = true;
  int pipeline_chunks = 4;
  size_t pipeline_chunk_bytes = 0;
  // Codecs: auto lets the adaptive model choose among candidates by measured
  // call time (decision/tier.h candidates); a named codec is the only one.
  bool lossless_auto = true;
  CodecId lossless_codec = CodecId::zstd;
  bool lossy_auto = true;
  CodecId lossy_codec = CodecId::quant;
  // Lossy tiers exist only when the user sets one of these (> 0). The bound
  // holds for every element of the final result.
  double abs_error_bound = 0;
  double rel_error_bound = 0;  // relative to the value range of the message
  // ADACOMP_LOSSY_RULES: where lossy applies and under which bound, by call
  // (decision/lossy_rules.h); its text here, parsed at MPI_Init, where the
  // report's operation names are known (boundary/start.cpp).
  LossyRules lossy_rules;
  // Lossy Allreduce SUM on float/double: reduce on quantisation codes
  // (src/coll/ring_codes.cpp) instead of decode-add-encode at every hop.
  bool reduce_on_codes = true;
  int zstd_level = 1;
  // Threads that code one large message (transfer/threads.h): 1 takes no
  // core the rank was not given. Only a sender's count shapes the frames, so
  // ranks may differ.
  int threads = 1;
  // Runtime model (adaptive/pipelined modes): switch compression off where
  // the measured ratio and speed say it does not pay.
  bool model = true;
  LinkModel link;   // between nodes (calibrated; else probed at MPI_Init)
  LinkModel intra;  // inside a node: calibrated only; unknown keeps it raw
  Hierarchy hierarchy = Hierarchy::automatic;
  P2PRoute p2p_route = P2PRoute::automatic;
  // Node layout given by the user (blocks of world ranks), for exercising
  // node-aware paths on one machine; empty: MPI's shared-memory split.
  std::vector<int> node_map;
  // Point-to-point inter-step coding (XOR with the channel's previous
  // message): on/off, and the reference memory each rank may keep for the
  // messages it sends (a receiver keeps at most this much per sender).
  bool interstep = true;
  size_t interstep_memory = 64 * 1024 * 1024;
  // Compressed nonblocking collectives (MPI_Iallreduce, ...; docs/nonblocking.md).
  // Off by default: a rank blocked in an MPI call the library does not
  // intercept does not advance them, which a correct program may rely on.
  bool nonblocking = false;
  // Who advances them between the application's MPI calls: nobody (poll,
  // the default), or a library thread when MPI_THREAD_MULTIPLE was provided
  // (coll/progress_thread.cpp). Local to a rank: ranks need not agree.
  bool progress_thread = false;
  int verbose = 0;
  double init_timeout_s = 60;          // MPI_Init waits this long for every rank's library
  std::string report_path;             // JSON statistics at MPI_Finalize when non-empty
  int report_site_depth = 1;           // stack frames per call site in the report
  std::vector<SettingValue> settings;  // every setting, in table order
  std::string source;                  // each source read and its keys, for the banner
  // Test-only fault injection: corrupt outgoing frames so that the error
  // path can be exercised end to end. Not part of the agreed configuration.
  bool fault_corrupt_frames = false;
  // Test-only: the leader of node probe_outlier_node (-1: none) multiplies
  // the bandwidth its link probe measured by probe_outlier_factor, to show
  // that one rank's outlier does not decide the agreed figure
  // (runtime/link_probe.h). Agreed like every other setting.
  int probe_outlier_node = -1;
  double probe_outlier_factor = 1;

  bool lossy_enabled() const { return abs_error_bound > 0 || rel_error_bound > 0; }
  // The adaptive policy (the default) decides from measurements; the other
  // modes force one behaviour wherever data crosses a node boundary.
  bool adaptive() const { return mode == Mode::adaptive || mode == Mode::adaptive_pipelined; }
  // The adaptive policy never codes inside a node unless calibration found
  // that it pays there: on a job inside one node it passes everything through.
  bool node_local_raw() const { return model && adaptive() && !intra.known(); }
};

// Parses file then environment. On an invalid value returns false and fills
// `error` with a message naming the variable and what it accepts.
bool load_config(Config* out, std::string* error);

// Applies one setting KEY=value to *c, as load_config does; on an invalid
// value fills `error` with the same message, naming `shown_as` (another
// name of the same value: a communicator's info key) when given.
bool apply_setting(const std::string& key, const std::string& value, Config* c,
                   std::string* error, const std::string& shown_as = "");

// Canonical text of every setting that must agree across ranks. Not
// ADACOMP_XOR and ADACOMP_XOR_MEMORY: only a sender uses them, and receivers
// apply whatever arrives (docs/p2p.md); nor ADACOMP_THREADS (segments travel
// in-band: any receiver decodes any count).
std::string config_fingerprint(const Config& c);

const char* mode_name(Mode m);

}  // namespace adacomp
