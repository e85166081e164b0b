#include "wire/segments.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "codec/bits.h"
#include "codec/bytes.h"
#include "wire/frame.h"

namespace adacomp {
namespace {

void run_all(ForEach run, size_t n, const std::function<void(size_t)>& task) {
  if (run) {
    run(n, task);
  } else {
    for (size_t i = 0; i < n; ++i) task(i);
  }
}

size_t table_bytes_for(size_t count) { return kSegmentTableHead + count * kSegmentEntryBytes; }

bool zero(const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i]) return false;
  return true;
}

}  // namespace

const char* read_segment_table(const FrameHeader& h, const uint8_t* body, size_t body_bytes,
                               Segment* segs, size_t* count, size_t* table_bytes) {
  if (body_bytes < kSegmentTableHead) return "segment table truncated";
  const uint32_t n = bits::load<uint32_t>(body);
  if (n < 2 || n > kMaxSegments) return "segment count out of range";
  if (bits::load<uint32_t>(body + 4) != 0) return "segment table reserved bytes not zero";
  const size_t table = table_bytes_for(n);
  if (body_bytes < table) return "segment table truncated";
  const size_t esize = bits::elem_size(h.kind);
  uint64_t raw_left = h.raw_bytes, coded_left = body_bytes - table;
  for (uint32_t i = 0; i < n; ++i) {
    const uint8_t* e = body + kSegmentTableHead + i * kSegmentEntryBytes;
    Segment s;
    s.raw_bytes = bits::load<uint64_t>(e);
    s.coded_bytes = bits::load<uint64_t>(e + 8);
    s.codec = static_cast<CodecId>(e[16]);
    if (s.codec != h.codec && s.codec != CodecId::stored) return "segment codec not the frame's";
    if (!zero(e + 17, 7)) return "segment entry reserved bytes not zero";
    if (s.raw_bytes % esize != 0) return "segment not a whole number of elements";
    if (s.raw_bytes > raw_left) return "segment sizes exceed the frame's raw size";
    if (s.coded_bytes > coded_left) return "segment sizes exceed the payload";
    if (s.codec == CodecId::stored && s.coded_bytes != s.raw_bytes)
      return "stored segment of the wrong size";
    raw_left -= s.raw_bytes;
    coded_left -= s.coded_bytes;
    segs[i] = s;
  }
  if (raw_left != 0) return "segment sizes fall short of the frame's raw size";
  if (coded_left != 0) return "segment sizes fall short of the payload";
  *count = n;
  *table_bytes = table;
  return nullptr;
}

size_t encode_segmented(const Codec& codec, const EncodeParams& p, const void* src,
                        size_t src_bytes, void* dst, size_t segments, ForEach run) {
  const size_t esize = bits::elem_size(p.kind);
  const size_t elems = src_bytes % esize == 0 ? src_bytes / esize : 0;
  const size_t n = std::min({segments, kMaxSegments, elems});
  if (n < 2 || codec.id == CodecId::stored) return encode_frame(codec, p, src, src_bytes, dst);

  const auto* in = static_cast<const uint8_t*>(src);
  uint8_t* body = static_cast<uint8_t*>(dst) + kFrameHeaderBytes;
  const size_t table = table_bytes_for(n);
  std::array<size_t, kMaxSegments + 1> off;  // raw offsets, element-aligned
  for (size_t i = 0; i <= n; ++i) off[i] = elems * i / n * esize;
  // Segment i is coded in place at table + off[i], in the room its raw bytes
  // would take as far as the payload's src_bytes reach (the table shifts
  // the tail out), minus one byte: a segment that does not shrink goes stored.
  std::array<long, kMaxSegments> coded;
  run_all(run, n, [&](size_t i) {
    const size_t start = table + off[i], end = std::min(table + off[i + 1], src_bytes);
    coded[i] = end > start + 1 ? codec.encode(p, in + off[i], off[i + 1] - off[i], body + start,
                                              end - start - 1)
                               : kCodecNoSpace;
  });
  size_t total = table;
  for (size_t i = 0; i < n; ++i)
    total += coded[i] >= 0 ? static_cast<size_t>(coded[i]) : off[i + 1] - off[i];
  if (total >= src_bytes) return encode_frame(*find_codec(CodecId::stored), p, src, src_bytes, dst);

  // Close the gaps, front to back: segment i lands at or before where it was
  // coded, and a stored one ends at or before where segment i + 1 starts.
  bits::store(body, static_cast<uint32_t>(n));
  bits::store(body + 4, uint32_t{0});
  size_t at = table;
  for (size_t i = 0; i < n; ++i) {
    const size_t raw = off[i + 1] - off[i];
    uint8_t* e = body + kSegmentTableHead + i * kSegmentEntryBytes;
    std::memset(e, 0, kSegmentEntryBytes);
    bits::store(e, static_cast<uint64_t>(raw));
    size_t len;
    if (coded[i] >= 0) {
      len = static_cast<size_t>(coded[i]);
      std::memmove(body + at, body + table + off[i], len);
      e[16] = static_cast<uint8_t>(codec.id);
    } else {
      len = raw;
      std::memcpy(body + at, in + off[i], len);
      e[16] = static_cast<uint8_t>(CodecId::stored);
    }
    bits::store(e + 8, static_cast<uint64_t>(len));
    at += len;
  }
  FrameHeader h;
  h.codec = codec.id;
  h.kind = p.kind;
  h.flags = kFrameSegmented;
  h.raw_bytes = src_bytes;
  h.payload_bytes = at;
  write_frame_header(h, dst);
  return kFrameHeaderBytes + at;
}

long decode_segmented(const FrameHeader& h, const uint8_t* body, size_t body_bytes, void* dst,
                      ForEach run) {
  std::array<Segment, kMaxSegments> segs;
  size_t n = 0, table = 0;
  if (read_segment_table(h, body, body_bytes, segs.data(), &n, &table)) return kCodecCorrupt;
  std::array<size_t, kMaxSegments> raw_at, coded_at;
  size_t r = 0, c = table;
  for (size_t i = 0; i < n; ++i) {
    raw_at[i] = r;
    coded_at[i] = c;
    r += segs[i].raw_bytes;
    c += segs[i].coded_bytes;
  }
  std::array<long, kMaxSegments> status;
  auto* out = static_cast<uint8_t*>(dst);
  run_all(run, n, [&](size_t i) {
    status[i] = find_codec(segs[i].codec)
                    ->decode(h.kind, body + coded_at[i], segs[i].coded_bytes, out + raw_at[i],
                             segs[i].raw_bytes);
  });
  for (size_t i = 0; i < n; ++i)
    if (status[i] < 0) return status[i];
  return kCodecOk;
}

}  // namespace adacomp
