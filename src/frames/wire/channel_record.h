// The inter-step channel frame of point-to-point (src/p2p/interstep.h,
// docs/p2p.md): a frame header with kFrameInterstep (wire/frame.h), then the
// inter-step record, then the message coded by the header's codec, or with
// the record's XOR flag its XOR with the channel's previous message. The
// record lets the receiver apply each channel's frames in the sender's order.
// The header's raw_bytes is the message's size, its payload_bytes the record
// and the coded bytes.
//
// Record layout, little-endian: id u32, seq u32, flags u8 (bit 0: XOR delta),
// retired count u8, 2 zero bytes, checksum u32 (FNV-1a of the record without
// this field), then (id u32, last_seq u32) per retired channel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "codec/codec.h"
#include "wire/frame.h"

namespace adacomp {

struct Retired {
  uint32_t id;
  uint32_t last_seq;  // the channel's last frame; the receiver drops it after
};

struct ChannelRecord {
  uint32_t id = 0;        // unique in the sending process; never reused
  uint32_t seq = 0;       // 0 opens the channel
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

// Codes the `bytes` at src with `codec` as a channel frame carrying record
// `r` into `frame` (capacity frame_capacity(bytes)). The payload must stay
// strictly smaller than the message, since receives post the application's
// buffer for it. Returns the frame size, or 0 when the codec fails or its
// bytes do not fit.
size_t encode_channel_frame(const ChannelRecord& r, const Codec& codec, const EncodeParams& p,
                            const void* src, size_t bytes, uint8_t* frame);

// The payload of a channel frame `h` (kFrameInterstep): its record in *r and
// the coded message in [*coded, *coded + *coded_bytes). False when the
// record does not verify.
bool read_channel_payload(const FrameHeader& h, const uint8_t* payload, ChannelRecord* r,
                          const uint8_t** coded, size_t* coded_bytes);

}  // namespace adacomp
