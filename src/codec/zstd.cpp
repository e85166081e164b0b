#include <zstd.h>
#include <zstd_errors.h>

#include "codec/codec.h"
#include "codec/zstd_ctx.h"

namespace adacomp {

// Contexts are reused per thread: creating one per call costs more than
// compressing a small message.
ZSTD_CCtx* zstd_thread_cctx() {
  thread_local struct Holder {
    ZSTD_CCtx* ctx = ZSTD_createCCtx();
    ~Holder() { ZSTD_freeCCtx(ctx); }
  } h;
  return h.ctx;
}

ZSTD_DCtx* zstd_thread_dctx() {
  thread_local struct Holder {
    ZSTD_DCtx* ctx = ZSTD_createDCtx();
    ~Holder() { ZSTD_freeDCtx(ctx); }
  } h;
  return h.ctx;
}

namespace {

size_t zstd_max(size_t n) { return ZSTD_compressBound(n); }

long zstd_encode(const EncodeParams& p, const void* src, size_t n, void* dst,
                 size_t cap) {
  size_t r = ZSTD_compressCCtx(zstd_thread_cctx(), dst, cap, src, n, p.zstd_level);
  if (ZSTD_isError(r))
    return ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall ? kCodecNoSpace
                                                               : kCodecInternal;
  return static_cast<long>(r);
}

long zstd_decode(ElemKind, const void* src, size_t n, void* dst,
                 size_t dst_bytes) {
  // The frame must declare exactly the size we expect before we trust it.
  unsigned long long declared = ZSTD_getFrameContentSize(src, n);
  if (declared != dst_bytes) return kCodecCorrupt;
  size_t r = ZSTD_decompressDCtx(zstd_thread_dctx(), dst, dst_bytes, src, n);
  if (ZSTD_isError(r) || r != dst_bytes) return kCodecCorrupt;
  return static_cast<long>(r);
}

}  // namespace

extern const Codec kZstdCodec = {CodecId::zstd, "zstd", false, false,
                                 zstd_max, zstd_encode, zstd_decode};

}  // namespace adacomp
