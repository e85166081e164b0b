// Where the rails' node-aware Allreduce (coll/allreduce.cpp) cuts a node's
// vector into slices, slice i for local rank i, which runs the inter-node
// ring on it. Slices of equal length code to unequal sizes where the data's
// compressibility varies along the vector (a field's smooth and rough
// parts): with heat fields on 256 ranks the busiest rank sent 1.13x
// (lossless) and 1.33x (lossy) the mean bytes (docs/scale.md). So the cuts
// follow the bytes. Each rank records what its slice cost on the wire per
// element; now and then the ranks agree on these (the largest over each
// rail's members), and the cuts move so that every slice carries the same
// estimated bytes, the cost taken as even within each former slice. A few
// agreements converge where the data's shape holds from call to call.
//
// Only bytes decide, never time: a rerun with the same data and layout cuts
// alike, so its results repeat. No MPI here (the agreement is the caller's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace adacomp {

class RailSplit {
 public:
  // Agreements after calls 1, 3, 7, 15 ... (the gaps doubling), then every
  // kMaxInterval-th call.
  static constexpr uint32_t kMaxInterval = 64;

  // The slices of `count` elements for `parts` local ranks: slice i is
  // [displs[i], displs[i] + counts[i]). Even until the first agreement, and
  // whenever `parts` differs from the agreed one.
  void cuts(size_t count, int parts, std::vector<int>* counts, std::vector<int>* displs) const;
  // Counts a call; true when it should end with an agreement. Every rank of
  // the communicator counts the same calls, so all agree on the same ones.
  bool agreement_due();
  // Applies the agreed wire bytes per element of each of the `parts`
  // slices of the cuts in use (0: nothing coded there, taken as the mean).
  void agree(const double* bytes_per_element, int parts);

 private:
  std::vector<double> bounds_;  // parts + 1 fractions of the vector, 0 to 1
  uint32_t calls_ = 0, next_ = 1, interval_ = 1;
};

}  // namespace adacomp
