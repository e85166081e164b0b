// Per-thread zstd contexts (zstd.cpp), shared by the codecs that use zstd
// as a stage. Internal.
#pragma once

#include <zstd.h>

namespace adacomp {

ZSTD_CCtx* zstd_thread_cctx();
ZSTD_DCtx* zstd_thread_dctx();

}  // namespace adacomp
