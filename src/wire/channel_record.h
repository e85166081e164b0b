// The inter-step record: what a point-to-point channel frame (kFrameInterstep,
// wire/frame.h) carries before its coded bytes, so that the receiver applies
// each channel's frames in the sender's order (src/p2p/interstep.h, docs/p2p.md).
//
// Layout, little-endian: id u32, seq u32, flags u8 (bit 0: XOR delta),
// retired count u8, 2 zero bytes, checksum u32 (FNV-1a of the record without
// this field), then (id u32, last_seq u32) per retired channel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace adacomp {

struct Retired {
  uint32_t id;
  uint32_t last_seq;  // the channel's last frame; the receiver drops it after
};

struct ChannelRecord {
  uint32_t id = 0;    // unique in the sending process; never reused
  uint32_t seq = 0;   // 0 opens the channel
  bool xor_prev = false;  // the body codes (message XOR message seq - 1)
  std::vector<Retired> retired;
};

constexpr size_t kMaxRetiredPerFrame = 32;

size_t channel_record_bytes(const ChannelRecord& r);
void write_channel_record(const ChannelRecord& r, uint8_t* dst);
// Reads bytes from the network: validates the checksum and the layout
// within `available` bytes; on success sets *out and *record_bytes.
bool read_channel_record(const uint8_t* src, size_t available, ChannelRecord* out,
                         size_t* record_bytes);

}  // namespace adacomp
