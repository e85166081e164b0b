// The adaptive policy's decisions without MPI: exploration order over the
// arms (raw and each candidate codec), the agreement rule with its margin,
// the doubling rest, and the sender's break-even for point-to-point with
// one or two candidates. A plain executable, nonzero exit on failure.
#include "decision/model.h"

#include "decision/gate.h"

#include <algorithm>
#include <vector>

#include "unit.h"

using namespace adacomp;

namespace {

// One candidate (lossless floats: bitplane) and two (lossy floats:
// quant_zstd, quant_fast).
Candidates one() { return candidates(Config{}, Tier::lossless, ElemKind::f64); }
Candidates two() { return candidates(Config{}, Tier::lossy, ElemKind::f64); }

// Runs one exploration over `codecs` where arm a takes times[a] (this
// rank's are also the slowest) and returns the settled arm. Each arm is
// called once in order, then the arms kept (those not over kDropFactor
// times the fastest first call, and raw always) each once more, backwards.
int explore(PathChoice& c, const Candidates& codecs, std::vector<double> times) {
  const int arms = 1 + codecs.arms();
  const double fastest = *std::min_element(times.begin(), times.end());
  std::vector<int> order;
  for (int a = 0; a < arms; ++a) order.push_back(a);
  for (int a = arms - 1; a >= 0; --a)
    if (a == 0 || arms == 2 || times[static_cast<size_t>(a)] <= PathChoice::kDropFactor * fastest)
      order.push_back(a);
  for (size_t i = 0; i < order.size(); ++i) {
    const int arm = c.next(codecs);
    EXPECT(arm == order[i]);
    const bool agree = c.record(times[static_cast<size_t>(arm)]);
    // The ranks agree after the first round (where an arm could be dropped)
    // and at the end.
    const bool pruning = arms > 2 && i + 1 == static_cast<size_t>(arms);
    EXPECT(agree == (pruning || i + 1 == order.size()));
    if (agree) EXPECT(c.agree(c.best()) == !pruning);
  }
  EXPECT(c.arms() == arms);
  return c.settled();
}

// Calls on the settled codec until the next exploration (which starts with
// a raw call); returns how many.
int rest(PathChoice& c, const Candidates& codecs) {
  int n = 0;
  while (c.next(codecs) != 0 && n < 100000) {
    c.record(1.0);
    ++n;
  }
  return n;
}

}  // namespace

int main() {
  {  // one candidate, as before arms: compressed clearly faster settles
     // compressed, rests 32 then 64 calls
    PathChoice c;
    EXPECT(explore(c, one(), {1.0, 0.5}) == 1);
    EXPECT(c.settled() == 1);
    EXPECT(rest(c, one()) == 32);
    EXPECT(explore(c, one(), {1.0, 0.5}) == 1);
    EXPECT(rest(c, one()) == 64);
    // The data turns incompressible: the next exploration switches back,
    // and the rest starts over at 32.
    EXPECT(explore(c, one(), {1.0, 3.0}) == 0);
    EXPECT(c.settled() == 0);
    // Settled on raw: 32 calls pass untimed (their times are not recorded),
    // then the slot explores again from plain MPI; a slot settled on a codec
    // never passes that way, and an exploring one counts nothing.
    int passed = 0;
    while (c.passes_settled() && passed < 100000) ++passed;
    EXPECT(passed == 32);
    EXPECT(c.exploring());
    EXPECT(!c.passes_settled());
    EXPECT(c.next(one()) == 0);
    EXPECT(explore(c, one(), {1.0, 0.5}) == 1);
    EXPECT(!c.passes_settled());
    EXPECT(!c.record(0.1));  // a settled call's time decides nothing
    EXPECT(rest(c, one()) == 32);
  }
  {  // within the margin: raw stays
    PathChoice c;
    EXPECT(explore(c, one(), {1.0, 1.0 - PathChoice::kMargin / 2}) == 0);
  }
  {  // the best sample counts: one slow first call does not decide
    PathChoice c;
    EXPECT(c.next(one()) == 0);
    c.record(5.0);          // first raw call: connection set-up
    c.record(0.6);          // compressed
    c.record(0.7);          // compressed (the second round backwards)
    EXPECT(c.record(1.0));  // raw: exploration done
    c.agree(c.best());
    EXPECT(c.settled() == 1);
  }
  {  // two candidates: the fastest codec wins, if it beats raw by the margin
    PathChoice c;
    EXPECT(explore(c, two(), {1.0, 0.8, 0.5}) == 2);  // fast link: the fast codec
    EXPECT(c.codecs().arm(c.settled()).id == CodecId::quant_fast);
    EXPECT(rest(c, two()) == 32);
    EXPECT(explore(c, two(), {1.0, 0.8, 0.5}) == 2);  // the same again: a longer rest
    EXPECT(rest(c, two()) == 64);
    EXPECT(explore(c, two(), {1.0, 0.3, 0.5}) == 1);  // slow link: the high ratio
    EXPECT(c.codecs().arm(c.settled()).id == CodecId::quant_zstd);
    EXPECT(rest(c, two()) == 32);                                // another codec is a new answer
    EXPECT(explore(c, two(), {1.0, 0.985, 0.99}) == 0);          // neither pays
    for (uint32_t i = 0; i < PathChoice::kFirstInterval; ++i) {  // raw for a new rest
      EXPECT(c.next(two()) == 0);
      c.record(1.0);
    }
    EXPECT(explore(c, two(), {1.0, 0.5, 0.5}) == 1);  // a tie: the higher ratio
  }
  {  // a padded arm (the same codec again, padded_candidates) gives its codec
     // no second chance: a lucky call on the repeat does not beat raw
    Config cfg;
    const Candidates padded = padded_candidates(cfg, job_bound(cfg), Tier::lossless, ElemKind::f64);
    EXPECT(padded.count == 2 && &padded.arm(1) == &padded.arm(2));
    PathChoice c;
    EXPECT(explore(c, padded, {1.0, 1.1, 0.9}) == 0);
    PathChoice d;  // but a codec faster on both arms still wins (the first)
    EXPECT(explore(d, padded, {1.0, 0.8, 0.9}) == 1);
  }
  {  // the arms are those of the call that starts the exploration: a call of
     // another kind midway keeps the count (all ranks stay in step)
    PathChoice c;
    EXPECT(c.next(two()) == 0);
    c.record(1.0);
    EXPECT(c.next(one()) == 1);
    c.record(0.9);
    EXPECT(c.next(one()) == 2);  // the call codes with its last candidate
    EXPECT(one().arm(2).id == CodecId::bitplane);
    EXPECT(c.record(0.4));  // the first round: the ranks agree on what to keep
    EXPECT(!c.agree(c.best()));
    EXPECT(c.dropped(1));  // 0.9 > 2 x 0.4
    EXPECT(c.next(one()) == 2);  // the second round backwards
    c.record(0.9);
    EXPECT(c.next(one()) == 0);
    EXPECT(c.record(1.0));
    EXPECT(c.agree(c.best()));
    EXPECT(c.settled() == 2);
    // The next exploration, of one candidate, ignores the third arm's old
    // times whatever the agreed array holds there.
    EXPECT(rest(c, one()) == 32);
    EXPECT(c.next(one()) == 0);
    EXPECT(c.arms() == 2);
    for (int i = 0; i < 3; ++i) c.record(i % 2 ? 0.99 : 1.0);
    EXPECT(c.record(0.99));
    const double slowest[PathChoice::kMaxArms] = {1.0, 0.99, 0.0};
    c.agree(slowest);
    EXPECT(c.settled() == 0);
  }
  {  // the route between nodes: framed only where coding can pay
    const Config adaptive;
    EXPECT(!inter_node_direct(adaptive, LinkModel{125e6, 50e-6}));  // 1 Gbit/s
    EXPECT(inter_node_direct(adaptive, LinkModel{1.25e9, 5e-6}));   // 10 Gbit/s
    EXPECT(inter_node_direct(adaptive, LinkModel{}));  // no reading: nothing would be coded
    Config framed;
    framed.p2p_route = P2PRoute::framed;
    EXPECT(!inter_node_direct(framed, LinkModel{}));
    Config forced;
    forced.mode = Mode::lossless;
    EXPECT(!inter_node_direct(forced, LinkModel{1.25e9, 5e-6}));  // forced modes code
    // T1 left unset: 8K across a slow link only; a T1 the user set stays.
    EXPECT(auto_threshold_lossless(adaptive, LinkModel{125e6, 50e-6}) == kSlowLinkThreshold);
    EXPECT(auto_threshold_lossless(adaptive, LinkModel{0.7e9, 20e-6}) == kSlowLinkThreshold);
    EXPECT(auto_threshold_lossless(adaptive, LinkModel{0.9e9, 20e-6}) == 64u << 10);
    EXPECT(auto_threshold_lossless(adaptive, LinkModel{}) == 64u << 10);
    Config set;
    set.threshold_lossless = 128 << 10;
    set.threshold_lossless_auto = false;
    EXPECT(auto_threshold_lossless(set, LinkModel{125e6, 50e-6}) == 128u << 10);
    Config low;
    low.threshold_lossless = 2 << 10;  // (an unset T1 never is; min() keeps it)
    EXPECT(auto_threshold_lossless(low, LinkModel{125e6, 50e-6}) == 2u << 10);
  }
  {  // a sender's message under threshold_p2p goes as sent under the
     // adaptive policy; a forced mode codes from T1
    CallFacts f;
    f.active = true;
    f.scope = GateScope::transfer;
    f.who = Decider::sender;
    f.job_spans_nodes = true;
    f.bytes = 16 << 10;
    Config c;
    c.threshold_lossless = kSlowLinkThreshold;
    EXPECT(!verdict(c, f).coded() && verdict(c, f).reason == PassReason::below_threshold);
    f.bytes = 64 << 10;
    EXPECT(verdict(c, f).coded());
    f.bytes = 16 << 10;
    c.mode = Mode::lossless;
    EXPECT(verdict(c, f).coded());
    f.who = Decider::all_ranks;  // a collective: T1 alone
    c.mode = Mode::adaptive_pipelined;
    EXPECT(verdict(c, f).coded());
  }
  {  // a clearly losing arm is timed once: after each arm's first call the
     // ranks agree (the slowest rank's times) on the arms kept
    PathChoice c;
    const Candidates codecs = two();
    const double first[] = {1.0, 0.45, 0.5};  // this rank
    for (int a = 0; a < 3; ++a) {
      EXPECT(c.next(codecs) == a);
      EXPECT(c.record(first[a]) == (a == 2));
    }
    const double slowest[PathChoice::kMaxArms] = {1.0, 1.2, 0.5};  // another rank's arm 1
    EXPECT(!c.agree(slowest));
    EXPECT(c.dropped(1) && !c.dropped(0) && !c.dropped(2));
    EXPECT(c.best()[1] == 1.2);  // the dropped arm keeps its agreed time
    EXPECT(c.next(codecs) == 2);
    EXPECT(!c.record(0.6));
    EXPECT(c.next(codecs) == 0);
    EXPECT(c.record(1.0));  // 4 calls where 6 were taken
    EXPECT(c.agree(c.best()) && c.settled() == 2);
    // Raw is never dropped, however slow: the margin is measured against it.
    PathChoice r;
    EXPECT(explore(r, two(), {5.0, 1.0, 1.5}) == 1);
    EXPECT(!r.dropped(0) && !r.dropped(2));
    // Nothing clearly losing: every arm twice, as before.
    PathChoice k;
    EXPECT(explore(k, two(), {1.0, 1.9, 1.1}) == 0);
    EXPECT(!k.dropped(1) && !k.dropped(2));
    // Each exploration starts with every arm again.
    EXPECT(rest(c, two()) == 32);
    EXPECT(explore(c, two(), {1.0, 0.5, 0.6}) == 1);
    EXPECT(!c.dropped(1));
  }
  {  // whole and chunked forms: each codec twice, chunked arms after the whole ones
    Candidates p = two();
    p.pipelined_forms = true;
    EXPECT(p.arms() == 4);
    EXPECT(&p.arm(1) == &p.arm(3) && &p.arm(2) == &p.arm(4) && &p.arm(1) != &p.arm(2));
    EXPECT(!p.pipelined(1) && !p.pipelined(2) && p.pipelined(3) && p.pipelined(4));
    PathChoice c;
    // raw 1.0, whole A 0.8, whole B 0.7, chunked A 0.5, chunked B 0.6
    EXPECT(explore(c, p, {1.0, 0.8, 0.7, 0.5, 0.6}) == 3);
    EXPECT(c.arms() == 5);
    // Whole faster than chunked (MPICH's 1 MB Allreduce): the whole form.
    PathChoice w;
    EXPECT(explore(w, p, {1.0, 0.6, 0.7, 0.8, 0.9}) == 1);
    // One codec (lossless floats): whole and chunked are two arms, not a
    // padded repeat, so each keeps its own best time.
    Candidates q = one();
    q.pipelined_forms = true;
    PathChoice o;
    EXPECT(explore(o, q, {1.0, 0.9, 0.5}) == 2);
    EXPECT(q.pipelined(2) && &q.arm(2) == &q.arm(1));
  }
  {  // point-to-point break-even (cMPI): ratio 2 saves half the wire time
    LinkModel slow{125e6, 50e-6}, fast{12.5e9, 2e-6};
    EXPECT(coding_pays(2.0, 1e-9, slow));        // 1 ns/B codec vs 4 ns/B saved
    EXPECT(!coding_pays(2.0, 1e-9, fast));       // 0.04 ns/B saved
    EXPECT(!coding_pays(1.01, 0, slow));         // incompressible
    EXPECT(!coding_pays(2.0, 0, LinkModel{}));   // unknown link: never
    CodingEstimate e;                            // one candidate, as before candidates
    EXPECT(e.choose(1, 1 << 20, 1, slow) == 1);  // nothing known: a trial
    e.record(1, 1 << 20, 1, 1 << 19, 0.5e-3);    // ratio 2, 1 ms per MB both ways
    EXPECT(e.choose(1, 1 << 20, 1, slow) == 1);
    EXPECT(e.choose(1, 1 << 20, 1, fast) == 0);  // not on a fast link...
    // ...but retried after 2, 4, 8, ... messages, then every kRetryAfter: a
    // first trial's cold costs must not keep a candidate out for long.
    std::vector<int> trials;
    for (int i = 0; i < 250; ++i)
      if (e.choose(1, 1 << 20, 1, fast) == 1) trials.push_back(i);
    EXPECT(CodingEstimate::kRetryAfter == 64);
    EXPECT((trials == std::vector<int>{0, 4, 12, 28, 60, 124, 188}));
    EXPECT(e.choose(1, 1 << 20, 1, LinkModel{}) == 0);
    // Incompressible data: the trials' distance grows eightfold, to
    // kRetryAfterIncompressible.
    CodingEstimate r;
    std::vector<int> tries;
    for (int i = 0; i < 13000; ++i)
      if (r.choose(1, 1 << 20, 1, slow) == 1) {
        tries.push_back(i);
        r.record(1, 1 << 20, 1, 1 << 20, 0.5e-3);  // ratio 1
      }
    EXPECT(CodingEstimate::kRetryAfterIncompressible == 4096);
    EXPECT((tries == std::vector<int>{0, 2, 18, 146, 1170, 5266, 9362}));
  }
  {  // one slow coding (the coder preempted) does not stop a paying
     // candidate; a lasting slowdown does, within a few messages
    const LinkModel gbit{157e6, 15e-6};  // break-even at ratio 2.27: 3.6 ns/B
    const size_t kb64 = 64 << 10, wire = kb64 * 100 / 227;
    CodingEstimate e;
    EXPECT(e.choose(1, kb64, 1, gbit) == 1);
    e.record(1, kb64, 1, wire, 0.55e-9 * kb64);  // 1.1 ns/B both ways
    EXPECT(e.choose(1, kb64, 1, gbit) == 1);
    e.record(1, kb64, 1, wire, 2.15e-9 * kb64);  // once 4.3 ns/B
    int coded = 0;
    for (int i = 0; i < 32; ++i) coded += e.choose(1, kb64, 1, gbit) == 1;
    EXPECT(coded == 32);
    int calls = 0;
    while (e.choose(1, kb64, 1, gbit) == 1 && ++calls < 32)
      e.record(1, kb64, 1, wire, 4e-9 * kb64);  // 8 ns/B from now on
    EXPECT(calls > 1 && calls < 8);
  }
  {  // two candidates (bytes: zstd, lz4): each tried once, then the one of
     // least wire plus codec time
    const LinkModel slow{125e6, 50e-6}, fast{1.25e9, 2e-6};
    const size_t mb = 1 << 20;
    CodingEstimate e;
    EXPECT(e.choose(0, mb, 2, slow) == 1);
    e.record(0, mb, 1, mb / 4, 2e-3);       // ratio 4, 4 ns/B both ways
    EXPECT(e.choose(0, mb, 2, slow) == 2);  // the second is still unknown
    e.record(0, mb, 2, mb / 2, 0.1e-3);     // ratio 2, 0.2 ns/B
    // The candidate a run of messages mostly goes with (the other's trials
    // aside).
    auto mostly = [&](const LinkModel& link) {
      int chosen[3] = {};
      for (uint32_t i = 0; i < 2 * CodingEstimate::kRetryAfter; ++i)
        ++chosen[e.choose(0, mb, 2, link)];
      return static_cast<int>(std::max_element(chosen, chosen + 3) - chosen);
    };
    // 1 Gbit/s, 8 ns/B raw: both pay; ratio 4 costs 2 + 3.8 ns/B, ratio 2
    // 4 + 0.2: the faster codec.
    EXPECT(mostly(slow) == 2);
    e.record(0, mb, 1, mb / 16, 0.5e-3);  // now ratio 16 at 1 ns/B: 0.5 + 1
    EXPECT(mostly(slow) == 1);            // the higher ratio
    // 10 Gbit/s, 0.8 ns/B raw: only the fast one pays (0.4 + 0.2).
    EXPECT(mostly(fast) == 2);
    // Once settled, the one not chosen is tried once per kRetryAfter messages.
    int retries = 0;
    for (uint32_t i = 0; i < CodingEstimate::kRetryAfter; ++i)
      retries += e.choose(0, mb, 2, fast) == 1;
    EXPECT(retries == 1);
    // Neither pays: raw, both still retried.
    e.record(0, mb, 1, mb, 1e-3);
    e.record(0, mb, 2, mb, 1e-3);
    int coded = 0;
    for (uint32_t i = 0; i < CodingEstimate::kRetryAfter; ++i)
      coded += e.choose(0, mb, 2, fast) != 0;
    EXPECT(coded == 2);
    // Other kinds and size classes keep their own entries.
    EXPECT(e.choose(1, mb, 2, fast) == 1 && e.choose(0, 2 * mb, 2, fast) == 1);
  }
  return unit::finish("decision model");
}
