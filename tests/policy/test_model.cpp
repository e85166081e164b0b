// The adaptive policy's decisions without MPI: exploration order, the
// agreement rule with its margin, the doubling rest, and the sender's
// break-even for point-to-point. A plain executable, nonzero exit on failure.
#include "policy/model.h"
#include "unit.h"

using namespace adacomp;

namespace {

// Runs one exploration with the given raw and compressed times (this rank's
// are also the slowest) and returns the settled path.
Path explore(PathChoice& c, double raw, double compressed) {
  for (int i = 0; i < 2 * PathChoice::kSamples; ++i) {
    const Path p = c.next();
    EXPECT(p == (i % 2 ? Path::compressed : Path::raw));
    const bool agree = c.record(p == Path::raw ? raw : compressed);
    EXPECT(agree == (i == 2 * PathChoice::kSamples - 1));
    if (agree) c.agree(c.best());
  }
  return c.next();
}

// Calls on the compressed path until the next exploration (which starts
// with a raw call); returns how many.
int rest(PathChoice& c) {
  int n = 0;
  while (c.next() == Path::compressed && n < 100000) {
    c.record(1.0);
    ++n;
  }
  return n;
}

}  // namespace

int main() {
  {  // compressed clearly faster: settles compressed, rests 32 then 64 calls
    PathChoice c;
    EXPECT(explore(c, 1.0, 0.5) == Path::compressed);
    EXPECT(c.settled_compressed());
    EXPECT(rest(c) == 32);
    EXPECT(explore(c, 1.0, 0.5) == Path::compressed);
    EXPECT(rest(c) == 64);
    // The data turns incompressible: the next exploration switches back,
    // and the rest starts over at 32.
    EXPECT(explore(c, 1.0, 3.0) == Path::raw);
    EXPECT(!c.settled_compressed());
  }
  {  // within the margin: raw stays
    PathChoice c;
    EXPECT(explore(c, 1.0, 1.0 - PathChoice::kMargin / 2) == Path::raw);
  }
  {  // the best sample counts: one slow first call does not decide
    PathChoice c;
    EXPECT(c.next() == Path::raw);
    c.record(5.0);  // first raw call: connection set-up
    c.record(0.6);  // compressed
    c.record(1.0);  // raw
    EXPECT(c.record(0.7));  // compressed: exploration done
    c.agree(c.best());
    EXPECT(c.settled_compressed());
  }
  {  // point-to-point break-even (cMPI): ratio 2 saves half the wire time
    LinkModel slow{125e6, 50e-6}, fast{12.5e9, 2e-6};
    EXPECT(coding_pays(2.0, 1e-9, slow));   // 1 ns/B codec vs 4 ns/B saved
    EXPECT(!coding_pays(2.0, 1e-9, fast));  // 0.04 ns/B saved
    EXPECT(!coding_pays(1.01, 0, slow));    // incompressible
    EXPECT(!coding_pays(2.0, 0, LinkModel{}));  // unknown link: never
    CodingEstimate e;
    EXPECT(e.should_code(1, 1 << 20, slow));   // nothing known: a trial
    e.record(1, 1 << 20, 1 << 19, 0.5e-3);     // ratio 2, 1 ms per MB both ways
    EXPECT(e.should_code(1, 1 << 20, slow));
    EXPECT(!e.should_code(1, 1 << 20, fast));  // not on a fast link...
    int trials = 0;
    for (uint32_t i = 0; i < CodingEstimate::kRetryAfter; ++i) trials += e.should_code(1, 1 << 20, fast);
    EXPECT(trials == 1);                       // ...but retried every kRetryAfter
    EXPECT(!e.should_code(1, 1 << 20, LinkModel{}));
  }
  return unit::finish("policy model");
}
