#include "policy/rail_split.h"

#include <algorithm>
#include <cmath>

namespace adacomp {

void RailSplit::cuts(size_t count, int parts, std::vector<int>* counts,
                     std::vector<int>* displs) const {
  counts->resize(static_cast<size_t>(parts));
  displs->resize(static_cast<size_t>(parts));
  const bool even = bounds_.size() != static_cast<size_t>(parts) + 1;
  size_t begin = 0;
  for (int i = 0; i < parts; ++i) {
    // The last cut is the vector's end whatever the rounding.
    size_t end = count;
    if (i + 1 < parts)
      end = even ? count * static_cast<size_t>(i + 1) / static_cast<size_t>(parts)
                 : std::min(count, static_cast<size_t>(std::llround(bounds_[i + 1] * count)));
    end = std::max(end, begin);
    (*displs)[i] = static_cast<int>(begin);
    (*counts)[i] = static_cast<int>(end - begin);
    begin = end;
  }
}

bool RailSplit::agreement_due() {
  if (++calls_ < next_) return false;
  interval_ = std::min(2 * interval_, kMaxInterval);
  next_ = calls_ + interval_;
  return true;
}

void RailSplit::agree(const double* bytes_per_element, int parts) {
  if (parts < 2) return;
  std::vector<double> old = bounds_;
  if (old.size() != static_cast<size_t>(parts) + 1) {
    old.resize(static_cast<size_t>(parts) + 1);
    for (int i = 0; i <= parts; ++i) old[i] = static_cast<double>(i) / parts;
  }
  // Cost of each old slice (density x width); a slice that coded nothing
  // (or reported nonsense) takes the mean density of the others.
  double sum = 0, known = 0;
  for (int i = 0; i < parts; ++i)
    if (bytes_per_element[i] > 0 && std::isfinite(bytes_per_element[i]))
      sum += bytes_per_element[i] * (old[i + 1] - old[i]), known += old[i + 1] - old[i];
  if (!(sum > 0) || !(known > 0)) return;
  const double mean = sum / known;
  std::vector<double> cost(static_cast<size_t>(parts));
  double total = 0;
  for (int i = 0; i < parts; ++i) {
    const double d = bytes_per_element[i] > 0 && std::isfinite(bytes_per_element[i])
                         ? bytes_per_element[i]
                         : mean;
    cost[i] = d * (old[i + 1] - old[i]);
    total += cost[i];
  }
  // New cut k where the cumulative cost reaches k/parts of the total,
  // linear within each old slice.
  std::vector<double> next(static_cast<size_t>(parts) + 1);
  next[0] = 0;
  next[parts] = 1;
  double before = 0;
  int j = 0;
  for (int k = 1; k < parts; ++k) {
    const double target = total * k / parts;
    while (j < parts - 1 && before + cost[j] < target) before += cost[j++];
    const double within = cost[j] > 0 ? (target - before) / cost[j] : 0;
    next[k] = std::clamp(old[j] + within * (old[j + 1] - old[j]), next[k - 1], 1.0);
  }
  bounds_ = std::move(next);
}

}  // namespace adacomp
