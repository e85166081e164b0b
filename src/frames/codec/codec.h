// One interface for every payload codec. Codecs are plain functions over
// byte buffers with explicit capacities; nothing here knows about MPI.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace adacomp {

// How a payload is interpreted. Float codecs only accept f32/f64.
enum class ElemKind : uint8_t { bytes = 0, f32 = 1, f64 = 2 };

// Wire ids: stable forever, they travel in frame headers.
enum class CodecId : uint8_t {
  stored = 0,  // raw copy; used whenever coding does not shrink the payload
  zstd = 1,
  lz4 = 2,
  fpc = 3,          // lossless float: FCM/DFCM prediction + leading-zero coding
  blosc = 4,        // lossless: byte shuffle + lz4 through libblosc
  quant = 5,        // lossy, error-bounded: prediction + quantisation
  zfp = 6,          // lossy, error-bounded: libzfp fixed accuracy
  truncate = 7,     // lossy: drop low mantissa bits (error-bounded under abs_bound)
  to_f32 = 8,       // lossy: doubles sent as floats (error-bounded under abs_bound)
  bitplane = 9,     // lossless float: integer differences + bit planes (SIMD)
  quant_fast = 10,  // lossy, error-bounded: quantisation + bit planes (SIMD)
  quant_zstd = 11,  // lossy, error-bounded: quantisation + 4-bit codes + zstd
};

// Negative return values of encode/decode.
enum CodecStatus : long {
  kCodecOk = 0,
  kCodecNoSpace = -1,      // dst capacity too small (encode: caller sends stored)
  kCodecCorrupt = -2,      // input frame malformed or truncated
  kCodecUnsupported = -3,  // codec cannot handle this kind or parameter
  kCodecInternal = -4,     // library error
};

struct EncodeParams {
  ElemKind kind = ElemKind::bytes;
  int zstd_level = 1;  // zstd, and quant_zstd (at least 3)
  // Lossy codecs: guaranteed max |decoded - original| per element. Lossless
  // codecs ignore it. truncate / to_f32 hold it when > 0 (else they have
  // only their relative error).
  double abs_bound = 0.0;
  // truncate: number of low mantissa bits dropped (without abs_bound; under
  // it the codec drops as many as the bound allows).
  int truncate_bits = 32;
  // fpc: log2 of each predictor table's entries (clamped to [6, 16]; small
  // messages use smaller tables). Stored in the payload.
  int fpc_table_bits = 10;
  // truncate / to_f32: lossless codec applied to the reduced values
  // (stored = none: values are just bit-packed). Stored in the payload.
  CodecId lossy_inner = CodecId::stored;
};

struct Codec {
  CodecId id;
  const char* name;
  bool lossy;
  bool float_only;  // accepts only ElemKind::f32 / f64
  // Upper bound of encode() output for src_bytes of input.
  size_t (*max_encoded)(size_t src_bytes);
  // Returns bytes written to dst (<= cap) or a CodecStatus.
  long (*encode)(const EncodeParams& p, const void* src, size_t src_bytes, void* dst, size_t cap);
  // Decodes exactly dst_bytes of output; a frame that does not decode to
  // exactly that many bytes is kCodecCorrupt. Must never read or write out
  // of bounds, whatever the input.
  long (*decode)(ElemKind kind, const void* src, size_t src_bytes, void* dst, size_t dst_bytes);
};

const Codec* find_codec(CodecId id);
const Codec* find_codec(std::string_view name);
// What a CodecStatus means, for error messages ("codec status -2: ...").
const char* codec_status_string(long status);

// The SIMD codecs (bitplane, quant_fast, quant_zstd) pick AVX2 at run time
// where the CPU has it; every path writes the same bytes. Forcing the
// portable path is for tests and benchmarks (process-wide).
void codec_force_portable(bool on);
bool codec_simd_active();

}  // namespace adacomp
