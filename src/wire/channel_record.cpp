#include "wire/channel_record.h"

namespace adacomp {
namespace {

constexpr size_t kRecordFixed = 16;
constexpr size_t kRetiredBytes = 8;

void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
uint32_t get_u32(const uint8_t* p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

// FNV-1a over the record without its checksum field: a damaged position
// must fail the frame, not make the receiver wait for a frame never sent.
uint32_t record_check(const uint8_t* p, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; ++i) {
    if (i >= 12 && i < 16) continue;
    h = (h ^ p[i]) * 16777619u;
  }
  return h;
}

}  // namespace

size_t channel_record_bytes(const ChannelRecord& r) {
  return kRecordFixed + kRetiredBytes * r.retired.size();
}

void write_channel_record(const ChannelRecord& r, uint8_t* dst) {
  put_u32(dst, r.id);
  put_u32(dst + 4, r.seq);
  dst[8] = r.xor_prev ? 1 : 0;
  dst[9] = static_cast<uint8_t>(r.retired.size());
  dst[10] = dst[11] = 0;
  uint8_t* e = dst + kRecordFixed;
  for (const Retired& t : r.retired) {
    put_u32(e, t.id);
    put_u32(e + 4, t.last_seq);
    e += kRetiredBytes;
  }
  put_u32(dst + 12, record_check(dst, channel_record_bytes(r)));
}

bool read_channel_record(const uint8_t* src, size_t available, ChannelRecord* out,
                         size_t* record_bytes) {
  if (available < kRecordFixed) return false;
  const size_t n = kRecordFixed + kRetiredBytes * src[9];
  if (src[9] > kMaxRetiredPerFrame || n > available || (src[8] & ~1u) || src[10] || src[11] ||
      get_u32(src + 12) != record_check(src, n))
    return false;
  ChannelRecord r;
  r.id = get_u32(src);
  r.seq = get_u32(src + 4);
  r.xor_prev = src[8] & 1;
  for (size_t i = 0; i < src[9]; ++i) {
    const uint8_t* e = src + kRecordFixed + kRetiredBytes * i;
    r.retired.push_back({get_u32(e), get_u32(e + 4)});
  }
  if (r.id == 0 || (r.xor_prev && r.seq == 0)) return false;
  *out = std::move(r);
  *record_bytes = n;
  return true;
}

}  // namespace adacomp
