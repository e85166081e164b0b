// Bounded samples of the payloads an application really sends, per call
// site (report/sites.h), for the advisor (ADACOMP_ADVISE) and the capture
// (ADACOMP_CAPTURE). A site's 1st, 2nd, 4th, 8th ... call is sampled, at
// most ADACOMP_SAMPLE_COUNT of them, each at most ADACOMP_SAMPLE_BYTES of
// its send buffer: a bounded cost per site however long the run, spread
// over the run (a solver's first exchanges are often still zeros).
//
// The advisor codes each sample with every candidate codec (nothing sent is
// coded: the sample is coded beside the call, before it, untimed by the
// report's call clock) and adds the bytes in and out and the coding time to
// the site's row. The capture writes each sample to a file of its own.
#pragma once

#include <mpi.h>

#include <array>
#include <atomic>
#include <cstdint>

#include "decision/config.h"

namespace adacomp {

// The codecs the advisor tries on every sample, lossless first; the lossy
// ones only on float and double data, under the advisor's bound.
inline constexpr int kAdviseCodecs = 6;
const char* advise_codec_name(int i);
bool advise_codec_lossy(int i);

// What one call site's samples gave, summed over its samples and ranks.
struct SiteAdvice {
  // The sampled data: -1 none sampled, else ElemKind (0 bytes, 1 f32, 2 f64).
  int kind = -1;
  // The reduction's operation: "sum", "min", "max", "other", "" for none.
  char op[8] = "";
  uint64_t samples = 0, sample_bytes = 0;
  std::array<uint64_t, kAdviseCodecs> coded_bytes{}, coded_ns{};
};

namespace detail {
extern std::atomic<bool> g_sampling;
}
// Whether the entry points offer payloads (ADACOMP_ADVISE or ADACOMP_CAPTURE).
inline bool sampling() { return detail::g_sampling.load(std::memory_order_relaxed); }

// MPI_Init, after the configuration: starts sampling when asked (the
// capture directory is created; an error names ADACOMP_CAPTURE).
bool start_sampling(const Config& c, int world_rank, std::string* error);
// MPI_Finalize: no more samples.
void stop_sampling();
// The lossy candidates' bound, as the report states it ("rel 1e-4").
std::string advise_bound_text();

// An entry point's payload, offered before the call: `count` elements of
// `type` at `buf` (its send buffer), `op` for a reduction (MPI_OP_NULL
// else). Sampled only where the site's turn has come, and only a
// contiguous predefined type's.
void offer_payload(int call, void* return_address, const void* buf, MPI_Count count,
                   MPI_Datatype type, MPI_Op op);

}  // namespace adacomp
