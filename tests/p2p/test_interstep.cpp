// Inter-step channels without MPI (src/p2p/interstep.*): records, a sender and
// a receiver exchanging frames in channel order but interleaved across
// channels, the reference budget with retirement, channels going to sleep,
// each message's coding chosen on its own, and the receiver's turn rules.
// Exits non-zero on any failure.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "codec/codec.h"
#include "p2p/interstep.h"
#include "wire/frame.h"

using namespace adacomp;

namespace {

int g_failures = 0, g_checks = 0;
#define CHECK(cond, ...)                                                            \
  do {                                                                              \
    ++g_checks;                                                                     \
    if (!(cond)) {                                                                  \
      ++g_failures;                                                                 \
      std::fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                            \
      std::fputc('\n', stderr);                                                     \
    }                                                                               \
  } while (0)

void records() {
  ChannelRecord r;
  r.id = 7;
  r.seq = 41;
  r.xor_prev = true;
  r.retired = {{3, 9}, {5, 0}};
  std::vector<uint8_t> buf(channel_record_bytes(r));
  write_channel_record(r, buf.data());
  ChannelRecord back;
  size_t n = 0;
  CHECK(read_channel_record(buf.data(), buf.size(), &back, &n) && n == buf.size() && back.id == 7 &&
            back.seq == 41 && back.xor_prev && back.retired.size() == 2 &&
            back.retired[0].id == 3 && back.retired[0].last_seq == 9 && back.retired[1].id == 5,
        "record round trip");
  CHECK(!read_channel_record(buf.data(), buf.size() - 1, &back, &n), "truncated record accepted");
  for (size_t i = 0; i < buf.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> bad = buf;
      bad[i] ^= static_cast<uint8_t>(1u << bit);
      CHECK(!read_channel_record(bad.data(), bad.size(), &back, &n),
            "record with byte %zu bit %d flipped accepted", i, bit);
    }
}

struct Frame {
  int channel;  // index into the test's channel list
  std::vector<uint8_t> bytes;
  std::vector<double> sent;
};

// Receives one frame as src/p2p/decode_received.cpp does: header, record, turn, decode, finish.
bool receive(RecvChannels& rx, const Frame& f, std::vector<double>* out) {
  FrameHeader h;
  const uint8_t* payload = nullptr;
  if (read_whole_frame(f.bytes.data(), f.bytes.size(), &h, &payload) != FrameFault::ok ||
      !(h.flags & kFrameInterstep))
    return false;
  ChannelRecord rec;
  const uint8_t* coded = nullptr;
  size_t coded_bytes = 0;
  if (!read_channel_payload(h, payload, &rec, &coded, &coded_bytes)) return false;
  if (rx.turn(0, rec) != RecvChannels::Turn::ready) return false;
  out->resize(h.raw_bytes / sizeof(double));
  auto* dst = reinterpret_cast<uint8_t*>(out->data());
  const bool decoded = decode_body(h, coded, coded_bytes, dst) == kCodecOk;
  return rx.finish(0, rec, decoded, dst, h.raw_bytes) == RecvChannels::Outcome::ok;
}

std::vector<double> drift(int channel, int step, size_t n) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = std::fmod(channel * 0.37 + i * 0.7548776662, 1.0) * 100 + step * 1e-6 * (i % 13);
  return v;
}

// Several channels within a reference budget, frames received in the order
// sent or (`reorder`) in another order that keeps each channel's order. The
// receiver holds no more than the budget when it receives in order, and
// again once it has received everything otherwise (until then it also holds
// channels whose retirement travels in a frame it has not received).
void exchange(size_t budget, int channels, bool reorder, bool expect_interstep) {
  const size_t n = 2048, bytes = n * sizeof(double);
  const Codec& plain = *find_codec(CodecId::fpc);
  EncodeParams p;
  p.kind = ElemKind::f64;
  SendChannels tx;
  RecvChannels rx;
  std::vector<std::vector<Frame>> queues(channels);
  int interstep_frames = 0;
  for (int step = 0; step < 40; ++step)
    for (int c = 0; c < channels; ++c) {
      Frame f;
      f.channel = c;
      f.sent = drift(c, step, n);
      f.bytes.resize(frame_capacity(bytes));
      bool used = false;
      size_t len = encode_interstep_frame(tx, {1, c, bytes, ElemKind::f64}, budget, plain, p,
                                          reinterpret_cast<const uint8_t*>(f.sent.data()),
                                          f.bytes.data(), 0, &used);
      CHECK(channel_memory().send_bytes <= budget, "sender holds %zu > budget %zu",
            channel_memory().send_bytes, budget);
      if (!len) continue;  // went without a channel: not this test's business
      f.bytes.resize(len);
      interstep_frames += used;
      queues[c].push_back(std::move(f));
    }
  // Reordered: channels taken last first, a few frames each.
  std::vector<size_t> next(channels, 0);
  std::mt19937 rng(5);
  for (int left = 1; left;) {
    left = 0;
    for (int k = 0; k < channels; ++k) {
      const int c = reorder ? channels - 1 - k : k;
      size_t take = next[c] + (reorder ? 1 + rng() % 3 : 1);
      for (; next[c] < queues[c].size() && next[c] < take; ++next[c]) {
        std::vector<double> got;
        const Frame& f = queues[c][next[c]];
        CHECK(receive(rx, f, &got), "channel %d frame %zu not received", c, next[c]);
        CHECK(got == f.sent, "channel %d frame %zu differs", c, next[c]);
        if (!reorder)
          CHECK(channel_memory().recv_bytes <= budget, "receiver holds %zu, budget %zu",
                channel_memory().recv_bytes, budget);
      }
      left |= next[c] < queues[c].size();
    }
  }
  CHECK((interstep_frames > 0) == expect_interstep, "%d inter-step frames with budget %zu",
        interstep_frames, budget);
  CHECK(channel_memory().recv_bytes <= budget, "receiver holds %zu at the end, budget %zu",
        channel_memory().recv_bytes, budget);
}

// Independent random values each message: XOR never wins, so the channel
// retires itself after kLostToSleep messages and stops holding its reference.
void sleeping_channel() {
  const size_t n = 4096, bytes = n * sizeof(double);
  const size_t before = channel_memory().send_bytes;
  SendChannels tx;
  std::mt19937_64 rng(9);
  std::vector<double> v(n);
  std::vector<uint8_t> out(frame_capacity(bytes));
  EncodeParams p;
  p.kind = ElemKind::f64;
  for (int m = 0; m < 140; ++m) {
    // Smooth, so the value codec shrinks it; a fresh phase each time.
    const double phase = std::uniform_real_distribution<double>(0, 6.28)(rng);
    for (size_t i = 0; i < n; ++i) v[i] = std::sin(i * 0.001 + phase);
    bool used = false;
    encode_interstep_frame(tx, {0, 1, bytes, ElemKind::f64}, 1 << 20, *find_codec(CodecId::fpc), p,
                           reinterpret_cast<const uint8_t*>(v.data()), out.data(), 0, &used);
  }
  CHECK(channel_memory().send_bytes == before, "sleeping channel still holds %zu bytes",
        channel_memory().send_bytes - before);
}

// A channel whose messages alternate: a repeat of the message before (a
// halo resent unchanged), then an unrelated field. Each message is judged
// on its own sample: every repeat goes as an XOR (all zeros), every new
// field by the value codec, and the channel never sleeps. On a link slow
// enough that the bytes decide whatever the coding times on this machine
// (1 us a byte: under sanitizers the XOR's pass costs more than its bytes
// save at 1 Gbit/s), and with bytes alone (link unknown).
void alternating_messages() {
  const size_t n = 16384, bytes = n * sizeof(double);
  for (double wire_ns_per_byte : {1000.0, 0.0}) {
    SendChannels tx;
    std::vector<double> v(n);
    std::vector<uint8_t> out(frame_capacity(bytes));
    EncodeParams p;
    p.kind = ElemKind::f64;
    for (int m = 0; m < 40; ++m) {
      if (m % 2 == 0)
        for (size_t i = 0; i < n; ++i) v[i] = 300 + 50 * std::sin(i * 0.001 + 0.77 * m);
      bool used = false;
      const size_t len = encode_interstep_frame(
          tx, {0, 1, bytes, ElemKind::f64}, 1 << 24, *find_codec(CodecId::bitplane), p,
          reinterpret_cast<const uint8_t*>(v.data()), out.data(), wire_ns_per_byte, &used);
      CHECK(len > 0, "message %d went without its channel (%g ns/byte)", m, wire_ns_per_byte);
      CHECK(used == (m % 2 == 1), "message %d: XOR %d, a %s (%g ns/byte)", m, used,
            m % 2 ? "repeat" : "new field", wire_ns_per_byte);
    }
  }
}

void turns() {
  RecvChannels rx;
  ChannelRecord r0, r2;
  r0.id = r2.id = 4;
  r2.seq = 2;
  CHECK(rx.turn(0, r0) == RecvChannels::Turn::ready, "first frame not ready");
  CHECK(rx.turn(0, r2) == RecvChannels::Turn::later, "third frame not 'later'");
  uint8_t data[16] = {1, 2, 3};
  rx.applied(0, r0, data, sizeof data);
  CHECK(rx.turn(0, r0) == RecvChannels::Turn::invalid, "a frame applied twice");
  // Frame 1 lost unseen (no record): frame 2 is taken at once, and an XOR
  // frame then has no reference, while a plain one restarts the channel.
  rx.lose_source(0);
  CHECK(rx.turn(0, r2) == RecvChannels::Turn::ready, "waits for a frame known lost");
  r2.xor_prev = true;
  CHECK(rx.finish(0, r2, true, data, sizeof data) == RecvChannels::Outcome::no_reference,
        "XOR across a lost frame accepted");
  ChannelRecord r3 = r0;
  r3.seq = 3;
  CHECK(rx.turn(0, r3) == RecvChannels::Turn::ready, "next frame after the loss not ready");
  CHECK(rx.finish(0, r3, true, data, sizeof data) == RecvChannels::Outcome::ok,
        "a plain frame does not restart the channel");
  ChannelRecord r5 = r0;
  r5.seq = 5;
  CHECK(rx.turn(0, r5) == RecvChannels::Turn::later, "after recovery a gap waits again");
  ChannelRecord r4 = r0;
  r4.seq = 4;
  r4.xor_prev = true;
  CHECK(rx.finish(0, r4, true, data, sizeof data) == RecvChannels::Outcome::ok,
        "XOR against the restarted reference refused");
  // A frame that failed (truncated with its record): the reference is lost.
  ChannelRecord r6 = r4;
  r6.seq = 5;
  rx.applied(0, r6, nullptr, sizeof data);
  r6.seq = 6;
  CHECK(rx.finish(0, r6, true, data, sizeof data) == RecvChannels::Outcome::no_reference,
        "XOR against a lost reference accepted");
}

}  // namespace

int main() {
  records();
  for (bool reorder : {false, true}) {
    exchange(1 << 24, 3, reorder, true);  // room for every channel
    // Two of five round-robin channels fit: every message retires the least
    // recently used channel and opens a new one, so no XOR, and all correct.
    exchange(2 * 2048 * sizeof(double), 5, reorder, false);
  }
  sleeping_channel();
  alternating_messages();
  turns();
  std::printf("test_channel: %d checks, %d failed\n", g_checks, g_failures);
  return g_failures == 0 && g_checks > 0 ? 0 : 1;
}
