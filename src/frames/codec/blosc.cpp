// Blosc (byte shuffle + lz4) through libblosc: the speed anchor for the
// float codecs. One internal thread: the library runs inside MPI ranks that
// already own their cores.
#include <blosc.h>

#include "codec/bits.h"
#include "codec/codec.h"

namespace adacomp {
namespace {

constexpr int kLevel = 5;  // Blosc's default; higher levels gain little here

size_t blosc_max(size_t n) { return n + BLOSC_MAX_OVERHEAD; }

long blosc_encode(const EncodeParams& p, const void* src, size_t n, void* dst, size_t cap) {
  if (n > BLOSC_MAX_BUFFERSIZE) return kCodecUnsupported;
  if (cap < BLOSC_MIN_HEADER_LENGTH) return kCodecNoSpace;
  int r = blosc_compress_ctx(kLevel, BLOSC_SHUFFLE, bits::elem_size(p.kind), n, src, dst, cap,
                             BLOSC_LZ4_COMPNAME, 0, 1);
  if (r < 0) return kCodecInternal;
  // 0 means "did not fit".
  return r == 0 ? kCodecNoSpace : r;
}

long blosc_decode(ElemKind, const void* src, size_t n, void* dst, size_t dst_bytes) {
  // validate() checks the header against n and makes decompression memory
  // safe; the sizes must then match exactly what we expect.
  size_t nbytes = 0, cbytes = 0, block = 0;
  if (blosc_cbuffer_validate(src, n, &nbytes) != 0 || nbytes != dst_bytes) return kCodecCorrupt;
  blosc_cbuffer_sizes(src, &nbytes, &cbytes, &block);
  if (cbytes != n) return kCodecCorrupt;
  if (dst_bytes == 0) return 0;
  int r = blosc_decompress_ctx(src, dst, dst_bytes, 1);
  return r == static_cast<long>(dst_bytes) ? r : kCodecCorrupt;
}

}  // namespace

extern const Codec kBloscCodec = {CodecId::blosc, "blosc",      false,       false,
                                  blosc_max,      blosc_encode, blosc_decode};

}  // namespace adacomp
