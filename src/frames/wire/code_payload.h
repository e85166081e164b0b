// Code payload: one chunk of the Allreduce that reduces on quantisation
// codes (coll/ring_codes.cpp, codec/quant_grid.h), the one message of the
// library that travels without a frame header. Both ends know the chunk's
// code count and the call's grid, and the payload's own envelope checks
// both; a frame header would add 24 bytes and a checksum per chunk on that
// hot path and tell the receiver nothing it does not know.
//
// Layout, little-endian:
//   u8 form      how the codes are coded: 1 planes, 2 zstd (qgrid::kForm*)
//   i16 exp      the grid's exponent (step 2^exp), checked against the
//                receiver's
//   varint n     the code count (LEB128), checked against the chunk's
//   then         the coded codes, to the end (codec/quant_grid.h)
#pragma once

#include <cstddef>
#include <cstdint>

#include "codec/codec.h"

namespace adacomp {

// Largest payload of n codes.
size_t code_payload_capacity(size_t n);

// Writes the payload of q[0..n) on grid exp into dst
// (code_payload_capacity(n) bytes), in the entropy form where `entropy`
// asks and it is smaller. Returns its size.
size_t write_code_payload(const uint32_t* q, size_t n, int exp, bool entropy, uint8_t* dst);

// The `bytes` at src as a payload of exactly n codes on grid exp:
// acc[i] += its codes (wrapping), or straight to the values they stand for
// (qgrid::codes_to_values). Returns kCodecOk, or kCodecCorrupt with acc or
// out untouched.
long add_code_payload(const uint8_t* src, size_t bytes, int exp, uint32_t* acc, size_t n);
long decode_code_payload(const uint8_t* src, size_t bytes, int exp, ElemKind kind, void* out,
                         size_t n);

}  // namespace adacomp
