// Inter-step coding of point-to-point messages (the CAM scheme): a message
// that repeats on a channel (communicator, peer, tag, size, element kind) may
// be coded as its XOR with the channel's previous message, which both ends
// keep. Nothing here knows MPI; src/p2p/send.cpp and frames.cpp drive it, the
// record's bytes are wire/channel_record.h, and docs/p2p.md describes the
// protocol.
//
// The sender owns every decision and tells the receiver in-band: each frame
// on a channel carries a record (channel id, position, whether it is an XOR
// delta, and the channels the sender has retired). Receivers apply a
// channel's frames strictly in position order, which is the order MPI matched
// them in, whatever order the application completes its requests in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "codec/codec.h"
#include "wire/channel_record.h"

namespace adacomp {

void xor_bytes(uint8_t* dst, const uint8_t* a, const uint8_t* b, size_t n);  // dst = a ^ b

// Reference memory of every channel in the process, each side.
struct ChannelMemory {
  size_t send_bytes, recv_bytes, send_peak, recv_peak;
};
ChannelMemory channel_memory();

// A receiver reported that it lost the reference of channel `id` (0: of a
// channel it could not tell) of this process: the channel's next frame (every
// channel's, for 0) goes without XOR, which restarts it at the receiver.
void report_lost_channel(uint32_t id);

// Sender side of one private communicator. Not thread-safe: the owner locks.
class SendChannels {
 public:
  struct Key {
    int dest, tag;
    uint64_t bytes;
    ElemKind kind;
    bool operator<(const Key& o) const {
      return std::tie(dest, tag, bytes, kind) < std::tie(o.dest, o.tag, o.bytes, o.kind);
    }
  };
  struct Channel {
    uint32_t id = 0;
    uint32_t next_seq = 0;
    std::vector<uint8_t> ref;  // the last message sent; empty before the first
    uint64_t last_use = 0;
    int lost_in_row = 0;  // consecutive messages whose sample chose the value codec
    int dormant = 0;      // messages left to send without the channel
    int naps = 0;         // times it went to sleep
  };
  SendChannels() = default;
  SendChannels(const SendChannels&) = delete;
  SendChannels& operator=(const SendChannels&) = delete;
  ~SendChannels();

  // The channel for `k`, opened if needed within `budget` bytes of reference
  // memory for the whole process (this communicator's least recently used
  // channels are retired to make room). nullptr: send without a channel.
  Channel* use(const Key& k, size_t budget);
  // After a channel frame went out: `data` becomes the reference.
  // `compared`: the message had a reference to be coded against.
  void sent(const Key& k, Channel* c, const uint8_t* data, bool compared, bool interstep_used);
  // Retirement notices owed to `dest`, at most kMaxRetiredPerFrame.
  std::vector<Retired> take_retired(int dest);
  // Notices that could not travel go back to the front of the queue.
  void return_retired(int dest, const std::vector<Retired>& r);

 private:
  void retire(std::map<Key, Channel>::iterator it);
  void restart_lost();
  std::map<Key, Channel> channels_;
  std::unordered_map<int, std::vector<Retired>> owed_;
  uint64_t clock_ = 0;
  size_t lost_seen_ = 0;  // reports of lost channels already applied
};

// Codes `data` (k.bytes) as a channel frame into `out` (capacity
// frame_capacity(k.bytes)): header with kFrameInterstep, record, then the
// message coded by `plain` or its XOR with the previous one coded by a
// byte-plane codec, whichever a sample of this message says takes less
// time: both codings' time on the sample, scaled to the message and paid at
// each end, plus their bytes at `wire_ns_per_byte` (0: the link is unknown,
// the bytes alone decide). Returns the frame size, or 0 when the message goes
// without a channel (none available, or coding does not shrink it);
// `*interstep_used` tells which coding went out.
size_t encode_interstep_frame(SendChannels& chans, const SendChannels::Key& k, size_t budget,
                              const Codec& plain, const EncodeParams& p, const uint8_t* data,
                              uint8_t* out, double wire_ns_per_byte, bool* interstep_used);

// Receiver side of one private communicator. Not thread-safe: the owner locks.
class RecvChannels {
 public:
  enum class Turn { ready, later, invalid };
  RecvChannels() = default;
  RecvChannels(const RecvChannels&) = delete;
  RecvChannels& operator=(const RecvChannels&) = delete;
  ~RecvChannels();

  // Whether frame `r` from `source` is next on its channel.
  Turn turn(int source, const ChannelRecord& r) const;
  enum class Outcome { ok, corrupt, no_reference };
  // Frame `r`, its turn come, whose body was decoded into `data` (`decoded`
  // false: it failed): undoes an XOR against the reference and advances the
  // channel. `no_reference`: an XOR frame whose reference is lost (an earlier
  // frame of the channel failed or was truncated).
  Outcome finish(int source, const ChannelRecord& r, bool decoded, uint8_t* data, size_t bytes);
  // Frame `r` advances its channel: `data` becomes the reference (nullptr:
  // the frame failed; the reference is lost until a frame that is not XOR).
  void applied(int source, const ChannelRecord& r, const uint8_t* data, size_t bytes);
  // A frame from `source` whose record could not be read (truncated): on
  // each channel of `source`, a frame after a gap is then taken at once (its
  // reference lost) rather than waiting for a frame that never comes.
  void lose_source(int source) { ++lost_epoch_[source]; }

 private:
  struct Channel {
    uint32_t next_seq = 0;
    std::vector<uint8_t> ref;
    bool lost = false;
    int64_t retire_after = -1;  // drop once this frame has been applied
    uint32_t epoch = 0;         // the source's losses this channel has seen past
  };
  const std::vector<uint8_t>* reference(int source, const ChannelRecord& r, size_t bytes) const;
  using Id = std::pair<int, uint32_t>;  // (source, channel id)
  std::map<Id, Channel> channels_;
  std::map<int, uint32_t> lost_epoch_;  // source -> frames lost unseen
};

}  // namespace adacomp
