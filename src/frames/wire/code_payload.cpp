#include "wire/code_payload.h"

#include "codec/bits.h"
#include "codec/quant_grid.h"

namespace adacomp {
namespace {

constexpr size_t kFixedBytes = 3;  // form, exp

// The envelope of a received payload: its form and where its codes start.
// nullptr when it is cut or names another grid or count.
const uint8_t* open_payload(const uint8_t* src, size_t bytes, int exp, size_t n, uint8_t* form) {
  bits::Reader r(src, bytes);
  int16_t got_exp;
  uint64_t count;
  if (!r.get(form) || !r.get(&got_exp) || !r.get_varint(&count) || got_exp != exp || count != n)
    return nullptr;
  return r.p;
}

}  // namespace

size_t code_payload_capacity(size_t n) {
  return kFixedBytes + bits::varint_size(n) + qgrid::max_codes_bytes(n);
}

size_t write_code_payload(const uint32_t* q, size_t n, int exp, bool entropy, uint8_t* dst) {
  bits::store<int16_t>(dst + 1, static_cast<int16_t>(exp));
  uint8_t* codes = bits::put_varint(dst + kFixedBytes, n);
  const size_t coded = qgrid::write_codes(q, n, entropy, codes, dst);
  return static_cast<size_t>(codes - dst) + coded;
}

long add_code_payload(const uint8_t* src, size_t bytes, int exp, uint32_t* acc, size_t n) {
  uint8_t form;
  const uint8_t* codes = open_payload(src, bytes, exp, n, &form);
  if (!codes) return kCodecCorrupt;
  return qgrid::add_codes(form, codes, bytes - static_cast<size_t>(codes - src), acc, n);
}

long decode_code_payload(const uint8_t* src, size_t bytes, int exp, ElemKind kind, void* out,
                         size_t n) {
  uint8_t form;
  const uint8_t* codes = open_payload(src, bytes, exp, n, &form);
  if (!codes) return kCodecCorrupt;
  return qgrid::codes_to_values(form, codes, bytes - static_cast<size_t>(codes - src), exp, kind,
                                out, n);
}

}  // namespace adacomp
