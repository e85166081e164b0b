// The small public C API of include/adacomp.h.
#include "adacomp.h"

#include <cstring>

#include "coll/schedule.h"
#include "report/stats.h"
#include "p2p/interstep.h"
#include "decision/tier.h"
#include "runtime/link_check.h"
#include "runtime/runtime.h"

#define ADACOMP_EXPORT extern "C" __attribute__((visibility("default")))

ADACOMP_EXPORT const char* adacomp_version(void) { return ADACOMP_VERSION; }

ADACOMP_EXPORT int adacomp_get_stats(const char* op, adacomp_op_stats* out) {
  using adacomp::OpKind;
  for (int i = 0; i < static_cast<int>(OpKind::kCount); ++i) {
    if (std::strcmp(op, adacomp::op_name(static_cast<OpKind>(i))) != 0) continue;
    const OpKind kind = static_cast<OpKind>(i);
    // Summed over the MPI_Pcontrol regions.
    auto total = [&](adacomp::OpCounter c) { return adacomp::op_total(kind, c); };
    out->calls = total(adacomp::counter_calls);
    out->compressed_calls = total(adacomp::counter_compressed_calls);
    out->bytes_in = total(adacomp::counter_bytes_in);
    out->bytes_wire = total(adacomp::counter_bytes_wire);
    out->seconds_compress = total(adacomp::counter_ns_compress) * 1e-9;
    out->seconds_decompress = total(adacomp::counter_ns_decompress) * 1e-9;
    out->lossy_calls = total(adacomp::counter_lossy_calls);
    out->pipelined_calls = total(adacomp::counter_pipelined_calls);
    out->interstep_calls = total(adacomp::counter_interstep_calls);
    return 0;
  }
  return -1;
}

ADACOMP_EXPORT int adacomp_outstanding_collectives(void) {
  return adacomp::g_outstanding_collectives.load(std::memory_order_relaxed);
}

ADACOMP_EXPORT int adacomp_get_interstep_memory(adacomp_interstep_memory* out) {
  adacomp::ChannelMemory m = adacomp::channel_memory();
  out->send_bytes = m.send_bytes;
  out->send_peak = m.send_peak;
  out->recv_bytes = m.recv_bytes;
  out->recv_peak = m.recv_peak;
  return 0;
}

ADACOMP_EXPORT int adacomp_get_link(adacomp_link* out) {
  const adacomp::LinkModel now = adacomp::inter_node_link();
  out->bandwidth_Bps = now.bandwidth_Bps;
  out->latency_s = now.latency_s;
  out->measured = adacomp::link_measured();
  out->probed_Bps = out->measured ? adacomp::link_at_init().bandwidth_Bps : 0;
  out->achieved_Bps = adacomp::link_achieved();
  out->raises = static_cast<int>(adacomp::link_raises());
  out->p2p_direct = adacomp::job_spans_nodes() && adacomp::p2p_direct_between_nodes();
  return 0;
}

ADACOMP_EXPORT int adacomp_override_interstep(int on) {
  adacomp::set_interstep_override(on);
  return 0;
}

// The deprecated names (include/adacomp.h) stay exported for programs
// built against older headers.
ADACOMP_EXPORT int adacomp_get_xor_memory(adacomp_xor_memory* out) {
  return adacomp_get_interstep_memory(out);
}

ADACOMP_EXPORT int adacomp_override_xor(int on) { return adacomp_override_interstep(on); }

ADACOMP_EXPORT int adacomp_override_tier(const char* tier) {
  adacomp::Override o;
  if (!adacomp::parse_override(tier, &o)) return -1;
  adacomp::set_tier_override(o);
  return 0;
}
