#include "policy/model.h"

#include <cstdio>

namespace adacomp {

bool compression_pays(double bytes_in, double bytes_wire, double seconds_codec,
                      const LinkModel& link, bool pipelined) {
  if (bytes_in <= 0 || bytes_wire <= 0) return true;
  const double ratio = bytes_in / bytes_wire;
  if (ratio < 1.02) return false;  // incompressible: coding is pure overhead
  if (link.bandwidth_Bps <= 0) return true;  // uncalibrated: ratio is all we know
  const double saved_per_byte = (1.0 - 1.0 / ratio) / link.bandwidth_Bps;
  const double cost_per_byte = seconds_codec / bytes_in * (pipelined ? 0.5 : 1.0);
  return saved_per_byte > cost_per_byte;
}

ModelSlot& RuntimeModel::slot(int op, size_t bytes) {
  if (slots_.empty()) slots_.resize(kMaxOps * kSizeClasses);
  int cls = 0;
  while (cls + 1 < kSizeClasses && (size_t{1} << (cls + 1)) <= bytes) ++cls;
  return slots_[static_cast<size_t>(op) * kSizeClasses + cls];
}

bool RuntimeModel::allows(ModelSlot& s) {
  if (s.enabled) return true;
  if (++s.raw_since_disabled < kModelProbeAfter) return false;
  s.enabled = true;  // probe: the next kModelAgreeEvery calls decide again
  s.raw_since_disabled = 0;
  return true;
}

void RuntimeModel::record(ModelSlot& s, MPI_Comm coll, const LinkModel& link, bool pipelined,
                          double bytes_in, double bytes_wire, double seconds_codec,
                          int verbose) {
  s.bytes_in += bytes_in;
  s.bytes_wire += bytes_wire;
  s.seconds_codec += seconds_codec;
  if (++s.compressed_since_agreement < kModelAgreeEvery) return;
  double local[3] = {s.bytes_in, s.bytes_wire, s.seconds_codec}, total[3];
  PMPI_Allreduce(local, total, 3, MPI_DOUBLE, MPI_SUM, coll);
  const bool pays = compression_pays(total[0], total[1], total[2], link, pipelined);
  if (verbose >= 2 && pays != s.enabled) {
    int rank;
    PMPI_Comm_rank(coll, &rank);
    if (rank == 0)
      std::fprintf(stderr, "adacomp: model switches compression %s (ratio %.3f, codec %.3g s/MB)\n",
                   pays ? "on" : "off", total[1] > 0 ? total[0] / total[1] : 0.0,
                   total[0] > 0 ? total[2] / total[0] * 1e6 : 0.0);
  }
  s.enabled = pays;
  s.compressed_since_agreement = 0;
  s.bytes_in = s.bytes_wire = s.seconds_codec = 0;
}

}  // namespace adacomp
