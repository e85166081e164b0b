#include "wire/channel_record.h"

#include "codec/bytes.h"

namespace adacomp {
namespace {

constexpr size_t kRecordFixed = 16;
constexpr size_t kRetiredBytes = 8;

// FNV-1a over the record without its checksum field: a damaged position
// must fail the frame, not make the receiver wait for a frame never sent.
uint32_t record_check(const uint8_t* p, size_t n) {
  return bits::fnv1a_32(p + 16, n - 16, bits::fnv1a_32(p, 12));
}

}  // namespace

size_t channel_record_bytes(const ChannelRecord& r) {
  return kRecordFixed + kRetiredBytes * r.retired.size();
}

void write_channel_record(const ChannelRecord& r, uint8_t* dst) {
  bits::store<uint32_t>(dst, r.id);
  bits::store<uint32_t>(dst + 4, r.seq);
  dst[8] = r.xor_prev ? 1 : 0;
  dst[9] = static_cast<uint8_t>(r.retired.size());
  dst[10] = dst[11] = 0;
  uint8_t* e = dst + kRecordFixed;
  for (const Retired& t : r.retired) {
    bits::store<uint32_t>(e, t.id);
    bits::store<uint32_t>(e + 4, t.last_seq);
    e += kRetiredBytes;
  }
  bits::store<uint32_t>(dst + 12, record_check(dst, channel_record_bytes(r)));
}

bool read_channel_record(const uint8_t* src, size_t available, ChannelRecord* out,
                         size_t* record_bytes) {
  if (available < kRecordFixed) return false;
  const size_t n = kRecordFixed + kRetiredBytes * src[9];
  if (src[9] > kMaxRetiredPerFrame || n > available || (src[8] & ~1u) || src[10] || src[11] ||
      bits::load<uint32_t>(src + 12) != record_check(src, n))
    return false;
  ChannelRecord r;
  r.id = bits::load<uint32_t>(src);
  r.seq = bits::load<uint32_t>(src + 4);
  r.xor_prev = src[8] & 1;
  for (size_t i = 0; i < src[9]; ++i) {
    const uint8_t* e = src + kRecordFixed + kRetiredBytes * i;
    r.retired.push_back({bits::load<uint32_t>(e), bits::load<uint32_t>(e + 4)});
  }
  if (r.id == 0 || (r.xor_prev && r.seq == 0)) return false;
  *out = std::move(r);
  *record_bytes = n;
  return true;
}

size_t encode_channel_frame(const ChannelRecord& r, const Codec& codec, const EncodeParams& p,
                            const void* src, size_t bytes, uint8_t* frame) {
  const size_t record = channel_record_bytes(r);
  if (record + 1 >= bytes) return 0;
  uint8_t* coded = frame + kFrameHeaderBytes + record;
  const long n = codec.encode(p, src, bytes, coded, bytes - 1 - record);
  if (n < 0) return 0;
  write_channel_record(r, frame + kFrameHeaderBytes);
  FrameHeader h;
  h.codec = codec.id;
  h.kind = p.kind;
  h.flags = kFrameInterstep;
  h.raw_bytes = bytes;
  h.payload_bytes = record + static_cast<size_t>(n);
  write_frame_header(h, frame);
  return kFrameHeaderBytes + h.payload_bytes;
}

bool read_channel_payload(const FrameHeader& h, const uint8_t* payload, ChannelRecord* r,
                          const uint8_t** coded, size_t* coded_bytes) {
  size_t record = 0;
  if (!read_channel_record(payload, h.payload_bytes, r, &record)) return false;
  *coded = payload + record;
  *coded_bytes = h.payload_bytes - record;
  return true;
}

}  // namespace adacomp
