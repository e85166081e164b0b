#include "p2p/interstep.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>

#include "runtime/scratch.h"

namespace adacomp {
namespace {

// How many messages in a row whose sample chose the value codec send a
// channel to sleep (its references cost a copy a message at each end for
// nothing), and for how many messages it then sleeps: kDormantMessages the
// first time, twice as long each time after, up to 2^kLongestNap times.
constexpr int kLostToSleep = 32;
constexpr int kDormantMessages = 64;
constexpr int kLongestNap = 4;
// The sample a message's coding is chosen on: one block of kSampleBlock
// bytes per 16 such blocks of the message (64 KB), at least one and at most
// kSampleBlocks, spread evenly over it (1/16 of a 64 KB message, 1/64 of
// 4 MB).
constexpr size_t kSampleBlock = 4096;
constexpr size_t kSampleBlocks = 16;
// The share of the value codec's cost the XOR must come under on the
// sample. A sample of scattered blocks estimates the two codings' sizes
// with a bias of a few percent (measured: a 4 MB diffusing heat field, the
// XOR 4% larger on the whole message, a little smaller on the sample), and
// near a tie the value codec is the better bet: it needs no reference.
constexpr double kInterstepMargin = 0.9;

struct Meter {
  std::atomic<size_t> bytes{0}, peak{0};
  void add(size_t n) {
    size_t now = bytes.fetch_add(n, std::memory_order_relaxed) + n;
    size_t p = peak.load(std::memory_order_relaxed);
    while (now > p && !peak.compare_exchange_weak(p, now, std::memory_order_relaxed)) {
    }
  }
  void sub(size_t n) { bytes.fetch_sub(n, std::memory_order_relaxed); }
};
Meter g_send, g_recv;

std::atomic<uint32_t> g_next_id{1};
// Reports of lost channels, in arrival order; each SendChannels applies the
// ones it has not seen yet.
std::mutex g_lost_mu;
std::vector<uint32_t> g_lost;
std::atomic<size_t> g_lost_count{0};

}  // namespace

void report_lost_channel(uint32_t id) {
  std::lock_guard<std::mutex> g(g_lost_mu);
  g_lost.push_back(id);
  g_lost_count.store(g_lost.size(), std::memory_order_release);
}

void xor_bytes(uint8_t* dst, const uint8_t* a, const uint8_t* b, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a + i, 8);
    std::memcpy(&y, b + i, 8);
    x ^= y;
    std::memcpy(dst + i, &x, 8);
  }
  for (; i < n; ++i) dst[i] = a[i] ^ b[i];
}

ChannelMemory channel_memory() {
  return {g_send.bytes.load(), g_recv.bytes.load(), g_send.peak.load(), g_recv.peak.load()};
}

// ---- sender ---------------------------------------------------------------

SendChannels::~SendChannels() {
  for (auto& [k, c] : channels_)
    if (c.id) g_send.sub(k.bytes);
}

// Closes an open channel: its reference memory is released and the receiver
// is told (on the next channel frame to it) to drop its copy after the
// channel's last frame.
void SendChannels::retire(std::map<Key, Channel>::iterator it) {
  Channel& c = it->second;
  if (c.next_seq > 0) owed_[it->first.dest].push_back({c.id, c.next_seq - 1});
  g_send.sub(it->first.bytes);
  c.id = 0;
  c.ref = {};
  c.ref.shrink_to_fit();
}

// Channels whose receiver lost the reference: the next frame goes without
// XOR (the reference memory stays reserved).
void SendChannels::restart_lost() {
  std::lock_guard<std::mutex> g(g_lost_mu);
  for (; lost_seen_ < g_lost.size(); ++lost_seen_)
    for (auto& [k, c] : channels_)
      if (c.id && (g_lost[lost_seen_] == 0 || g_lost[lost_seen_] == c.id)) c.ref.clear();
}

SendChannels::Channel* SendChannels::use(const Key& k, size_t budget) {
  ++clock_;
  if (lost_seen_ < g_lost_count.load(std::memory_order_acquire)) restart_lost();
  auto it = channels_.find(k);
  if (it != channels_.end() && it->second.dormant > 0) {
    --it->second.dormant;
    return nullptr;
  }
  if (it != channels_.end() && it->second.id) {
    it->second.last_use = clock_;
    return &it->second;
  }
  if (k.bytes > budget) return nullptr;
  // Room for the new reference: retire this communicator's least recently
  // used channels (the others' owners retire their own).
  while (g_send.bytes.load(std::memory_order_relaxed) + k.bytes > budget) {
    auto lru = channels_.end();
    for (auto j = channels_.begin(); j != channels_.end(); ++j)
      if (j->second.id && (lru == channels_.end() || j->second.last_use < lru->second.last_use))
        lru = j;
    if (lru == channels_.end()) return nullptr;
    retire(lru);
    channels_.erase(lru);
  }
  Channel& c = channels_[k];
  const int naps = c.naps;  // a channel reopened after sleeping keeps its count
  c = Channel{};
  c.naps = naps;
  c.id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  c.last_use = clock_;
  g_send.add(k.bytes);
  return &c;
}

void SendChannels::sent(const Key& k, Channel* c, const uint8_t* data, bool compared,
                        bool interstep_used) {
  c->ref.assign(data, data + k.bytes);
  ++c->next_seq;
  if (!compared) return;
  c->lost_in_row = interstep_used ? 0 : c->lost_in_row + 1;
  if (c->lost_in_row >= kLostToSleep) {
    // Data without inter-step similarity: stop paying for the references.
    retire(channels_.find(k));
    c->dormant = kDormantMessages << std::min(c->naps++, kLongestNap);
  }
}

std::vector<Retired> SendChannels::take_retired(int dest) {
  auto it = owed_.find(dest);
  if (it == owed_.end()) return {};
  std::vector<Retired>& q = it->second;
  const size_t n = std::min(q.size(), kMaxRetiredPerFrame);
  std::vector<Retired> out(q.begin(), q.begin() + static_cast<long>(n));
  q.erase(q.begin(), q.begin() + static_cast<long>(n));
  if (q.empty()) owed_.erase(it);
  return out;
}

void SendChannels::return_retired(int dest, const std::vector<Retired>& r) {
  if (r.empty()) return;
  std::vector<Retired>& q = owed_[dest];
  q.insert(q.begin(), r.begin(), r.end());
}

namespace {

// Whether this message, coded as its XOR with the reference by `delta`,
// takes less time than coded by `plain`, judged on a sample of it coded
// both ways: each coding's time (paid at both ends: the receiver decodes,
// and XORs back, at about the sender's speed) and its bytes on the wire,
// scaled to the message. Every message is judged, not one now and then: a
// channel's messages may alternate between kinds (a repeat, then a step's
// change), and a choice made on one kind would code the other wrongly.
bool interstep_pays(const Codec& plain, const Codec& delta, const EncodeParams& p,
                    const uint8_t* data, const uint8_t* ref, size_t bytes,
                    double wire_ns_per_byte) {
  const size_t block = std::min(kSampleBlock, bytes);
  const size_t blocks = std::clamp<size_t>(bytes / (16 * kSampleBlock), 1, kSampleBlocks);
  const size_t sample = blocks * block;
  // The sample's blocks of the message, of the reference's XOR with them,
  // then room for a coding of either (the accumulator, which the XOR of the
  // whole message takes only after this choice).
  uint8_t* values = scratch(ScratchSlot::accumulator, 4 * sample);
  uint8_t *residual = values + sample, *coded = residual + sample;
  for (size_t i = 0; i < blocks; ++i) {
    size_t at = blocks == 1 ? 0 : (bytes - block) / (blocks - 1) * i;
    at -= at % 16;  // on an element of every kind
    std::memcpy(values + i * block, data + at, block);
    std::memcpy(residual + i * block, ref + at, block);
  }
  double cost[2] = {0, 0};  // plain, XOR: ns of coding and wire
  for (int way = 0; way < 2; ++way) {
    const auto start = std::chrono::steady_clock::now();
    if (way == 1) xor_bytes(residual, values, residual, sample);
    const long n = (way ? delta : plain).encode(p, way ? residual : values, sample, coded,
                                                2 * sample);
    const double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    const double wire = n < 0 ? static_cast<double>(sample) : static_cast<double>(n);
    cost[way] = wire_ns_per_byte > 0 ? 2 * ns + wire * wire_ns_per_byte : wire;
  }
  return cost[1] < kInterstepMargin * cost[0];
}

}  // namespace

size_t encode_interstep_frame(SendChannels& chans, const SendChannels::Key& k, size_t budget,
                              const Codec& plain, const EncodeParams& p, const uint8_t* data,
                              uint8_t* out, double wire_ns_per_byte, bool* interstep_used) {
  SendChannels::Channel* c = chans.use(k, budget);
  if (!c) return 0;
  ChannelRecord rec;
  rec.id = c->id;
  rec.seq = c->next_seq;
  rec.retired = chans.take_retired(k.dest);
  const size_t bytes = k.bytes;
  // XOR residuals of floats are mostly zero high bytes: a byte-plane shuffle
  // codes them better than a value predictor.
  const Codec& delta = *find_codec(k.kind == ElemKind::bytes ? CodecId::zstd : CodecId::blosc);
  const bool compared = !c->ref.empty();
  size_t n = 0;
  if (compared && interstep_pays(plain, delta, p, data, c->ref.data(), bytes, wire_ns_per_byte)) {
    uint8_t* residual = scratch(ScratchSlot::accumulator, bytes);
    xor_bytes(residual, data, c->ref.data(), bytes);
    rec.xor_prev = true;
    n = encode_channel_frame(rec, delta, p, residual, bytes, out);
  }
  const bool used = n != 0;
  if (!used) {
    rec.xor_prev = false;
    n = encode_channel_frame(rec, plain, p, data, bytes, out);
  }
  if (!n) {
    chans.return_retired(k.dest, rec.retired);
    return 0;
  }
  chans.sent(k, c, data, compared, used);
  *interstep_used = used;
  return n;
}

// ---- receiver -------------------------------------------------------------

RecvChannels::~RecvChannels() {
  for (auto& [id, c] : channels_) g_recv.sub(c.ref.size());
}

RecvChannels::Turn RecvChannels::turn(int source, const ChannelRecord& r) const {
  auto it = channels_.find({source, r.id});
  const uint32_t next = it == channels_.end() ? 0 : it->second.next_seq;
  if (r.seq == next) return Turn::ready;
  if (r.seq < next) return Turn::invalid;
  auto lost = lost_epoch_.find(source);
  const uint32_t seen = it == channels_.end() ? 0 : it->second.epoch;
  return lost != lost_epoch_.end() && seen < lost->second ? Turn::ready : Turn::later;
}

const std::vector<uint8_t>* RecvChannels::reference(int source, const ChannelRecord& r,
                                                    size_t bytes) const {
  auto it = channels_.find({source, r.id});
  if (it == channels_.end() || it->second.lost || it->second.next_seq != r.seq ||
      it->second.ref.size() != bytes)
    return nullptr;
  return &it->second.ref;
}

RecvChannels::Outcome RecvChannels::finish(int source, const ChannelRecord& r, bool decoded,
                                           uint8_t* data, size_t bytes) {
  Outcome out = decoded ? Outcome::ok : Outcome::corrupt;
  if (decoded && r.xor_prev) {
    const std::vector<uint8_t>* ref = reference(source, r, bytes);
    if (ref)
      xor_bytes(data, data, ref->data(), bytes);
    else
      out = Outcome::no_reference;
  }
  applied(source, r, out == Outcome::ok ? data : nullptr, bytes);
  return out;
}

void RecvChannels::applied(int source, const ChannelRecord& r, const uint8_t* data, size_t bytes) {
  auto drop = [](std::map<Id, Channel>& m, std::map<Id, Channel>::iterator it) {
    g_recv.sub(it->second.ref.size());
    m.erase(it);
  };
  // Retirements first: the frame that brings a new reference is the one
  // that made the sender drop old ones.
  for (const Retired& t : r.retired) {
    auto j = channels_.try_emplace({source, t.id}).first;
    if (j->second.next_seq > t.last_seq)
      drop(channels_, j);
    else
      j->second.retire_after = t.last_seq;  // its last frames are still to come
  }
  auto it = channels_.try_emplace({source, r.id}).first;
  Channel& c = it->second;
  c.next_seq = r.seq + 1;
  g_recv.sub(c.ref.size());
  if (data)
    c.ref.assign(data, data + bytes);
  else
    c.ref = {};
  g_recv.add(c.ref.size());
  c.lost = data == nullptr;
  auto lost = lost_epoch_.find(source);
  c.epoch = lost == lost_epoch_.end() ? 0 : lost->second;
  if (c.retire_after >= 0 && r.seq >= c.retire_after) drop(channels_, it);
}

}  // namespace adacomp
