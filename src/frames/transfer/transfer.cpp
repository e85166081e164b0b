#include "transfer/transfer.h"

#include <cstdio>
#include <mutex>

#include "codec/bits.h"
#include "codec/quant_grid.h"
#include "report/stats.h"
#include "decision/gate.h"
#include "decision/tier.h"
#include "runtime/args.h"
#include "runtime/runtime.h"
#include "transfer/threads.h"
#include "wire/frame.h"

namespace adacomp {
namespace {

// (buf, count, type) as MPI_Pack and MPI_Unpack take it. MPICH refuses a
// null address there, which is what MPI_BOTTOM is (absolute-address types):
// a type displaced by minus a real address, used at that address, reaches
// the same bytes.
class AtAddress {
 public:
  AtAddress(const void* buf, int count, MPI_Datatype type)
      : buf(const_cast<void*>(buf)), count(count), type(type) {
    if (buf) return;
    static char base;
    MPI_Aint disp = 0;
    PMPI_Get_address(&base, &disp);
    disp = -disp;
    PMPI_Type_create_struct(1, &count, &disp, &type, &shifted_);
    PMPI_Type_commit(&shifted_);
    this->buf = &base;
    this->count = 1;
    this->type = shifted_;
  }
  ~AtAddress() {
    if (shifted_ != MPI_DATATYPE_NULL) PMPI_Type_free(&shifted_);
  }
  AtAddress(const AtAddress&) = delete;
  AtAddress& operator=(const AtAddress&) = delete;
  void* buf;
  int count;
  MPI_Datatype type;

 private:
  MPI_Datatype shifted_ = MPI_DATATYPE_NULL;
};

// A partial element: which of its basic elements the first `rest` bytes
// fill, MPI alone knows, and it may write no other byte of the buffer (MPI
// writes only what arrived; the rest of the element may lie past the user's
// memory). MPI_Unpack takes whole elements only, so the bytes travel as
// MPI_PACKED to this process, received with the element's type: MPI lands a
// partial element exactly as a receive does. One at a time: the private
// communicator's messages must not cross between threads.
void unpack_partial(const uint8_t* data, int rest, void* at, MPI_Datatype type) {
  static std::mutex mu;
  std::lock_guard<std::mutex> g(mu);
  const AtAddress out(at, 1, type);
  MPI_Request r;
  PMPI_Irecv(out.buf, out.count, out.type, 0, 0, private_self(), &r);
  PMPI_Send(data, rest, MPI_PACKED, 0, 0, private_self());
  PMPI_Wait(&r, MPI_STATUS_IGNORE);
}

}  // namespace

uint8_t* stage_in(uint8_t* room, const void* buf, MPI_Count count, MPI_Datatype type,
                  const TypeInfo& ti, size_t bytes, bool pack, MPI_Comm comm, int* pack_rc) {
  if (ti.contiguous) return static_cast<uint8_t*>(const_cast<void*>(buf)) + ti.true_lb;
  if (pack) {
    // A staged message is at most one frame's payload: its count fits an int.
    int pos = 0;
    const AtAddress in(buf, static_cast<int>(count), type);
    const int rc = PMPI_Pack(in.buf, in.count, in.type, room, static_cast<int>(bytes), &pos, comm);
    if (pack_rc) *pack_rc = rc;
  }
  return room;
}

uint8_t* stage(const void* buf, MPI_Count count, MPI_Datatype type, const TypeInfo& ti,
               size_t bytes, bool pack, MPI_Comm comm, int* pack_rc, ScratchSlot slot) {
  uint8_t* room = ti.contiguous ? nullptr : scratch(slot, bytes);
  return stage_in(room, buf, count, type, ti, bytes, pack, comm, pack_rc);
}

void unstage(const uint8_t* data, size_t bytes, void* buf, MPI_Datatype type, const TypeInfo& ti,
             MPI_Comm comm) {
  if (ti.contiguous || bytes == 0) return;
  // Staged messages are at most one frame's payload: counts fit an int.
  const int whole = static_cast<int>(bytes / ti.size);
  const size_t rest = bytes - static_cast<size_t>(whole) * ti.size;
  int pos = 0;
  {
    const AtAddress out(buf, whole, type);
    PMPI_Unpack(data, static_cast<int>(bytes - rest), &pos, out.buf, out.count, out.type, comm);
  }
  if (!rest) return;
  MPI_Aint lb = 0, extent = 0;
  PMPI_Type_get_extent(type, &lb, &extent);
  unpack_partial(data + bytes - rest, static_cast<int>(rest),
                 static_cast<uint8_t*>(buf) + static_cast<MPI_Aint>(whole) * extent, type);
}

Coder lossless_coder(ElemKind kind, int arm) {
  const Config& cfg = config();
  Coder c;
  c.codec =
      coding_on() ? &candidates(cfg, Tier::lossless, kind).arm(arm) : find_codec(CodecId::stored);
  c.params.kind = kind;
  c.params.zstd_level = cfg.zstd_level;
  return c;
}

Coder transfer_coder(const ErrorBound& bound, ElemKind kind, int arm, const void* data,
                     size_t bytes) {
  const Config& cfg = config();
  const GateVerdict v = gate(cfg, bound, Override::none, bytes, kind, GateScope::transfer);
  if (v.tier.tier != Tier::lossy || !coding_on()) return lossless_coder(kind, arm);
  double lo = 0, hi = 0;
  qgrid::finite_range(kind, data, bytes / bits::elem_size(kind), &lo, &hi);
  const double abs_bound = hi >= lo ? bound.over(lo, hi) : 0;
  if (!(abs_bound > 0)) return lossless_coder(kind, arm);
  Coder c;
  c.codec = &candidates(cfg, Tier::lossy, kind).arm(arm);
  c.params.kind = kind;
  c.params.zstd_level = cfg.zstd_level;
  c.params.abs_bound = abs_bound;
  // One coding between the sender's values and the receiver's: the codec's
  // own guarantee is the bound.
  note_certificate(certificate(bound, lo, hi, abs_bound));
  return c;
}

void inject_fault(uint8_t* frame) {
  if (config().fault_corrupt_frames) damage_frame_header(frame);
}

size_t code_frame(const Coder& c, const void* src, size_t bytes, uint8_t* frame) {
  const size_t segments = segments_for(bytes);
  return segments > 1
             ? encode_segmented(*c.codec, c.params, src, bytes, frame, segments, parallel_for)
             : encode_frame(*c.codec, c.params, src, bytes, frame);
}

size_t encode_payload(const Coder& c, const void* src, size_t bytes, uint8_t* frame,
                      OpStats& stats) {
  return encode_with(stats, frame, [&] { return code_frame(c, src, bytes, frame); });
}

long decode_payload(const uint8_t* frame, size_t frame_bytes, void* dst, size_t raw_bytes,
                    OpStats& stats) {
  return decode_with(
      stats, [&] { return decode_frame(frame, frame_bytes, dst, raw_bytes, parallel_for); });
}

int raise_undecodable(MPI_Comm app, const char* operation, long status) {
  return raise_failure(app, Failure::corrupt_frame, operation, codec_status_string(status));
}

int TransferErrors::report(MPI_Comm app, const char* operation) const {
  if (mpi_ != MPI_SUCCESS) {
    PMPI_Comm_call_errhandler(app, mpi_);
    return mpi_;
  }
  if (codec_ != kCodecOk) return raise_undecodable(app, operation, codec_);
  return MPI_SUCCESS;
}

}  // namespace adacomp
