// The values of SymInt nodes: sizes, numels, unbacked symbols and size
// arithmetic, which later sizes refer to.

#include "fx/fx_shape_infer.h"

#include "fx/shape_rules.h"
#include "ops/op_table.h"

namespace osched {

using namespace shape_rules;

FxScalar infer_fx_scalar(const Graph& g, const Node& n, const FxSymbolHints& hints,
                         const FxScalars& scalars) {
  FxScalar out;
  if (!is_scalar_result_target(n.target) || is_getitem_target(n.target))
    return out;
  // Python operators apply to tensors too (Dynamo graphs): a tensor input
  // makes a tensor result.
  if (n.target.str().find("operator.") != std::string::npos) {
    bool tensor_input = false;
    for (const auto& a : n.args)
      for_each_ref(a, [&](const Value& r) {
        const size_t id = static_cast<size_t>(r.i);
        tensor_input |= id >= scalars.size() || !scalars[id].scalar;
      });
    if (tensor_input)
      return out;
  }
  out.scalar = true;
  Ctx c{g, n, hints, scalars};
  const std::string& t = n.target;
  const std::string_view p = overload_packet(t);
  // An integer, or a SymInt node whose value is known as a size.
  auto size_of = [&](const Value* v) -> std::optional<Dim> {
    if (!v || (v->kind != Value::Kind::Int && !v->is_ref()))
      return std::nullopt;
    if (v->is_ref()) {
      const size_t id = static_cast<size_t>(v->i);
      if (id >= scalars.size() || !scalars[id].scalar || !scalars[id].value)
        return std::nullopt;
    }
    return c.dim(*v);
  };
  auto operand = [&](size_t i) { return size_of(c.arg(i)); };
  if (p == "aten.sym_size") {
    const TensorMeta* x = c.meta(0);
    auto d = c.integer(1, "dim", std::nullopt);
    auto a = x && d ? axis(*d, x->shape.size()) : std::nullopt;
    if (a && !x->shape.empty())
      out.value = x->shape[static_cast<size_t>(*a)];
    return out;
  }
  if (p == "aten.sym_numel") {
    if (const TensorMeta* x = c.meta(0)) {
      Dim acc = Dim::of(1);
      for (const auto& d : x->shape)
        acc = *dim_arith("*", acc, d);
      out.value = acc;
    }
    return out;
  }
  if (p == "aten._local_scalar_dense" || t == "aten.item.default") {
    // An unbacked symbol: the node's name, valued only by --hint.
    out.value = named_symbol(n.name, hints);
    return out;
  }
  static const std::pair<std::string_view, std::string_view> kArith[] = {
      {"add", "+"}, {"sub", "-"}, {"mul", "*"}, {"floordiv", "//"}, {"mod", "%"}};
  for (const auto& [name, op] : kArith) {
    if (t == "operator." + std::string(name) || t == "_operator." + std::string(name)) {
      auto a = operand(0), b = operand(1);
      if (a && b)
        out.value = dim_arith(op, *a, *b);
      return out;
    }
  }
  if (t == "operator.neg" || t == "_operator.neg") {
    if (auto a = operand(0))
      out.value = dim_arith("-", Dim::of(0), *a);
    return out;
  }
  if (t == "torch.sym_sum" || t == "sym_sum") {
    const Value* list = c.arg(0);
    if (!list || list->kind != Value::Kind::List)
      return out;
    Dim acc = Dim::of(0);
    for (const auto& item : list->items()) {
      const std::optional<Dim> d = size_of(&item);
      if (!d)
        return out;
      acc = dim_add(acc, *d);
    }
    out.value = acc;
  }
  return out;
}

} // namespace osched
