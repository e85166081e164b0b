// Segmented payloads: a large message coded as independent contiguous
// segments, so that several threads can code it and several can decode it
// (ADACOMP_THREADS, docs/codecs.md). A frame whose header carries
// kFrameSegmented holds, as its payload:
//
//   offset 0   u32 count            segments, 2 .. kMaxSegments
//   offset 4   u32 reserved         zero
//   offset 8   count entries of kSegmentEntryBytes:
//                u64 raw_bytes      decoded size of the segment (a whole
//                                   number of the frame kind's elements)
//                u64 coded_bytes    its coded size
//                u8  codec          the frame's codec, or stored
//                u8  reserved[7]    zero
//   then       the coded segments, in order, back to back.
//
// The raw sizes add up to the header's raw_bytes and the coded sizes to the
// rest of the payload; every length is checked before it is used. How many
// segments a frame has is the sender's choice alone: a receiver decodes any
// count with any number of threads of its own, into the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "codec/codec.h"

namespace adacomp {

struct FrameHeader;

constexpr size_t kMaxSegments = 64;
// Below this per segment, handing work to another thread costs more than
// it saves.
constexpr size_t kMinSegmentBytes = 256 * 1024;
constexpr size_t kSegmentTableHead = 8;
constexpr size_t kSegmentEntryBytes = 24;

// Runs task(i) for every i in [0, n) and returns when all have run, on
// whatever threads it has; nullptr runs them in order on the caller.
using ForEach = void (*)(size_t n, const std::function<void(size_t)>& task);

struct Segment {
  uint64_t raw_bytes = 0;
  uint64_t coded_bytes = 0;
  CodecId codec = CodecId::stored;
};

// How many segments a sender on `threads` threads cuts `bytes` into: one per
// thread, each at least kMinSegmentBytes (0 or 1: not segmented).
inline size_t segment_count(size_t threads, size_t bytes) {
  const size_t most = bytes / kMinSegmentBytes;
  return threads < most ? threads : most;
}

// Parses the table at the start of a segmented body of `body_bytes` for a
// frame `h`, filling segs (room for kMaxSegments) and *count; *table_bytes is
// where the coded segments start. Returns nullptr, or why the table is bad.
const char* read_segment_table(const FrameHeader& h, const uint8_t* body, size_t body_bytes,
                               Segment* segs, size_t* count, size_t* table_bytes);

// Codes src as `segments` segments (clamped to [1, kMaxSegments] and to the
// element count; cut on element boundaries, sizes as equal as they go) into
// dst, which holds frame_capacity(src_bytes), as a frame: segmented when
// that is smaller than the stored frame, else stored. One segment gives
// encode_frame's frame. Returns the frame size.
size_t encode_segmented(const Codec& codec, const EncodeParams& p, const void* src,
                        size_t src_bytes, void* dst, size_t segments, ForEach run);

// Decodes a segmented body (decode_body's half for kFrameSegmented) into dst
// (h.raw_bytes). Returns kCodecOk or a CodecStatus.
long decode_segmented(const FrameHeader& h, const uint8_t* body, size_t body_bytes, void* dst,
                      ForEach run);

}  // namespace adacomp
