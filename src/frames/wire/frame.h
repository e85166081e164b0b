// Frame: the unit the library puts on the wire. A fixed 24-byte header says
// how the payload that follows was coded, so the receiver never has to guess
// and ranks never need to agree on a codec in advance. wire/ writes and
// reads every byte layout that travels; the layers above call it.
//
// Layout, little-endian:
//   offset 0   u8 0xAD, u8 0xC0    magic
//   offset 2   u8 version          kFrameVersion
//   offset 3   u8 codec            CodecId (stored: the payload is the message)
//   offset 4   u8 kind             ElemKind
//   offset 5   u8 flags            kFrameInterstep, kFrameSegmented
//   offset 6   u16 check           Fletcher-16 of the header, this field zero
//   offset 8   u64 raw_bytes       the message's size
//   offset 16  u64 payload_bytes   what follows the header:
//     the codec's bytes; or with kFrameSegmented a segment table and the
//     segments (wire/segments.h); or with kFrameInterstep a channel record
//     and the codec's bytes (wire/channel_record.h).
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>

#include "codec/codec.h"
#include "wire/segments.h"

namespace adacomp {

constexpr size_t kFrameHeaderBytes = 24;
// Frames travel as int counts of MPI_BYTE, so this is the largest payload.
constexpr size_t kMaxFramePayload = static_cast<size_t>(INT_MAX) - kFrameHeaderBytes;
constexpr uint8_t kFrameVersion = 1;

// Flag bits of FrameHeader::flags.
// The payload opens with an inter-step channel record
// (wire/channel_record.h) before the coded bytes; point-to-point only.
constexpr uint8_t kFrameInterstep = 1;
// The payload is a segment table and independently coded segments
// (wire/segments.h), written by a sender with ADACOMP_THREADS > 1.
constexpr uint8_t kFrameSegmented = 2;

struct FrameHeader {
  CodecId codec = CodecId::stored;
  ElemKind kind = ElemKind::bytes;
  uint8_t flags = 0;
  uint64_t raw_bytes = 0;      // decoded payload size
  uint64_t payload_bytes = 0;  // coded bytes following the header
};

void write_frame_header(const FrameHeader& h, void* dst);

// Writes the header of a stored frame of `bytes` (elements of `kind`) at
// `frame` (capacity frame_capacity(bytes)) and returns where those bytes go:
// the caller copies or packs them there.
uint8_t* begin_stored_frame(size_t bytes, ElemKind kind, void* frame);

// Validates magic, version, header checksum, codec id and kind, and that the
// payload fits in `available` bytes after the header. Returns false on any
// mismatch.
bool read_frame_header(const void* src, size_t available, FrameHeader* out);

// Writes at `frame` a header alone that announces `raw_bytes` (> 0) and
// that no receiver decodes (a stored payload must be its raw size): a
// failure passed on that still tells the size. Returns kFrameHeaderBytes.
size_t write_undecodable_frame(uint64_t raw_bytes, void* frame);

// The size of the message a frame of `frame_bytes` stands for: its
// header's raw_bytes, or when the header does not verify, the bytes after it
// (what a probe reports; the receive then fails the frame).
size_t frame_raw_bytes(const void* frame, size_t frame_bytes);

// Damages the header at `frame` so that read_frame_header refuses it (the
// tests' fault injection, ADACOMP_FAULT=corrupt-frames).
void damage_frame_header(uint8_t* frame);

// A whole frame as it arrived, `frame_bytes` in all: its header must verify
// and its payload fill exactly the rest. On `ok`, *out is the header and
// *payload where the payload starts.
enum class FrameFault { ok, truncated, bad_header, bad_size };
FrameFault read_whole_frame(const void* frame, size_t frame_bytes, FrameHeader* out,
                            const uint8_t** payload);

// Encodes src into dst as header + payload, falling back to a stored payload
// whenever the codec fails or does not shrink the data. dst must hold
// frame_capacity(src_bytes). Returns the frame size.
size_t frame_capacity(size_t src_bytes);
size_t encode_frame(const Codec& codec, const EncodeParams& p, const void* src, size_t src_bytes,
                    void* dst);

// Decodes `body_bytes` of coded bytes (the payload, or what follows a
// channel record) with h's codec into dst, which must be exactly h.raw_bytes;
// the segments of a segmented body through `run`.
long decode_body(const FrameHeader& h, const void* body, size_t body_bytes, void* dst,
                 ForEach run = nullptr);

// Decodes a whole frame into dst, which must be exactly expected_raw bytes.
// Returns kCodecOk or a negative CodecStatus.
long decode_frame(const void* frame, size_t frame_bytes, void* dst, size_t expected_raw,
                  ForEach run = nullptr);

}  // namespace adacomp
