// The codes ring's payload form (decision/form_choice.h) without MPI: each
// form tried once, then the faster on the link at hand with the other
// retried at doubling distances, and the overlap rule of pipelined calls.
// Figures are those measured on the heat3d float32 field at 1e-4: per raw
// byte, quantisation 0.27 ns, planes 0.36 ns to encode and 0.35 to decode at
// ratio 3.1, the entropy form 1.2 and 0.8 ns at ratio 4.3.
#include "decision/form_choice.h"

#include "unit.h"

using namespace adacomp;

namespace {

constexpr size_t kRaw = 1 << 20;

LinkModel link(double bytes_per_second) {
  LinkModel l;
  l.bandwidth_Bps = bytes_per_second;
  return l;
}

// One chunk of each form sent and received, as the measured figures.
void measure(FormChoice& f) {
  f.record_quantise(kRaw, 0.27e-9 * kRaw);
  f.record_encode(FormChoice::planes, kRaw, kRaw / 3.1, 0.36e-9 * kRaw);
  f.record_decode(FormChoice::planes, kRaw, 0.35e-9 * kRaw);
  f.record_encode(FormChoice::entropy, kRaw, kRaw / 4.3, 1.2e-9 * kRaw);
  f.record_decode(FormChoice::entropy, kRaw, 0.8e-9 * kRaw);
}

// How many of `n` chunks choose() sends in `form`.
int count(FormChoice& f, const LinkModel& l, bool pipelined, FormChoice::Form form, int n) {
  int k = 0;
  for (int i = 0; i < n; ++i) k += f.choose(l, pipelined) == form;
  return k;
}

}  // namespace

int main() {
  {  // unmeasured: planes, then entropy; an unknown link: entropy always
    FormChoice f;
    EXPECT(f.choose(link(1.25e9), true) == FormChoice::planes);
    f.record_encode(FormChoice::planes, kRaw, kRaw / 3, 1e-4);
    EXPECT(f.choose(link(1.25e9), true) == FormChoice::entropy);
    EXPECT(f.choose(LinkModel{}, true) == FormChoice::entropy);
  }
  {  // 10 Gbit/s: coding bounds the call, the planes win, pipelined or not
    FormChoice f;
    measure(f);
    const LinkModel l = link(1.25e9);
    EXPECT(f.estimate(FormChoice::planes, l, true) < f.estimate(FormChoice::entropy, l, true));
    const int n = 1000;
    const int trials = count(f, l, true, FormChoice::entropy, n);
    // Retries at 1, 2, 4 ... 64 chunks, then every 64th: bounded exploration.
    EXPECT(trials >= n / 64 && trials <= n / 64 + 8);
    EXPECT(count(f, l, false, FormChoice::planes, n) > n - n / 64 - 2);
  }
  {  // 1 Gbit/s: the wire bounds the call; the entropy form wins
    FormChoice f;
    measure(f);
    const LinkModel l = link(1.25e8);
    EXPECT(f.estimate(FormChoice::entropy, l, true) < f.estimate(FormChoice::planes, l, true));
    EXPECT(count(f, l, true, FormChoice::entropy, 1000) > 1000 - 1000 / 64 - 8);
    // Not pipelined, coding adds to the wire: still the entropy form here,
    // within the planes' margin.
    EXPECT(count(f, l, false, FormChoice::entropy, 1000) > 1000 - 1000 / 64 - 8);
  }
  {  // overlap: pipelined takes the slower of coding and wire, not the sum
    FormChoice f;
    measure(f);
    const LinkModel l = link(1.25e8);
    const double coding = (0.27 + 0.36 + 0.35) * 1e-9, wire = 1 / 3.1 / 1.25e8;
    EXPECT(f.estimate(FormChoice::planes, l, true) > 0.99 * wire &&
           f.estimate(FormChoice::planes, l, true) < 1.01 * wire);
    EXPECT(f.estimate(FormChoice::planes, l, false) > 0.99 * (coding + wire) &&
           f.estimate(FormChoice::planes, l, false) < 1.01 * (coding + wire));
  }
  {  // the estimates follow the measurements: a cheaper zstd stage moves the choice
    FormChoice f;
    measure(f);
    const LinkModel fast = link(1.25e9);
    EXPECT(count(f, fast, true, FormChoice::planes, 100) > 90);
    // The zstd stage turns cheap (an easier field): entropy wins at 10 Gbit/s.
    for (int i = 0; i < 20; ++i) {
      f.record_encode(FormChoice::entropy, kRaw, kRaw / 8, 0.3e-9 * kRaw);
      f.record_decode(FormChoice::entropy, kRaw, 0.3e-9 * kRaw);
    }
    EXPECT(count(f, fast, false, FormChoice::entropy, 100) > 90);
  }
  return unit::finish("decision/form_choice");
}
