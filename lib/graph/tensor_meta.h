#pragma once
// Output tensor metadata of a node: shape, stride, dtype, device, aliasing.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/boxed_json.h"
#include "graph/boxed_optional.h"
#include "graph/count_optional.h"
#include "graph/dtype.h"
#include "graph/inline_vector.h"
#include "graph/interned_string.h"

namespace osched {

// Symbol names are interned once per process, so a dim stays 16 bytes
// (graphs hold millions of them).
int32_t intern_symbol(std::string_view name);
const std::string& symbol_name(int32_t id);

// A dimension: a concrete integer or a symbol with an optional hint.
struct Dim {
  int64_t value = 0;    // concrete value, or the hint of a backed symbol
  int32_t sym_id = -1;  // interned symbol name; -1 for concrete dims
  bool has_hint = true; // false only for unbacked symbols

  static Dim of(int64_t v) {
    Dim d;
    d.value = v;
    return d;
  }
  bool is_symbolic() const { return sym_id >= 0; }
  const std::string& sym() const { return symbol_name(sym_id); }
  bool is_known() const { return !is_symbolic() || has_hint; }
  // Size used by estimates: the value or hint; unbacked dims count as 0.
  int64_t hint_or_zero() const { return is_known() ? value : 0; }
};

// Shape or stride: up to rank 4 in place, so reading a graph allocates
// nothing for its dims (a std::vector took a heap block for each).
using DimVector = InlineVector<Dim, 4>;

struct TensorMeta {
  DimVector shape;
  DimVector stride;
  InternedString device; // a few distinct values per graph
  DType dtype = DType::Float32;
  BoxedOptional<std::string> storage; // usually absent
  CountOptional storage_offset;
  CountOptional storage_bytes;
  BoxedJson extra; // unknown fields, kept on round trip (null when none)

  int64_t numel() const;
  // Bytes of the elements (numel × itemsize).
  int64_t nbytes() const;
  // Bytes of the allocation this tensor implies: storage_bytes if given, else
  // the span reachable through shape and stride.
  int64_t allocation_bytes() const;
  bool has_unbacked_dims() const;
  // "" when numel, nbytes and allocation_bytes fit within kMaxTensorBytes
  // without overflow; else the field at fault ("shape", "stride",
  // "storage_bytes").
  std::string size_fault() const;
};

// Largest tensor accepted (4 PiB): sums over a graph's tensors stay far from
// int64 overflow.
constexpr int64_t kMaxTensorBytes = int64_t{1} << 52;

} // namespace osched
