/* AdaComp: transparent compression of MPI messages.
 *
 * Applications need none of this: preload libadacomp.so (or run
 * `mpirun -np N adacomp ./app`) and the MPI calls it intercepts are
 * compressed where that pays. This header is for programs and tests that
 * want to look at what the library did in their own process. */
#ifndef ADACOMP_H
#define ADACOMP_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Counters of one operation on the calling rank. bytes_in counts payload
 * bytes handed to the codecs, bytes_wire the frame bytes actually sent, both
 * only on compressed calls. */
typedef struct adacomp_op_stats {
  unsigned long long calls;
  unsigned long long compressed_calls;
  unsigned long long bytes_in;
  unsigned long long bytes_wire;
  double seconds_compress;
  double seconds_decompress;
  unsigned long long lossy_calls;       /* compressed calls in a lossy tier */
  unsigned long long pipelined_calls;   /* compressed calls cut into chunks */
  union {                               /* send/recv: coded inter-step, as the */
    unsigned long long interstep_calls; /* XOR with the channel's previous message */
    unsigned long long xor_calls;       /* deprecated name of interstep_calls */
  };
} adacomp_op_stats;

/* Reference memory of point-to-point inter-step coding in this process:
 * bytes kept now and at most, for messages sent (bounded by
 * ADACOMP_INTERSTEP_MEMORY) and received (that much per sender when received in
 * sending order; see docs/p2p.md). */
typedef struct adacomp_interstep_memory {
  unsigned long long send_bytes, send_peak;
  unsigned long long recv_bytes, recv_peak;
} adacomp_interstep_memory;

/* The link between nodes as this rank uses it (docs/p2p.md, "Routes between
 * nodes"). bandwidth_Bps is 0 when unknown. */
typedef struct adacomp_link {
  double bandwidth_Bps; /* in use now: calibrated, or measured at MPI_Init
                           and perhaps raised during the run */
  double latency_s;
  double probed_Bps;   /* the probe's agreed figure at MPI_Init (0: not measured) */
  double achieved_Bps; /* the best rate this rank's receives of coded bodies
                          from other nodes achieved (0: none yet) */
  int measured;        /* 1 measured, 0 calibrated or unknown */
  int raises;          /* times an agreement raised bandwidth_Bps on this rank */
  int p2p_direct;      /* 1: point-to-point between nodes is direct (MPI's
                          own calls); 0: framed, or the job is on one node */
} adacomp_link;

/* Library version, e.g. "0.1.0". */
const char* adacomp_version(void);

/* Fills *out with this rank's counters for `op` ("allreduce", "bcast",
 * "reduce", ...). Returns 0, or -1 if the operation name is unknown. */
int adacomp_get_stats(const char* op, adacomp_op_stats* out);

/* Fills *out with this process's inter-step reference memory. Returns 0. */
int adacomp_get_interstep_memory(adacomp_interstep_memory* out);

/* Fills *out with this rank's link figures. Returns 0. */
int adacomp_get_link(adacomp_link* out);

/* Compressed nonblocking and persistent collectives started on this rank
 * whose schedules have not finished (the application may still have to
 * complete their requests). Reads a counter: no MPI call, so it shows what
 * the progress thread (ADACOMP_PROGRESS=thread) did meanwhile. */
int adacomp_outstanding_collectives(void);

/* The error bound the library proves for this rank's result of the last
 * collective on `comm` it coded (docs/lossy-scopes.md, "Certificates"):
 * |result - exact result| <= *abs_bound for every element. 0 when that call
 * was exact (lossless or plain) or none was coded yet; HUGE_VAL when it was
 * lossy under a bound only its senders know (a Bcast's receivers, the data
 * movement collectives). Collectives MPI ran plain, and point-to-point,
 * leave it unchanged. Returns 0, or -1 before MPI_Init or after
 * MPI_Finalize. */
int adacomp_last_bound(MPI_Comm comm, double* abs_bound);
/* Overrides how this rank chooses tiers for the calls that follow:
 * "raw", "lossless", "lossy", "pipelined" force that tier at every size
 * ("lossy" and "pipelined" are lossy only when a bound is configured);
 * "adaptive" and "adaptive-pipelined" apply that policy with the configured
 * thresholds and runtime model; NULL restores the configuration. Every rank
 * of a communicator must make the same choice before its next collective.
 * For calibration and benchmarks. Returns 0, or -1 for an unknown name. */
int adacomp_override_tier(const char* tier);

/* Turns this rank's point-to-point inter-step coding of the messages it
 * sends on (1) or off (0); -1 restores ADACOMP_INTERSTEP. Receivers decode
 * whatever arrives, so ranks need not agree. For benchmarks. Returns 0. */
int adacomp_override_interstep(int on);

/* Deprecated names of the inter-step API (the coding was first called XOR
 * coding); they still work and will be removed in a future major version. */
#if defined(__GNUC__) || defined(__clang__)
#define ADACOMP_DEPRECATED(use) __attribute__((deprecated("use " use)))
#else
#define ADACOMP_DEPRECATED(use)
#endif
typedef adacomp_interstep_memory adacomp_xor_memory;
ADACOMP_DEPRECATED("adacomp_get_interstep_memory")
int adacomp_get_xor_memory(adacomp_xor_memory* out);
ADACOMP_DEPRECATED("adacomp_override_interstep")
int adacomp_override_xor(int on);

#ifdef __cplusplus
}
#endif

#endif /* ADACOMP_H */
