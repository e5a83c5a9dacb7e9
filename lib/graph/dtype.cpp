#include "graph/dtype.h"

#include <array>

namespace osched {
namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  int itemsize;
  bool floating;
};

constexpr std::array<DTypeInfo, 28> kDTypes = {{
    {DType::Float64, "float64", 8, true},
    {DType::Float32, "float32", 4, true},
    {DType::Float16, "float16", 2, true},
    {DType::BFloat16, "bfloat16", 2, true},
    {DType::Float8E4M3FN, "float8_e4m3fn", 1, true},
    {DType::Float8E5M2, "float8_e5m2", 1, true},
    {DType::Float8E4M3FNUZ, "float8_e4m3fnuz", 1, true},
    {DType::Float8E5M2FNUZ, "float8_e5m2fnuz", 1, true},
    {DType::Int64, "int64", 8, false},
    {DType::Int32, "int32", 4, false},
    {DType::Int16, "int16", 2, false},
    {DType::Int8, "int8", 1, false},
    {DType::UInt8, "uint8", 1, false},
    {DType::Bool, "bool", 1, false},
    {DType::Complex64, "complex64", 8, true},
    {DType::Complex128, "complex128", 16, true},
    {DType::UInt16, "uint16", 2, false},
    {DType::UInt32, "uint32", 4, false},
    {DType::UInt64, "uint64", 8, false},
    {DType::Complex32, "complex32", 4, true},
    {DType::BComplex32, "bcomplex32", 4, true},
    {DType::Float8E8M0FNU, "float8_e8m0fnu", 1, true},
    {DType::Float4E2M1FNx2, "float4_e2m1fn_x2", 1, true},
    {DType::Bits1x8, "bits1x8", 1, false},
    {DType::Bits2x4, "bits2x4", 1, false},
    {DType::Bits4x2, "bits4x2", 1, false},
    {DType::Bits8, "bits8", 1, false},
    {DType::Bits16, "bits16", 2, false},
}};

// Indexed by the enum: each entry at its own value.
static_assert([] {
  for (size_t i = 0; i < kDTypes.size(); ++i)
    if (static_cast<size_t>(kDTypes[i].dtype) != i)
      return false;
  return true;
}());

const DTypeInfo& info(DType d) {
  return kDTypes[static_cast<size_t>(d)];
}

} // namespace

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& i : kDTypes)
    if (i.name == name)
      return i.dtype;
  return std::nullopt;
}

std::string_view dtype_name(DType d) {
  return info(d).name;
}
int dtype_itemsize(DType d) {
  return info(d).itemsize;
}
bool dtype_is_floating(DType d) {
  return info(d).floating;
}

} // namespace osched
