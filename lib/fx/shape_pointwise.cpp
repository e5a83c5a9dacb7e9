// Shape rules for pointwise ops, dtype conversions and ops that keep their
// input's shape.

#include "fx/shape_rules.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "ops/collective.h"
#include "ops/op_table.h"

namespace osched::shape_rules {

namespace {

bool is_comparison(std::string_view p) {
  static constexpr std::array<std::string_view, 11> k = {
      "aten.eq",          "aten.ne",    "aten.lt",          "aten.le",
      "aten.gt",          "aten.ge",    "aten.logical_and", "aten.logical_or",
      "aten.logical_not", "aten.isnan", "aten.isinf"};
  return std::find(k.begin(), k.end(), p) != k.end();
}

// Copies laid out as their input (preserve_format, or self.clone() inside).
bool keeps_layout(std::string_view p) {
  static constexpr std::array<std::string_view, 18> k = {
      "aten.clone",          "aten.lift_fresh_copy",   "aten.copy",
      "aten.zeros_like",     "aten.ones_like",         "aten.empty_like",
      "aten.full_like",      "aten.rand_like",         "aten.randn_like",
      "aten.index_put",      "aten._unsafe_index_put", "aten.scatter",
      "aten.scatter_add",    "aten.index_copy",        "aten.slice_scatter",
      "aten.select_scatter", "aten.diagonal_scatter",  "aten.as_strided_scatter"};
  return std::find(k.begin(), k.end(), p) != k.end();
}

} // namespace

std::optional<InferredVal> pointwise(const Ctx& c, std::string_view packet) {
  std::vector<const TensorMeta*> ins;
  for (size_t i = 0; i < c.n.args.size(); ++i)
    if (const TensorMeta* m = c.meta(i))
      ins.push_back(m);
  if (ins.empty())
    return std::nullopt;
  auto shape = broadcast(ins);
  if (!shape)
    return std::nullopt;
  // where(cond, a, b) takes its type from a and b, not from the condition
  // (Python numbers among them: int64 for ints, float32 for floats).
  std::vector<const TensorMeta*> values = ins;
  std::optional<DType> scalar_type;
  if (packet == "aten.where") {
    values.clear();
    for (size_t i = 1; i < 3; ++i) {
      if (const TensorMeta* m = c.meta(i))
        values.push_back(m);
      else if (const Value* v = c.arg(i); v && v->kind == Value::Kind::Float)
        scalar_type = DType::Float32;
      else if (v && v->kind == Value::Kind::Int && !scalar_type)
        scalar_type = DType::Int64;
    }
  }
  DType dtype = values.empty() ? scalar_type.value_or(DType::Float32) : values[0]->dtype;
  for (const auto* m : values)
    if (dtype_is_floating(m->dtype)) {
      dtype = m->dtype;
      break;
    }
  if (is_comparison(packet))
    dtype = DType::Bool;
  if (auto d = dtype_value(c.n.kwarg("dtype")))
    dtype = *d;
  TensorMeta out = fresh(std::move(*shape), dtype, device_of(c, ins[0]));
  if (std::optional<std::vector<Dim>> st = elementwise_strides(ins, out.shape))
    out.stride = std::move(*st);
  return single(std::move(out));
}

std::optional<InferredVal> rule_convert(const Ctx& c, std::string_view, const TensorMeta* x) {
  auto d = dtype_value(c.arg(1, "dtype"));
  if (!x)
    return std::nullopt;
  // A conversion is elementwise: the result keeps a dense input's layout.
  TensorMeta m = fresh(x->shape, d.value_or(x->dtype), device_of(c, x));
  if (std::optional<std::vector<Dim>> st = requested_strides(c, m.shape))
    m.stride = std::move(*st);
  else
    m.stride = preserved_strides(*x);
  return single(std::move(m));
}

std::optional<InferredVal> rule_same_shape(const Ctx& c, std::string_view p, const TensorMeta* x) {
  if (!x)
    return std::nullopt;
  // In-place ops return self; detach and alias are views of it.
  if (p.back() == '_' || p == "aten.detach" || p == "aten.alias")
    return single(*x);
  DType dtype = dtype_value(c.n.kwarg("dtype")).value_or(x->dtype);
  TensorMeta m = fresh(x->shape, dtype, device_of(c, x));
  if (std::optional<std::vector<Dim>> st = requested_strides(c, m.shape))
    m.stride = std::move(*st);
  else if (keeps_layout(p))
    m.stride = preserved_strides(*x);
  return single(std::move(m));
}

// aten.native_dropout
std::optional<InferredVal> rule_native_dropout(const Ctx&, std::string_view, const TensorMeta* x) {
  return multi({fresh(x->shape, x->dtype, x->device), fresh(x->shape, DType::Bool, x->device)});
}

// Python operators on tensors (Dynamo graphs): elementwise, as the aten
// op of the same name (and_ is bitwise_and, ...).
std::optional<InferredVal> python_operator(const Ctx& c, const std::string& t) {
  std::string name = t.substr(t.find('.') + 1);
  static const std::pair<std::string_view, std::string_view> kRenamed[] = {
      {"and_", "bitwise_and"},   {"or_", "bitwise_or"}, {"xor", "bitwise_xor"},
      {"invert", "bitwise_not"}, {"truediv", "div"},    {"floordiv", "div"}};
  for (const auto& [from, to] : kRenamed)
    if (name == from)
      name = to;
  static const std::string_view kElementwise[] = {
      "add", "sub", "mul", "div", "mod",         "pow",        "neg",         "eq",         "ne",
      "lt",  "le",  "gt",  "ge",  "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"};
  for (auto e : kElementwise)
    if (name == e)
      return pointwise(c, "aten." + name);
  return std::nullopt;
}

} // namespace osched::shape_rules
