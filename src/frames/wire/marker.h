// The marker of a coded point-to-point message (docs/p2p.md, "Wire
// convention"): one fixed size, sent on the application's communicator with
// the application's tag, announcing a body (a frame) that follows on the
// library's world communicator under a tag made of `sequence`.
//
// Layout, little-endian, kMarkerBytes in all: magic u32, sequence u32, body
// bytes u64, raw bytes u64, checksum u32 (FNV-1a of the 24 bytes before it),
// then zeros.
#pragma once

#include <cstddef>
#include <cstdint>

namespace adacomp {

// Why 368 (16 x 23): a message of exactly this size must go as a marker and
// a stored body, so it should be one applications rarely send (not a power
// of two nor a round count: 46 doubles, 92 ints); well below the smallest
// coded message (1 KB), so any receive that can take a coded message can
// take its marker; a multiple of 16, so it ends on an element of every
// predefined type up to 16 bytes (MPICH fails a receive into a derived
// datatype that ends part-way through a basic element).
constexpr size_t kMarkerBytes = 368;

struct Marker {
  uint32_t sequence = 0;
  uint64_t body_bytes = 0;  // the frame that follows
  uint64_t raw_bytes = 0;   // the application's message
};

void write_marker(const Marker& m, uint8_t* dst);  // kMarkerBytes
// Validates magic, checksum and that the body is at least a frame header.
bool read_marker(const uint8_t* src, Marker* out);

}  // namespace adacomp
