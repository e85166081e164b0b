#include <zstd.h>
#include <zstd_errors.h>

#include "codec/codec.h"
#include "codec/zstd_ctx.h"

namespace adacomp {

namespace {

// Contexts are reused per thread: creating one per call costs more than
// compressing a small message.
template <typename Ctx, Ctx* (*create)(), size_t (*destroy)(Ctx*)>
Ctx* thread_context() {
  thread_local struct Holder {
    Ctx* ctx = create();
    ~Holder() { destroy(ctx); }
  } h;
  return h.ctx;
}

}  // namespace

ZSTD_CCtx* zstd_thread_cctx() {
  return thread_context<ZSTD_CCtx, ZSTD_createCCtx, ZSTD_freeCCtx>();
}
ZSTD_DCtx* zstd_thread_dctx() {
  return thread_context<ZSTD_DCtx, ZSTD_createDCtx, ZSTD_freeDCtx>();
}

namespace {

size_t zstd_max(size_t n) { return ZSTD_compressBound(n); }

long zstd_encode(const EncodeParams& p, const void* src, size_t n, void* dst, size_t cap) {
  size_t r = ZSTD_compressCCtx(zstd_thread_cctx(), dst, cap, src, n, p.zstd_level);
  if (ZSTD_isError(r))
    return ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall ? kCodecNoSpace : kCodecInternal;
  return static_cast<long>(r);
}

long zstd_decode(ElemKind, const void* src, size_t n, void* dst, size_t dst_bytes) {
  // The frame must declare exactly the size we expect before we trust it.
  unsigned long long declared = ZSTD_getFrameContentSize(src, n);
  if (declared != dst_bytes) return kCodecCorrupt;
  size_t r = ZSTD_decompressDCtx(zstd_thread_dctx(), dst, dst_bytes, src, n);
  if (ZSTD_isError(r) || r != dst_bytes) return kCodecCorrupt;
  return static_cast<long>(r);
}

}  // namespace

extern const Codec kZstdCodec = {CodecId::zstd, "zstd",      false,      false,
                                 zstd_max,      zstd_encode, zstd_decode};

}  // namespace adacomp
