// The transfer core: how one message becomes a frame on the wire and back,
// written once for every compressed path (collectives, data movement,
// point-to-point). A sender stages the message as contiguous bytes, codes
// them into a frame (timed; damaged here under ADACOMP_FAULT=corrupt-frames)
// and counts what it sends; a receiver decodes into a staged area and
// unstages it. Failures are remembered, with the codec's reason, until the
// call reports them under its operation's name.
#pragma once

#include <cstddef>
#include <cstdint>

#include <mpi.h>

#include "codec/codec.h"
#include "report/stats.h"
#include "decision/lossy_scope.h"
#include "runtime/datatype.h"
#include "runtime/scratch.h"

namespace adacomp {

// The contiguous bytes of the message (buf, count, type), `bytes` long: the
// user's own when the type is contiguous, else the `slot` scratch, into which
// `pack` copies the message (PMPI_Pack's code in *pack_rc).
uint8_t* stage(const void* buf, MPI_Count count, MPI_Datatype type, const TypeInfo& ti,
               size_t bytes, bool pack, MPI_Comm comm, int* pack_rc = nullptr,
               ScratchSlot slot = ScratchSlot::work);
// The same, staging into `room` (`bytes` long) rather than scratch: for a
// nonblocking schedule, whose staged bytes outlive this thread's next call.
uint8_t* stage_in(uint8_t* room, const void* buf, MPI_Count count, MPI_Datatype type,
                  const TypeInfo& ti, size_t bytes, bool pack, MPI_Comm comm,
                  int* pack_rc = nullptr);
// Copies `bytes` staged bytes back into a non-contiguous message of `type`
// elements; nothing otherwise. A message may end part-way through an element
// (a point-to-point receive; MPI allows it): that element's first bytes land.
void unstage(const uint8_t* data, size_t bytes, void* buf, MPI_Datatype type, const TypeInfo& ti,
             MPI_Comm comm);

// How a message is coded: the codec and its parameters.
struct Coder {
  const Codec* codec = nullptr;
  EncodeParams params;
};
// The lossless coding of elements of `kind` (data movement and
// point-to-point always; a collective whose lossy plan has no usable bound)
// with candidate `arm` (decision/tier.h Candidates::arm); stored while
// MPI_Pcontrol(0) has switched coding off (runtime.h coding_on).
Coder lossless_coder(ElemKind kind, int arm = 1);
// The coding of one transfer's message of `bytes` at `data` (data movement
// and point-to-point), whose sender alone decides and whose frame tells the
// receiver: lossy where gate() lets a transfer of its kind be under `bound`
// (a scoped bound only), with the bound taken over this message's own
// finite values (NaN and Inf travel exactly); lossless_coder otherwise, and
// for a message whose relative bound leaves nothing (constant values).
Coder transfer_coder(const ErrorBound& bound, ElemKind kind, int arm, const void* data,
                     size_t bytes);

// ADACOMP_FAULT=corrupt-frames: the one place a frame is damaged on purpose.
void inject_fault(uint8_t* frame);

// Runs `body`, which writes a frame at `frame` and returns its size, timed
// into stats.ns_compress (and *ns), then injects the fault. Point-to-point
// passes its channel coding as the body; the rest calls encode_payload.
template <class Body>
size_t encode_with(OpStats& stats, uint8_t* frame, Body body, uint64_t* ns = nullptr) {
  size_t n;
  {
    ScopedTimer t(stats.ns_compress, ns);
    n = body();
  }
  inject_fault(frame);
  return n;
}

// Codes `bytes` at src into `frame` (capacity frame_capacity(bytes)) as
// one frame, in segments on ADACOMP_THREADS threads when the message is
// large enough (transfer/threads.h). Untimed: the body of encode_with.
size_t code_frame(const Coder& c, const void* src, size_t bytes, uint8_t* frame);
// code_frame, timed.
size_t encode_payload(const Coder& c, const void* src, size_t bytes, uint8_t* frame,
                      OpStats& stats);

// One frame of `wire` bytes carrying `raw` payload bytes goes out (or, in
// point-to-point's receive statistics, comes in).
inline void count_frame(OpStats& stats, size_t raw, size_t wire) {
  stats.bytes_in.fetch_add(raw, std::memory_order_relaxed);
  stats.bytes_wire.fetch_add(wire, std::memory_order_relaxed);
  t_tally.raw += raw;
  t_tally.wire += wire;
}

// Runs `body`, which decodes a frame and returns kCodecOk or the codec's
// CodecStatus, timed into stats.ns_decompress. Point-to-point passes its
// channel decoding as the body; the rest calls decode_payload.
template <class Body>
long decode_with(OpStats& stats, Body body) {
  ScopedTimer t(stats.ns_decompress);
  return body();
}

// Decodes a received frame into dst (exactly raw_bytes), timed. Returns
// kCodecOk or the codec's CodecStatus.
long decode_payload(const uint8_t* frame, size_t frame_bytes, void* dst, size_t raw_bytes,
                    OpStats& stats);

// A frame that did not decode (`status`), raised on `app` through its error
// handler as Failure::corrupt_frame with the codec's reason, under
// MPI_<operation>.
int raise_undecodable(MPI_Comm app, const char* operation, long status);

// The failures of one call, remembered so that every rank still completes
// the communication pattern: the first MPI error of a stage and the first
// frame that did not decode.
class TransferErrors {
 public:
  void mpi(int rc) {
    if (rc != MPI_SUCCESS && mpi_ == MPI_SUCCESS) mpi_ = rc;
  }
  // Returns whether the frame decoded.
  bool codec(long status) {
    if (status != kCodecOk && codec_ == kCodecOk) codec_ = status;
    return status == kCodecOk;
  }
  bool mpi_failed() const { return mpi_ != MPI_SUCCESS; }
  // MPI_SUCCESS, or the error raised on `app` through its error handler: an
  // MPI error as it came, an undecodable frame as Failure::corrupt_frame
  // with the codec's reason, both under MPI_<operation>.
  int report(MPI_Comm app, const char* operation) const;

 private:
  int mpi_ = MPI_SUCCESS;
  long codec_ = kCodecOk;
};

}  // namespace adacomp
