// Segmented frames without MPI (wire/segments.h): every codec on f64, f32
// and bytes, odd sizes, NaN/Inf/-0.0/denormals, 1-element segments and more
// segments than elements. A frame decodes to the same bytes on any number of
// threads, and is the same frame whether its segments were coded on one
// thread or several; each segment decodes as the frame that codes it alone
// would (so lossy bounds hold per element); damaged tables are refused with
// a reason.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "codec/bits.h"
#include "codec/bytes.h"
#include "unit.h"
#include "wire/frame.h"

using namespace adacomp;

namespace {

// Every task on its own thread, as a pool with as many threads as segments.
void on_threads(size_t n, const std::function<void(size_t)>& task) {
  std::vector<std::thread> t;
  for (size_t i = 1; i < n; ++i) t.emplace_back(task, i);
  if (n) task(0);
  for (std::thread& x : t) x.join();
}

template <typename T>
std::vector<uint8_t> field(size_t n) {
  std::vector<T> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<T>(std::sin(i * 0.003) * 100 + (i % 3) * 1e-4);
  // Values that must pass exactly, spread over the segments.
  const T special[] = {std::numeric_limits<T>::quiet_NaN(),  std::numeric_limits<T>::infinity(),
                       -std::numeric_limits<T>::infinity(),  T(-0.0),
                       std::numeric_limits<T>::denorm_min(), std::numeric_limits<T>::min() / 4};
  for (size_t k = 0; k < 6 && k < n; ++k) v[(k * 7919) % n] = special[k];
  std::vector<uint8_t> b(n * sizeof(T));
  if (n) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<uint8_t> text(size_t n) {
  std::vector<uint8_t> b(n);
  for (size_t i = 0; i < n; ++i)
    b[i] = static_cast<uint8_t>("segments of bytes "[i % 18] + (i / 977) % 3);
  return b;
}

std::vector<uint8_t> encode(const Codec& c, const EncodeParams& p, const std::vector<uint8_t>& src,
                            size_t segments, ForEach run) {
  std::vector<uint8_t> f(frame_capacity(src.size()));
  f.resize(encode_segmented(c, p, src.data(), src.size(), f.data(), segments, run));
  return f;
}

// Within the bound, NaN and Inf (and -0.0 under a lossless codec) exact.
template <typename T>
bool within(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, double bound) {
  for (size_t i = 0; i + sizeof(T) <= a.size(); i += sizeof(T)) {
    const T x = bits::load<T>(&a[i]), y = bits::load<T>(&b[i]);
    if (std::isnan(x) || std::isinf(x)) {
      if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return false;
    } else if (!(std::fabs(double(x) - double(y)) <= bound)) {
      return false;
    }
  }
  return true;
}

void round_trips(const Codec& c, ElemKind kind, const std::vector<uint8_t>& src) {
  EncodeParams p;
  p.kind = kind;
  p.abs_bound = 1e-3;
  p.truncate_bits = 20;
  const size_t esize = bits::elem_size(kind);
  for (size_t segments :
       {size_t(1), size_t(2), size_t(3), size_t(4), size_t(7), size_t(64), size_t(1000)}) {
    const std::vector<uint8_t> seq = encode(c, p, src, segments, nullptr);
    const std::vector<uint8_t> par = encode(c, p, src, segments, on_threads);
    EXPECT(seq == par);  // the bytes depend on the segment count only
    FrameHeader h;
    EXPECT(read_frame_header(seq.data(), seq.size(), &h));
    std::vector<uint8_t> one(src.size()), many(src.size());
    EXPECT(decode_frame(seq.data(), seq.size(), one.data(), one.size(), nullptr) == kCodecOk);
    EXPECT(decode_frame(seq.data(), seq.size(), many.data(), many.size(), on_threads) == kCodecOk);
    EXPECT(one == many);
    if (!c.lossy) EXPECT(one == src);
    if (c.lossy && kind == ElemKind::f64) EXPECT(within<double>(src, one, p.abs_bound));
    if (c.lossy && kind == ElemKind::f32) EXPECT(within<float>(src, one, p.abs_bound));
    if (!(h.flags & kFrameSegmented)) continue;
    // Each segment is its own message: the same values as a frame of it alone.
    Segment segs[kMaxSegments];
    size_t n = 0, table = 0;
    EXPECT(
        !read_segment_table(h, seq.data() + kFrameHeaderBytes, h.payload_bytes, segs, &n, &table));
    EXPECT(n >= 2 && n <= segments && n <= src.size() / esize);
    size_t at = 0;
    for (size_t i = 0; i < n; ++i) {
      EXPECT(segs[i].raw_bytes >= esize);
      std::vector<uint8_t> part(src.begin() + at, src.begin() + at + segs[i].raw_bytes);
      std::vector<uint8_t> f(frame_capacity(part.size())), back(part.size());
      f.resize(encode_frame(c, p, part.data(), part.size(), f.data()));
      EXPECT(decode_frame(f.data(), f.size(), back.data(), back.size()) == kCodecOk);
      // Stored where the table took its room (small messages, many segments).
      const uint8_t* want = segs[i].codec == CodecId::stored ? src.data() + at : back.data();
      EXPECT(std::memcmp(want, one.data() + at, back.size()) == 0);
      at += segs[i].raw_bytes;
    }
  }
}

void every_codec() {
  for (int id = 0; id < 256; ++id) {
    const Codec* c = find_codec(static_cast<CodecId>(id));
    if (!c) continue;
    for (size_t n : {size_t(0), size_t(1), size_t(3), size_t(65), size_t(1001), size_t(100003)}) {
      round_trips(*c, ElemKind::f64, field<double>(n));
      round_trips(*c, ElemKind::f32, field<float>(n));
      if (!c->float_only) round_trips(*c, ElemKind::bytes, text(n * 3 + 1));
    }
  }
}

// A valid segmented frame to damage: fpc, 4 segments of smooth doubles.
std::vector<uint8_t> good_frame(std::vector<uint8_t>* src) {
  *src = field<double>(4000);
  EncodeParams p;
  p.kind = ElemKind::f64;
  std::vector<uint8_t> f = encode(*find_codec(CodecId::fpc), p, *src, 4, nullptr);
  FrameHeader h;
  EXPECT(read_frame_header(f.data(), f.size(), &h) && (h.flags & kFrameSegmented));
  return f;
}

// The reason a damaged frame is refused with (nullptr: it was not), and that
// decode_frame refuses it too.
const char* refused(const std::vector<uint8_t>& f, size_t raw) {
  FrameHeader h;
  if (!read_frame_header(f.data(), f.size(), &h)) return "header";
  Segment segs[kMaxSegments];
  size_t n = 0, table = 0;
  const char* why =
      read_segment_table(h, f.data() + kFrameHeaderBytes, h.payload_bytes, segs, &n, &table);
  std::vector<uint8_t> out(raw);
  EXPECT((decode_frame(f.data(), f.size(), out.data(), raw) == kCodecCorrupt) == (why != nullptr));
  return why;
}

bool says(const char* why, const char* part) { return why && std::strstr(why, part); }

void damaged_tables() {
  std::vector<uint8_t> src;
  const std::vector<uint8_t> good = good_frame(&src);
  const size_t raw = src.size();
  EXPECT(!refused(good, raw));
  auto with = [&](size_t at, auto value) {
    std::vector<uint8_t> f = good;
    bits::store(f.data() + kFrameHeaderBytes + at, value);
    return f;
  };
  const size_t e0 = kSegmentTableHead, e1 = e0 + kSegmentEntryBytes;
  for (uint32_t count : {0u, 1u, 65u, 0xFFFFFFFFu})
    EXPECT(says(refused(with(0, count), raw), "count"));
  for (uint64_t payload : {uint64_t{4}, uint64_t{20}}) {  // the table itself cut short
    std::vector<uint8_t> f(good.begin(), good.begin() + kFrameHeaderBytes + payload);
    FrameHeader h;
    read_frame_header(good.data(), good.size(), &h);
    h.payload_bytes = payload;
    write_frame_header(h, f.data());
    EXPECT(says(refused(f, raw), "truncated"));
  }
  EXPECT(says(refused(with(4, uint32_t{1}), raw), "reserved"));
  EXPECT(says(refused(with(e0 + 17, uint8_t{1}), raw), "reserved"));
  EXPECT(says(refused(with(e0 + 16, uint8_t(CodecId::zstd)), raw), "codec"));
  EXPECT(says(refused(with(e0, uint64_t{8000 + 1}), raw), "elements"));
  EXPECT(says(refused(with(e0, ~uint64_t{0} - 7), raw), "raw size"));
  EXPECT(says(refused(with(e0, uint64_t{8}), raw), "raw size"));  // falls short
  EXPECT(says(refused(with(e0 + 8, ~uint64_t{0}), raw), "payload"));
  EXPECT(says(refused(with(e1 + 8, uint64_t{1}), raw), "payload"));  // falls short
  // A segment marked stored whose coded size is not its raw size.
  EXPECT(says(refused(with(e1 + 16, uint8_t(CodecId::stored)), raw), "stored"));
  // Damaged coded bytes behind a good table: the codec refuses them.
  std::vector<uint8_t> f = good;
  for (size_t i = kFrameHeaderBytes + e0 + 4 * kSegmentEntryBytes; i < f.size(); ++i) f[i] ^= 0xA5;
  std::vector<uint8_t> out(raw);
  EXPECT(decode_frame(f.data(), f.size(), out.data(), raw) != kCodecOk ||
         out != src);  // never silently the original
  // Truncated frames: every shorter payload is refused.
  for (size_t cut = 1; cut < 200; cut += 13) {
    std::vector<uint8_t> s(good.begin(), good.end() - cut);
    FrameHeader h;
    read_frame_header(good.data(), good.size(), &h);
    h.payload_bytes -= cut;
    write_frame_header(h, s.data());
    EXPECT(refused(s, raw));
  }
}

// A table a sender never writes but a receiver accepts: segments of 0 and 1
// elements, all stored.
void tiny_segments() {
  const std::vector<uint8_t> src = field<double>(3);
  const uint64_t raw[] = {0, 8, 16, 0};
  std::vector<uint8_t> f(kFrameHeaderBytes + kSegmentTableHead + 4 * kSegmentEntryBytes, 0);
  uint8_t* body = f.data() + kFrameHeaderBytes;
  bits::store(body, uint32_t{4});
  for (size_t i = 0; i < 4; ++i) {
    uint8_t* e = body + kSegmentTableHead + i * kSegmentEntryBytes;
    bits::store(e, raw[i]);
    bits::store(e + 8, raw[i]);
    e[16] = static_cast<uint8_t>(CodecId::stored);
  }
  f.insert(f.end(), src.begin(), src.end());
  FrameHeader h;
  h.codec = CodecId::fpc;
  h.kind = ElemKind::f64;
  h.flags = kFrameSegmented;
  h.raw_bytes = src.size();
  h.payload_bytes = f.size() - kFrameHeaderBytes;
  write_frame_header(h, f.data());
  std::vector<uint8_t> out(src.size());
  EXPECT(decode_frame(f.data(), f.size(), out.data(), out.size(), on_threads) == kCodecOk);
  EXPECT(out == src);
}

}  // namespace

int main() {
  every_codec();
  damaged_tables();
  tiny_segments();
  return unit::finish("wire_segments");
}
