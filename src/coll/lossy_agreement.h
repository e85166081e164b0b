// Error budget of lossy collectives (the arithmetic: decision/budget.h), and
// the agreement on it that a lossy reduction makes before its first coding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <mpi.h>

#include "coll/compressed_call.h"
#include "coll/plan.h"
#include "coll/ring_codes.h"

namespace adacomp {

// Per-compression bound from this rank's data alone (a Bcast's root), or 0
// when no positive bound is left (the call then codes losslessly). A
// relative user bound is scaled by the value range of the finite values.
// Sets `call`'s certificate.
double hop_bound(CompressedCall& call, const void* data, size_t count, int compressions,
                 int additions);

// A lossy reduction's per-hop bound, or its grid when it reduces on codes
// (coll/ring_codes.h): the value range (and for a codes candidate the codes
// view) of every rank's input, MAX-reduced over plan.state->coll, started
// when the call's schedule is built (so in call order on every rank), and
// the choice made from the agreed numbers before the first coding. Blocking
// calls agree with PMPI_Allreduce, the others with PMPI_Iallreduce: the
// maximum is exact, so both choose alike. Nothing to agree unless lossy.
// ADACOMP_LOSSY_CHECK for a lossy blocking reduction: the exact result of
// `input` (a copy of the call's input) by `reduce`, a PMPI reduction run
// on every rank alike, compared with the call's `result` (`count` elements
// of plan.type.kind; `result` null: this rank has none, as a Reduce's
// non-root); the largest difference goes to the call's site
// (report/stats.h note_measured_error). A NaN or Inf that differs in its
// bits counts as an infinite difference.
template <class Reduce>
void check_against_exact(const CollPlan& plan, const void* input, const void* result, size_t count,
                         Reduce reduce);
// The input ADACOMP_LOSSY_CHECK keeps of a blocking lossy reduction
// (`input`: its send buffer, or the receive buffer in place), before the
// call may overwrite it; empty when the call is not checked.
std::vector<uint8_t> checked_input(const CollPlan& plan, CallForm form, const void* input);
double largest_difference(ElemKind kind, const void* a, const void* b, size_t count);

// What a blocking schedule that can make its result a second time
// (Schedule::rerun) tells the agreement: the user buffer the call
// overwrites while it still holds this rank's input (in place), or null.
struct SecondRun {
  void* in_place = nullptr;
  size_t bytes = 0;
};

// The agreement on the range, and for a reduction on codes its grid.
// Started on a kept view: a blocking reduction on codes whose schedule can
// run a second time (`second`) and whose last call of the same kind on the
// communicator agreed a view (runtime/comm_state.h AgreedView) starts at
// once on that view's grid, with no scan and no agreement before its first
// coding. Its scan runs while the call waits on the wire (on_idle), and
// confirm() agrees on the scanned view at the end: when the grid of this
// call's own view is the one it ran on, the result is, bit for bit, the one
// the call would have made after a scan (the grid is all the coding reads
// of the view), and so is the certificate. Otherwise every rank restores
// its input in place and the call runs again on its own grid; the kind then
// rests 1, 2, 4 ... 64 calls before starting on a kept view again. An
// input in place on any rank costs that rank a copy, so a kind seen in
// place is never started on a kept view.
class LossyAgreement {
 public:
  // Every element passes `compressions` codings and `additions` ops.
  // `codes_members` > 0: the call is a codes candidate (codes_candidate)
  // whose ring has that many members, each bringing the sum of up to
  // `per_member` ranks' inputs.
  void start(CompressedCall& call, const void* data, size_t count, int compressions, int additions,
             int codes_members = 0, int per_member = 1, const SecondRun* second = nullptr);
  // True once the bound or the grid is set in `call` (at once when not
  // lossy); with `wait`, always.
  bool ready(CompressedCall& call, bool wait);
  const CodesGrid& grid() const { return grid_; }
  // After the call's last step: false when it started on a kept view whose
  // grid its inputs do not agree on, and must run again (Schedule::rerun).
  bool confirm(CompressedCall& call);

 private:
  bool start_on_kept_view(CompressedCall& call, const void* data, size_t count,
                          const SecondRun& second);
  bool scan_piece(ElemKind kind);
  AgreedView& keep_view(CompressedCall& call, const double* agreed);

  // {-lo, hi}, the codes view, whether this rank's input is in place.
  static constexpr int kValues = 2 + kCodesView + 1;
  double mine_[kValues] = {}, widest_[kValues] = {};
  MPI_Request req_ = MPI_REQUEST_NULL;
  int compressions_ = 0, additions_ = 0, codes_members_ = 0, per_member_ = 1;
  bool pending_ = false, keeps_views_ = false;
  CodesGrid grid_;
  // Started on a kept view: the scan deferred to idle time.
  bool on_kept_view_ = false, scan_bad_ = false;
  const uint8_t* scan_data_ = nullptr;
  size_t scan_count_ = 0, scanned_ = 0;
  double scan_lo_ = 0, scan_hi_ = 0;
  void* in_place_ = nullptr;         // restored from kept_ before a second run
  const uint8_t* kept_ = nullptr;
  size_t kept_bytes_ = 0;
};

template <class Reduce>
void check_against_exact(const CollPlan& plan, const void* input, const void* result, size_t count,
                         Reduce reduce) {
  if (!input) return;
  std::vector<uint8_t> exact(plan.bytes);
  if (reduce(input, exact.data()) != MPI_SUCCESS || !result) return;
  note_measured_error(largest_difference(plan.type.kind, result, exact.data(), count));
}

}  // namespace adacomp
