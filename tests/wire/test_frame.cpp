// Frame headers without MPI: write/read round trips, and every way a
// damaged header must be refused before any length in it is trusted; whole
// frames: the stored fallback and decode_frame's own checks; stored frames
// headed for a caller's bytes, whole frames as they arrive, and inter-step
// channel frames (wire/channel_record.h) coded and split again.
#include <cstring>
#include <vector>

#include "codec/bytes.h"
#include "unit.h"
#include "wire/channel_record.h"
#include "wire/frame.h"

using namespace adacomp;

namespace {

using Header = std::vector<uint8_t>;

Header written(const FrameHeader& h, size_t payload_room) {
  Header b(kFrameHeaderBytes + payload_room);
  write_frame_header(h, b.data());
  return b;
}

bool same(const FrameHeader& a, const FrameHeader& b) {
  return a.codec == b.codec && a.kind == b.kind && a.flags == b.flags &&
         a.raw_bytes == b.raw_bytes && a.payload_bytes == b.payload_bytes;
}

// Fletcher-16 as the writer computes it, so a test can forge a header whose
// checksum is right and whose field is wrong.
void reseal(uint8_t* h) {
  uint32_t a = 0, b = 0;
  for (size_t i = 0; i < kFrameHeaderBytes; ++i) {
    const uint8_t byte = (i == 6 || i == 7) ? 0 : h[i];
    a = (a + byte) % 255;
    b = (b + a) % 255;
  }
  bits::store(h + 6, static_cast<uint16_t>((b << 8) | a));
}

bool reads(const Header& b, size_t available) {
  FrameHeader out;
  return read_frame_header(b.data(), available, &out);
}

void round_trips() {
  const uint64_t sizes[] = {0, 1, 255, 256, 65536, 0xFFFFFFFFull, 1ull << 40, ~0ull};
  for (CodecId codec : {CodecId::stored, CodecId::zstd, CodecId::fpc, CodecId::quant_zstd})
    for (ElemKind kind : {ElemKind::bytes, ElemKind::f32, ElemKind::f64})
      for (uint8_t flags : {uint8_t{0}, kFrameInterstep})
        for (uint64_t raw : sizes) {
          FrameHeader h;
          h.codec = codec, h.kind = kind, h.flags = flags, h.raw_bytes = raw;
          h.payload_bytes = raw % 97;
          Header b = written(h, 96);
          FrameHeader out;
          EXPECT(read_frame_header(b.data(), b.size(), &out) && same(h, out));
          // Exactly the payload present is enough; one byte less is not.
          EXPECT(reads(b, kFrameHeaderBytes + h.payload_bytes));
          if (h.payload_bytes) EXPECT(!reads(b, kFrameHeaderBytes + h.payload_bytes - 1));
        }
  // Little-endian on the wire, whatever the host.
  FrameHeader h;
  h.raw_bytes = 0x0102030405060708ull;
  Header b = written(h, 0);
  EXPECT(b[8] == 0x08 && b[15] == 0x01);
}

void rejections() {
  FrameHeader h;
  h.codec = CodecId::zstd, h.kind = ElemKind::f64, h.raw_bytes = 1000, h.payload_bytes = 10;
  const Header good = written(h, 10);
  EXPECT(reads(good, good.size()));
  for (size_t n = 0; n < kFrameHeaderBytes; ++n) EXPECT(!reads(good, n));  // short
  // A single damaged byte fails the checksum (or a field check). Not every
  // one: Fletcher-16 sums mod 255, so a byte turned from 0x00 to 0xFF goes
  // unseen (in raw_bytes, the decode to exactly that size then fails).
  for (size_t i = 0; i < kFrameHeaderBytes; ++i)
    for (uint8_t x : {0x01, 0x80, 0x55, 0xFE}) {
      Header b = good;
      b[i] ^= x;
      EXPECT(!reads(b, b.size()));
    }
  // Each field wrong under a correct checksum.
  auto forged = [&](size_t at, uint8_t value) {
    Header b = good;
    b[at] = value;
    reseal(b.data());
    return reads(b, b.size());
  };
  EXPECT(!forged(0, 0xAE));               // magic
  EXPECT(!forged(1, 0x00));               // magic
  EXPECT(!forged(2, kFrameVersion + 1));  // version
  EXPECT(!forged(3, 12));                 // codec id past the last one
  EXPECT(!forged(3, 0xFF));
  EXPECT(!forged(4, 3));  // kind past f64
  EXPECT(!forged(5, 4));  // unknown flag bit
  EXPECT(!forged(5, 0x80));
  EXPECT(forged(5, kFrameInterstep));  // the known flags
  EXPECT(forged(5, kFrameSegmented));
  for (uint8_t id = 0; id < 12; ++id)  // every registered codec reads
    EXPECT(forged(3, id) == (find_codec(static_cast<CodecId>(id)) != nullptr));
  // A payload longer than what arrived, including lengths that would wrap.
  for (uint64_t len : {uint64_t{11}, uint64_t{1} << 32, ~uint64_t{0}, ~uint64_t{0} - 23}) {
    Header b = good;
    bits::store(b.data() + 16, len);
    reseal(b.data());
    EXPECT(!reads(b, b.size()));
  }
}

void frames() {
  std::vector<double> v(4096);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 1.0 + i * 0.25;
  const size_t bytes = v.size() * sizeof(double);
  EncodeParams p;
  p.kind = ElemKind::f64;
  std::vector<uint8_t> frame(frame_capacity(bytes));
  const size_t n = encode_frame(*find_codec(CodecId::fpc), p, v.data(), bytes, frame.data());
  FrameHeader h;
  EXPECT(read_frame_header(frame.data(), n, &h) && h.codec == CodecId::fpc && n < bytes);
  std::vector<double> back(v.size());
  EXPECT(decode_frame(frame.data(), n, back.data(), bytes) == kCodecOk && back == v);
  // decode_frame's own checks: expected size, channel flag, trailing bytes.
  EXPECT(decode_frame(frame.data(), n, back.data(), bytes - 8) == kCodecCorrupt);
  std::vector<uint8_t> longer(frame.begin(), frame.begin() + n);
  longer.push_back(0);
  EXPECT(decode_frame(longer.data(), longer.size(), back.data(), bytes) == kCodecCorrupt);
  h.flags = kFrameInterstep;
  write_frame_header(h, frame.data());
  EXPECT(decode_frame(frame.data(), n, back.data(), bytes) == kCodecCorrupt);
  // Incompressible bytes, and an empty message, go stored.
  std::vector<uint8_t> noise(1000);
  uint32_t x = 1;
  for (uint8_t& b : noise) b = static_cast<uint8_t>((x = x * 1664525u + 1013904223u) >> 24);
  EncodeParams raw;
  std::vector<uint8_t> f2(frame_capacity(noise.size()));
  const size_t n2 =
      encode_frame(*find_codec(CodecId::zstd), raw, noise.data(), noise.size(), f2.data());
  EXPECT(n2 == kFrameHeaderBytes + noise.size() && read_frame_header(f2.data(), n2, &h) &&
         h.codec == CodecId::stored);
  std::vector<uint8_t> out(noise.size());
  EXPECT(decode_frame(f2.data(), n2, out.data(), out.size()) == kCodecOk && out == noise);
  EXPECT(encode_frame(*find_codec(CodecId::zstd), raw, nullptr, 0, f2.data()) == kFrameHeaderBytes);
  EXPECT(decode_frame(f2.data(), kFrameHeaderBytes, nullptr, 0) == kCodecOk);
}

void stored_and_channel_frames() {
  // A stored frame headed for bytes the caller writes.
  std::vector<uint8_t> f(frame_capacity(40));
  uint8_t* at = begin_stored_frame(40, ElemKind::f32, f.data());
  std::memset(at, 7, 40);
  FrameHeader h;
  const uint8_t* payload = nullptr;
  EXPECT(at == f.data() + kFrameHeaderBytes);
  EXPECT(read_whole_frame(f.data(), f.size(), &h, &payload) == FrameFault::ok && payload == at &&
         h.codec == CodecId::stored && h.kind == ElemKind::f32 && h.raw_bytes == 40 &&
         h.payload_bytes == 40 && h.flags == 0);
  // Whole frames: cut, damaged, with a byte too many.
  EXPECT(read_whole_frame(f.data(), kFrameHeaderBytes - 1, &h, &payload) == FrameFault::truncated);
  EXPECT(read_whole_frame(f.data(), f.size() - 1, &h, &payload) == FrameFault::bad_header);
  // The size a probe reports: the header's, or what follows a bad one.
  EXPECT(frame_raw_bytes(f.data(), f.size()) == 40);
  EXPECT(frame_raw_bytes(f.data(), f.size() - 1) == 39);
  EXPECT(frame_raw_bytes(f.data(), kFrameHeaderBytes - 1) == 0);
  f.push_back(0);
  EXPECT(read_whole_frame(f.data(), f.size(), &h, &payload) == FrameFault::bad_size);
  f.pop_back();
  // A header alone, announcing more than it carries: never decoded.
  std::vector<uint8_t> announce(kFrameHeaderBytes);
  EXPECT(write_undecodable_frame(41, announce.data()) == kFrameHeaderBytes);
  EXPECT(read_whole_frame(announce.data(), announce.size(), &h, &payload) == FrameFault::ok &&
         h.raw_bytes == 41 && h.payload_bytes == 0);
  std::vector<uint8_t> into(41);
  EXPECT(decode_frame(announce.data(), announce.size(), into.data(), into.size()) != kCodecOk);
  damage_frame_header(f.data());
  EXPECT(read_whole_frame(f.data(), f.size(), &h, &payload) == FrameFault::bad_header);

  // A channel frame: header, record, coded message, split again.
  std::vector<double> v(2048);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 3.0 + i * 0.5;
  const size_t bytes = v.size() * sizeof(double);
  EncodeParams p;
  p.kind = ElemKind::f64;
  const ChannelRecord r{9, 4, true, {{3, 17}, {5, 1}}};  // id, seq, XOR, retired
  std::vector<uint8_t> frame(frame_capacity(bytes));
  const size_t n =
      encode_channel_frame(r, *find_codec(CodecId::fpc), p, v.data(), bytes, frame.data());
  EXPECT(n > kFrameHeaderBytes && n < bytes);
  EXPECT(read_whole_frame(frame.data(), n, &h, &payload) == FrameFault::ok &&
         h.flags == kFrameInterstep && h.codec == CodecId::fpc && h.raw_bytes == bytes);
  ChannelRecord back;
  const uint8_t* coded = nullptr;
  size_t coded_bytes = 0;
  EXPECT(read_channel_payload(h, payload, &back, &coded, &coded_bytes) && back.id == 9 &&
         back.seq == 4 && back.xor_prev && back.retired.size() == 2 &&
         back.retired[0].last_seq == 17 &&
         coded_bytes + channel_record_bytes(r) == h.payload_bytes);
  std::vector<double> out(v.size());
  EXPECT(decode_body(h, coded, coded_bytes, out.data()) == kCodecOk && out == v);
  // A record that does not verify; a message that does not shrink; one too
  // small for its record.
  frame[kFrameHeaderBytes] ^= 1;
  EXPECT(!read_channel_payload(h, payload, &back, &coded, &coded_bytes));
  EXPECT(encode_channel_frame(r, *find_codec(CodecId::stored), p, v.data(), bytes, frame.data()) ==
         0);
  EXPECT(encode_channel_frame(r, *find_codec(CodecId::fpc), p, v.data(),
                              channel_record_bytes(r) + 1, frame.data()) == 0);
}

}  // namespace

int main() {
  round_trips();
  rejections();
  frames();
  stored_and_channel_frames();
  return unit::finish("wire frame");
}
