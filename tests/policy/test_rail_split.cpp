// The rails' cuts (policy/rail_split.h) without MPI: even at first, moved
// by agreed bytes so that each slice carries the same estimated cost,
// converging on a vector whose cost changes along it, and the agreements'
// doubling schedule.
#include "policy/rail_split.h"

#include <cmath>
#include <vector>

#include "unit.h"

using namespace adacomp;

namespace {

// Wire bytes per element of each slice of `counts`, for data whose cost
// per element is `cheap` in [0, n/2) and `dear` in [n/2, n).
std::vector<double> densities(const std::vector<int>& counts, const std::vector<int>& displs,
                              size_t n, double cheap, double dear) {
  std::vector<double> d(counts.size());
  for (size_t i = 0; i < counts.size(); ++i) {
    double cost = 0;
    for (int k = 0; k < counts[i]; ++k) cost += static_cast<size_t>(displs[i] + k) < n / 2 ? cheap : dear;
    d[i] = counts[i] ? cost / counts[i] : 0;
  }
  return d;
}

double spread(const std::vector<int>& counts, const std::vector<double>& d) {
  double most = 0, sum = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const double c = counts[i] * d[i];
    most = std::max(most, c), sum += c;
  }
  return most / (sum / counts.size());
}

}  // namespace

int main() {
  {  // even before any agreement; every element in exactly one slice
    RailSplit s;
    std::vector<int> c, d;
    s.cuts(10, 4, &c, &d);
    EXPECT(c == (std::vector<int>{2, 3, 2, 3}) && d == (std::vector<int>{0, 2, 5, 7}));
    s.cuts(0, 3, &c, &d);
    EXPECT(c == (std::vector<int>{0, 0, 0}));
  }
  {  // agreements after calls 1, 3, 7, 15 ..., then every 64th
    RailSplit s;
    std::vector<int> due;
    for (int call = 1; call <= 300; ++call)
      if (s.agreement_due()) due.push_back(call);
    EXPECT((std::vector<int>{due.begin(), due.begin() + 8}) ==
           (std::vector<int>{1, 3, 7, 15, 31, 63, 127, 191}));
  }
  {  // half cheap (0.1 B/element), half dear (1 B): the dear slices shrink
    for (int parts : {2, 3, 4, 16}) {
      RailSplit s;
      const size_t n = 1 << 16;
      std::vector<int> c, d;
      s.cuts(n, parts, &c, &d);
      const double first = spread(c, densities(c, d, n, 0.1, 1.0));
      for (int round = 0; round < 6; ++round) {
        const std::vector<double> dens = densities(c, d, n, 0.1, 1.0);
        s.agree(dens.data(), parts);
        s.cuts(n, parts, &c, &d);
      }
      const double last = spread(c, densities(c, d, n, 0.1, 1.0));
      EXPECT(first > 1.3);
      EXPECT(last < 1.05);
      long total = 0;
      for (int i = 0; i < parts; ++i) {
        EXPECT(d[i] == total);
        total += c[i];
      }
      EXPECT(total == static_cast<long>(n));
    }
  }
  {  // a slice that coded nothing counts as the mean; nonsense changes nothing
    RailSplit s;
    std::vector<int> c, d;
    const double some[] = {1.0, 0.0, 1.0};
    s.agree(some, 3);
    s.cuts(300, 3, &c, &d);
    EXPECT(c == (std::vector<int>{100, 100, 100}));
    const double none[] = {0.0, NAN, -1.0};
    s.agree(none, 3);
    s.cuts(300, 3, &c, &d);
    EXPECT(c == (std::vector<int>{100, 100, 100}));
    // A different rank count than agreed: even again.
    s.cuts(300, 2, &c, &d);
    EXPECT(c == (std::vector<int>{150, 150}));
  }
  return unit::finish("policy/rail_split");
}
