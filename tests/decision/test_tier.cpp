// Tier choice without MPI: the four-tier thresholds per mode, lossy only
// for floats under a bound, overrides, the transfer gate's compressed
// range, pipeline chunks and the candidate codecs of each tier.
#include <vector>

#include "decision/gate.h"
#include "decision/tier.h"
#include "unit.h"
#include "wire/frame.h"

using namespace adacomp;

namespace {

bool is(TierChoice t, Tier tier, bool pipelined = false) {
  return t.tier == tier && t.pipelined == pipelined;
}

void tiers() {
  Config c;  // T1 64K, T2 1M, T3 256K; no bound yet
  const size_t t1 = c.threshold_lossless, t2 = c.threshold_lossy, t3 = c.threshold_pipeline;
  const ElemKind f64 = ElemKind::f64, bytes = ElemKind::bytes;
  EXPECT(is(choose_tier(c, job_bound(c), Mode::adaptive, t1 - 1, f64), Tier::raw));
  EXPECT(is(choose_tier(c, job_bound(c), Mode::adaptive, t1, f64), Tier::lossless));
  EXPECT(is(choose_tier(c, job_bound(c), Mode::adaptive, t3, f64), Tier::lossless));  // no bound: no lossy
  EXPECT(is(choose_tier(c, job_bound(c), Mode::lossy, t3, f64), Tier::lossless));
  EXPECT(is(choose_tier(c, job_bound(c), Mode::raw, t3, f64), Tier::raw));
  c.abs_error_bound = 1e-3;
  EXPECT(is(choose_tier(c, job_bound(c), Mode::adaptive, t2 - 1, f64), Tier::lossless));
  EXPECT(is(choose_tier(c, job_bound(c), Mode::adaptive, t2, f64), Tier::lossy));
  EXPECT(is(choose_tier(c, job_bound(c), Mode::adaptive, t2, ElemKind::f32), Tier::lossy));
  EXPECT(is(choose_tier(c, job_bound(c), Mode::adaptive, t2, bytes), Tier::lossless));  // integers: exact
  EXPECT(is(choose_tier(c, job_bound(c), Mode::adaptive, t3, f64), Tier::lossless));  // adaptive: never pipelined
  // Just under T3: unpipelined; from T3 (below T2 here) pipelined lossless,
  // from T2 pipelined lossy.
  EXPECT(t3 < t2);
  EXPECT(is(choose_tier(c, job_bound(c), Mode::adaptive_pipelined, t3 - 1, f64), Tier::lossless));
  EXPECT(is(choose_tier(c, job_bound(c), Mode::adaptive_pipelined, t3, f64), Tier::lossless, true));
  EXPECT(is(choose_tier(c, job_bound(c), Mode::adaptive_pipelined, t2, f64), Tier::lossy, true));
  EXPECT(is(choose_tier(c, job_bound(c), Mode::adaptive_pipelined, t3, bytes), Tier::lossless, true));
  EXPECT(is(choose_tier(c, job_bound(c), Mode::lossy, t1, f64), Tier::lossy));  // forced modes: from T1
  EXPECT(is(choose_tier(c, job_bound(c), Mode::lossy, t1, bytes), Tier::lossless));
  EXPECT(is(choose_tier(c, job_bound(c), Mode::lossless, t3, f64), Tier::lossless));
  EXPECT(is(choose_tier(c, job_bound(c), Mode::lossless, t1 - 1, f64), Tier::raw));
  c.threshold_lossless = kNever;  // "never" from adacomp-calibrate
  EXPECT(is(choose_tier(c, job_bound(c), Mode::adaptive, ~size_t{0} - 1, f64), Tier::raw));
}

void overrides_and_ranges() {
  Override o;
  EXPECT(parse_override(nullptr, &o) && o == Override::none);
  EXPECT(parse_override("adaptive-pipelined", &o) && o == Override::adaptive_pipelined);
  EXPECT(parse_override("raw", &o) && o == Override::raw);
  EXPECT(!parse_override("Raw", &o) && !parse_override("", &o));
  // The transfer gate's compressed range (data movement, point-to-point).
  Config c;
  auto coded = [&](Override ov, size_t bytes) {
    return gate(c, job_bound(c), ov, bytes, ElemKind::f64, GateScope::transfer).tier.tier != Tier::raw;
  };
  EXPECT(!coded(Override::none, c.threshold_lossless - 1));
  EXPECT(coded(Override::none, c.threshold_lossless));
  EXPECT(!coded(Override::raw, c.threshold_lossless));
  EXPECT(coded(Override::none, kMaxFramePayload));
  EXPECT(!coded(Override::none, kMaxFramePayload + 1));  // one frame at most
  c.mode = Mode::raw;
  EXPECT(!coded(Override::lossless, c.threshold_lossless));
}

void chunks_and_codecs() {
  Config c;  // eager-sized chunks: each frame, with MPI's header, under the limit
  const size_t eager = 64 * 1024, e = eager_chunk_bytes(eager);
  EXPECT(e < eager && frame_capacity(e + 16) + 128 <= eager);
  EXPECT(eager_chunk_bytes(1000) == 4096);  // never below 4K
  EXPECT(pipeline_chunks(c, Tier::lossless, 0, eager) == 1 &&
         pipeline_chunks(c, Tier::lossless, 1, eager) == 1);
  EXPECT(pipeline_chunks(c, Tier::lossless, e, eager) == 1 &&
         pipeline_chunks(c, Tier::lossless, e + 1, eager) == 2);
  EXPECT(pipeline_chunks(c, Tier::lossless, 8 << 20, eager) ==
         static_cast<int>(((8 << 20) + e - 1) / e));
  EXPECT(pipeline_chunks(c, Tier::lossless, size_t{1} << 40, eager) == 1024);
  // Lossy frames are several times smaller: larger chunks still go eagerly.
  EXPECT(pipeline_chunks(c, Tier::lossy, kLossyChunkFactor * e, eager) == 1);
  EXPECT(pipeline_chunks(c, Tier::lossy, kLossyChunkFactor * e + 1, eager) == 2);
  c.pipeline_eager = false;
  c.pipeline_chunk_bytes = 512 * 1024;
  EXPECT(pipeline_chunks(c, Tier::lossless, 512 * 1024, eager) == 1);
  EXPECT(pipeline_chunks(c, Tier::lossless, 512 * 1024 + 1, eager) == 2);
  c.pipeline_chunk_bytes = 0;
  c.pipeline_chunks = 7;
  EXPECT(pipeline_chunks(c, Tier::lossless, 100, eager) == 7);

  Config d;  // auto: candidates by tier and kind, highest ratio first
  auto ids = [](const Candidates& c) {
    std::vector<CodecId> v;
    for (int a = 1; a <= c.count; ++a) v.push_back(c.arm(a).id);
    return v;
  };
  using V = std::vector<CodecId>;
  EXPECT(ids(candidates(d, Tier::lossless, ElemKind::f64)) == V{CodecId::bitplane});
  EXPECT(ids(candidates(d, Tier::lossless, ElemKind::bytes)) == V({CodecId::zstd, CodecId::lz4}));
  EXPECT(ids(candidates(d, Tier::lossy, ElemKind::f32)) ==
         V({CodecId::quant_zstd, CodecId::quant_fast}));
  EXPECT(ids(candidates(d, Tier::lossy, ElemKind::bytes)) == V({CodecId::zstd, CodecId::lz4}));
  // An arm past a call's candidates takes the last one.
  EXPECT(candidates(d, Tier::lossless, ElemKind::f64).arm(2).id == CodecId::bitplane);
  EXPECT(candidates(d, Tier::lossy, ElemKind::f64).arm(2).id == CodecId::quant_fast);
  // The first candidate outside the model.
  EXPECT(codec_for(d, Tier::lossless, ElemKind::f64).id == CodecId::bitplane);
  EXPECT(codec_for(d, Tier::lossless, ElemKind::bytes).id == CodecId::zstd);
  EXPECT(codec_for(d, Tier::lossy, ElemKind::f32).id == CodecId::quant_zstd);
  EXPECT(codec_for(d, Tier::lossy, ElemKind::bytes).id == CodecId::zstd);
  // Padded (Bcast: the ranks' kinds may differ) to the most of any tier and
  // kind: two with auto, whether or not a bound is set (bytes have two).
  EXPECT(ids(padded_candidates(d, job_bound(d), Tier::lossless, ElemKind::f64)) ==
         V({CodecId::bitplane, CodecId::bitplane}));
  d.lossless_auto = false;
  d.lossless_codec = CodecId::bitplane;  // float-only: integers still go to zstd
  EXPECT(codec_for(d, Tier::lossless, ElemKind::f32).id == CodecId::bitplane);
  EXPECT(ids(candidates(d, Tier::lossless, ElemKind::bytes)) == V{CodecId::zstd});
  // Lossless named, no bound: one candidate everywhere, nothing padded.
  EXPECT(ids(padded_candidates(d, job_bound(d), Tier::lossless, ElemKind::f64)) == V{CodecId::bitplane});
  d.abs_error_bound = 1e-3;  // lossy auto counts once a bound makes it usable
  EXPECT(padded_candidates(d, job_bound(d), Tier::lossless, ElemKind::f64).count == 2);
  d.lossless_codec = CodecId::lz4;
  EXPECT(codec_for(d, Tier::lossless, ElemKind::bytes).id == CodecId::lz4);
  d.lossy_auto = false;  // a named lossy codec is the only candidate
  d.lossy_codec = CodecId::to_f32;
  EXPECT(ids(candidates(d, Tier::lossy, ElemKind::f64)) == V{CodecId::to_f32});
  EXPECT(padded_candidates(d, job_bound(d), Tier::lossy, ElemKind::f64).count == 1);
}

}  // namespace

int main() {
  tiers();
  overrides_and_ranges();
  chunks_and_codecs();
  return unit::finish("decision tier");
}
