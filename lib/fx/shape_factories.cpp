// Shape rules for factories: full, empty, new_*, device_put.

#include "fx/shape_rules.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "ops/collective.h"
#include "ops/op_table.h"

namespace osched::shape_rules {

// aten.full, aten.zeros, aten.ones, aten.empty, aten.empty_strided, aten.randn, aten.rand
std::optional<InferredVal> rule_full(const Ctx& c, std::string_view, const TensorMeta*) {
  auto shape = c.dims(c.arg(0, "size"));
  if (!shape)
    return std::nullopt;
  DType dtype = dtype_value(c.n.kwarg("dtype")).value_or(DType::Float32);
  TensorMeta m = fresh(std::move(*shape), dtype, device_of(c, nullptr));
  if (std::string_view(c.n.target).substr(0, 19) == "aten.empty_strided." &&
      !take_given_strides(c, 1, m))
    return std::nullopt;
  return single(std::move(m));
}

// aten.new_empty, aten.new_zeros, aten.new_ones, aten.new_full, aten.new_empty_strided
std::optional<InferredVal> rule_new_empty(const Ctx& c, std::string_view, const TensorMeta* x) {
  auto shape = c.dims(c.arg(1, "size"));
  if (!shape)
    return std::nullopt;
  DType dtype = dtype_value(c.n.kwarg("dtype")).value_or(x->dtype);
  TensorMeta m = fresh(std::move(*shape), dtype, device_of(c, x));
  if (std::string_view(c.n.target).substr(0, 23) == "aten.new_empty_strided." &&
      !take_given_strides(c, 2, m))
    return std::nullopt;
  return single(std::move(m));
}

// prims.device_put
std::optional<InferredVal> rule_device_put(const Ctx& c, std::string_view, const TensorMeta* x) {
  const Value* d = c.arg(1, "device");
  if (!d || d->kind != Value::Kind::String)
    return std::nullopt;
  return single(fresh(x->shape, x->dtype, d->str()));
}

} // namespace osched::shape_rules
