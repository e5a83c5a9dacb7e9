#pragma once
// Tensor element types, named as torch names them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace osched {

enum class DType : uint8_t {
  Float64,
  Float32,
  Float16,
  BFloat16,
  Float8E4M3FN,
  Float8E5M2,
  Float8E4M3FNUZ,
  Float8E5M2FNUZ,
  Int64,
  Int32,
  Int16,
  Int8,
  UInt8,
  Bool,
  Complex64,
  Complex128,
  UInt16,
  UInt32,
  UInt64,
  Complex32,
  BComplex32,
  Float8E8M0FNU,
  Float4E2M1FNx2,
  Bits1x8,
  Bits2x4,
  Bits4x2,
  Bits8,
  Bits16,
};

std::optional<DType> parse_dtype(std::string_view name);
std::string_view dtype_name(DType d);
int dtype_itemsize(DType d);
bool dtype_is_floating(DType d);

} // namespace osched
