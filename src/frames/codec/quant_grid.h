// Quantisation on a grid shared by every rank, for reduction on codes (what
// hZCCL calls homomorphic): each rank quantises its input once to integer
// codes q = round(x / s); codes of different ranks are added as integers
// (wrapping uint32 arithmetic) without decoding; the sum is decoded once as
// Q * s.
//
// Grid. s = 2^exp, a power of two, so that x / s and Q * s are exact in
// double (no rounding anywhere but the one rounding to the nearest
// integer, |x - q s| <= s / 2 exactly). With P inputs the decoded sum
// misses the exact sum by at most P s / 2; for floats the result is then
// rounded to float once (<= 2^-24 of its magnitude, or 2^-150 below
// FLT_MIN). choose_grid() budgets s so that the total stays within the
// user's bound, and checks that no code and no partial sum can overflow
// an int32: P (max|x| / s + 1) < 2^31. Callers agree on max|x| and the
// bound over all ranks first, so every rank picks the same grid; any value
// that is not finite, or a grid that does not fit, makes the whole call
// take another path.
//
// The coded codes: the body of a code payload, one per ring chunk, whose
// envelope (form, grid, count) wire/code_payload.h writes and checks. Two
// forms (little-endian):
//   Form 1 (kFormPlanes), the blocks:
//     heads: ceil(n/32) bytes, (order - 1) * 65 + width, order 1..2, width 0..32,
//     planes: 4 * width bytes per block of 32 codes: the zigzagged first or
//             second differences of the codes (simd.h bit planes; the last
//             block is padded with zero residuals).
//   Form 2 (kFormZstd, the entropy form, for slow links): varint size of
//     form 1's body, then one zstd frame of that body (level 1). Written
//     only where smaller than form 1; on smooth fields about 1.5x smaller.
// Lossless over the codes: every rank decodes the same codes from the same
// bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/codec.h"

namespace adacomp {
namespace qgrid {

// The grid exponent for a sum of `inputs` values of `kind` (f32/f64), each
// |x| <= max_abs, whose decoded result must be within `bound` of the exact
// sum. False when no grid qualifies (bound too small for the result's own
// rounding, a code range that could overflow, values out of range).
bool choose_grid(double bound, double max_abs, int inputs, ElemKind kind, int* exp);
// What the decoded sum of `inputs` such values coded on grid 2^exp is
// proven within of their exact sum: P s / 2, and for floats the one
// rounding of the result. choose_grid's exponent keeps it within `bound`.
double grid_error(int exp, double max_abs, int inputs, ElemKind kind);

// The finite range of n values of `kind` (f32/f64): lo and hi of the finite
// ones (lo > hi when there are none), and whether any value is NaN or Inf.
// For the agreement of a call's grid; exact, whatever the ISA.
bool finite_range(ElemKind kind, const void* x, size_t n, double* lo, double* hi);

// Codes of n values: q = round-half-even(x * 2^-exp) as int32 bits. The
// values must be finite and within the max_abs the grid was chosen for.
void quantize(ElemKind kind, const void* x, size_t n, int exp, uint32_t* q);

// out[i] = (T)(int32(q[i]) * 2^exp).
void reconstruct(ElemKind kind, const uint32_t* q, size_t n, int exp, void* out);

constexpr uint8_t kFormPlanes = 1, kFormZstd = 2;

// Largest coded size of n codes.
size_t max_codes_bytes(size_t n);

// Codes q[0..n) into dst (max_codes_bytes(n) bytes), in the entropy form
// where `entropy` asks and it is smaller; *form says which. Returns the size.
size_t write_codes(const uint32_t* q, size_t n, bool entropy, uint8_t* dst, uint8_t* form);

// Decodes exactly n codes coded in `form` (all of the `bytes` at src)
// straight to the values they stand for on grid exp, out[i] = (T)(q[i] *
// 2^exp) as reconstruct() gives, or returns kCodecCorrupt without writing out.
long codes_to_values(uint8_t form, const uint8_t* src, size_t bytes, int exp, ElemKind kind,
                     void* out, size_t n);

// acc[i] += the codes (wrapping); kCodecCorrupt leaves acc untouched. Added
// to zeros, the codes themselves.
long add_codes(uint8_t form, const uint8_t* src, size_t bytes, uint32_t* acc, size_t n);

}  // namespace qgrid
}  // namespace adacomp
