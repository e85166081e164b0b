// Runtime model: keeps compression on only where it pays. For each
// communicator, operation and message size class (power of two) it tracks
// the ratio and codec time achieved, and every few compressed calls the
// ranks agree (one small allreduce on the private communicator) on whether
// compressing still beats sending raw: the cMPI break-even
//   (1 - 1/R) / bandwidth  >  codec seconds per byte (halved when pipelined,
//                              where coding overlaps the transfer).
// A slot switched off is probed again after a number of raw calls, so
// compression comes back when the data becomes compressible again. Every
// input to a decision is identical on all ranks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <mpi.h>

#include "policy/config.h"

namespace adacomp {

struct ModelSlot {
  bool enabled = true;
  uint32_t compressed_since_agreement = 0;
  uint32_t raw_since_disabled = 0;
  double bytes_in = 0, bytes_wire = 0, seconds_codec = 0;  // since agreement, this rank
};

constexpr uint32_t kModelAgreeEvery = 4;    // compressed calls between agreements
constexpr uint32_t kModelProbeAfter = 32;   // raw calls before trying again

// The decision rule, from measurements summed over ranks.
bool compression_pays(double bytes_in, double bytes_wire, double seconds_codec,
                      const LinkModel& link, bool pipelined);

class RuntimeModel {
 public:
  // Slot for operation index `op` (0..kMaxOps-1) and message size.
  ModelSlot& slot(int op, size_t bytes);

  // Called for every eligible call before choosing a compressed path; counts
  // raw calls of a disabled slot and re-enables it for a probe.
  static bool allows(ModelSlot& s);

  // Called after every compressed call with this rank's measurements.
  // Collective over `coll` on every kModelAgreeEvery-th call of the slot.
  static void record(ModelSlot& s, MPI_Comm coll, const LinkModel& link, bool pipelined,
                     double bytes_in, double bytes_wire, double seconds_codec, int verbose);

  static constexpr int kMaxOps = 16;
  static constexpr int kSizeClasses = 48;

 private:
  std::vector<ModelSlot> slots_;  // allocated on first use
};

}  // namespace adacomp
