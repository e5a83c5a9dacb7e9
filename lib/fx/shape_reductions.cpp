// Shape rules for reductions, norms, sort and top-k, scans.

#include "fx/shape_rules.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "ops/collective.h"
#include "ops/op_table.h"

namespace osched::shape_rules {

std::optional<InferredVal> reduction(const Ctx& c) {
  const TensorMeta* x = c.meta(0);
  if (!x)
    return std::nullopt;
  const Value* dims_v = c.arg(1, "dim");
  bool keep = false;
  if (const Value* k = c.arg(2, "keepdim"); k && k->kind == Value::Kind::Bool)
    keep = k->b;
  std::vector<bool> reduced(x->shape.size(),
                            dims_v == nullptr || dims_v->kind == Value::Kind::Null);
  if (dims_v && dims_v->kind != Value::Kind::Null) {
    auto ds = c.dims(dims_v);
    if (!ds)
      return std::nullopt;
    if (ds->empty())
      std::fill(reduced.begin(), reduced.end(), true);
    for (const auto& d : *ds) {
      auto a = axis(d.value, x->shape.size());
      if (d.is_symbolic() || !a)
        return std::nullopt;
      if (!x->shape.empty())
        reduced[static_cast<size_t>(*a)] = true;
    }
  }
  std::vector<Dim> shape;
  for (size_t i = 0; i < x->shape.size(); ++i) {
    if (!reduced[i])
      shape.push_back(x->shape[i]);
    else if (keep)
      shape.push_back(Dim::of(1));
  }
  DType dtype = x->dtype;
  // sum and prod of integers and bools accumulate in int64, as torch does.
  const std::string_view p = overload_packet(c.n.target);
  if ((p == "aten.sum" || p == "aten.prod") && !dtype_is_floating(x->dtype))
    dtype = DType::Int64;
  if (p == "aten.any" || p == "aten.all")
    dtype = DType::Bool;
  if (auto d = dtype_value(c.n.kwarg("dtype")))
    dtype = *d;
  return single(fresh(std::move(shape), dtype, x->device));
}

// max/min/median/mode: with a dim, (values, int64 indices) reduced as a
// keepdim reduction; without one, a 0-d tensor; `max.other` is pointwise.
std::optional<InferredVal> values_and_indices(const Ctx& c, std::string_view, const TensorMeta*) {
  const TensorMeta* x = c.meta(0);
  const std::string_view t = c.n.target;
  const std::string_view overload = t.substr(t.rfind('.') + 1);
  if (!x)
    return std::nullopt;
  const bool mode = std::string_view(c.n.target).substr(0, 10) == "aten.mode.";
  if (overload == "default" && !mode) // max(), min(), median(): one value of everything
    return single(fresh({}, x->dtype, x->device));
  if (overload != "dim" && !mode) // mode.default is mode(self, dim=-1, keepdim=False)
    return std::nullopt;
  if (mode) {
    auto d = c.integer(1, "dim", -1);
    auto keep = c.arg(2, "keepdim");
    std::vector<Dim> shape = x->shape;
    if (!shape.empty()) {
      const std::optional<int64_t> a = d ? axis(*d, shape.size()) : std::nullopt;
      if (!a)
        return std::nullopt;
      if (keep && keep->kind == Value::Kind::Bool && keep->b)
        shape[static_cast<size_t>(*a)] = Dim::of(1);
      else
        shape.erase(shape.begin() + *a);
    }
    return multi({fresh(shape, x->dtype, x->device), fresh(shape, DType::Int64, x->device)});
  }
  auto r = reduction(c);
  if (!r || r->val.size() != 1 || !r->val[0])
    return std::nullopt;
  const TensorMeta& values = *r->val[0];
  return multi({values, fresh(values.shape, DType::Int64, values.device)});
}

// aten.native_layer_norm
std::optional<InferredVal> rule_native_layer_norm(const Ctx& c, std::string_view,
                                                  const TensorMeta* x) {
  const size_t rank = x->shape.size();
  auto norm = c.dims(c.arg(1, "normalized_shape"));
  if (!norm || norm->size() > rank)
    return std::nullopt;
  std::vector<Dim> stat(x->shape.begin(), x->shape.end() - static_cast<long>(norm->size()));
  stat.resize(rank, Dim::of(1));
  DType acc =
      dtype_is_floating(x->dtype) && dtype_itemsize(x->dtype) < 4 ? DType::Float32 : x->dtype;
  return multi({fresh(x->shape, x->dtype, x->device), fresh(stat, acc, x->device),
                fresh(stat, acc, x->device)});
}

// aten.native_layer_norm_backward(grad_out, input, normalized_shape, mean,
// rstd, weight, bias, output_mask) -> (grad_input like input, grad_weight
// and grad_bias of the normalized shape), each only where output_mask asks.
std::optional<InferredVal> rule_native_layer_norm_backward(const Ctx& c, std::string_view,
                                                           const TensorMeta*) {
  const TensorMeta* x = c.meta(1);
  auto norm = c.dims(c.arg(2, "normalized_shape"));
  const Value* mask = c.arg(7, "output_mask");
  if (!x || !norm || !mask || mask->kind != Value::Kind::List || mask->items().size() != 3)
    return std::nullopt;
  const TensorMeta* w = c.meta(5);
  std::vector<std::optional<TensorMeta>> outs;
  for (size_t i = 0; i < 3; ++i) {
    const Value& want = mask->items()[i];
    if (want.kind != Value::Kind::Bool)
      return std::nullopt;
    if (!want.b)
      outs.emplace_back();
    else if (i == 0)
      outs.push_back(fresh(x->shape, x->dtype, x->device));
    else
      outs.push_back(fresh(*norm, w ? w->dtype : x->dtype, x->device));
  }
  return multi(std::move(outs));
}

// aten.topk
std::optional<InferredVal> rule_topk(const Ctx& c, std::string_view, const TensorMeta* x) {
  const size_t rank = x->shape.size();
  auto k = c.dims(c.arg(1, "k"));
  auto d = c.integer(2, "dim", -1);
  auto a = d ? axis(*d, rank) : std::nullopt;
  if (!k || k->size() != 1 || !a || rank == 0)
    return std::nullopt;
  std::vector<Dim> shape = x->shape;
  shape[static_cast<size_t>(*a)] = (*k)[0];
  return multi({fresh(shape, x->dtype, x->device), fresh(shape, DType::Int64, x->device)});
}

// aten.sort
std::optional<InferredVal> rule_sort(const Ctx&, std::string_view, const TensorMeta* x) {
  return multi({fresh(x->shape, x->dtype, x->device), fresh(x->shape, DType::Int64, x->device)});
}

// aten.histc
std::optional<InferredVal> rule_histc(const Ctx& c, std::string_view, const TensorMeta* x) {
  auto bins = c.integer(1, "bins", 100);
  if (!bins || *bins < 0)
    return std::nullopt;
  return single(fresh({Dim::of(*bins)}, x->dtype, x->device));
}

// aten.cumsum, aten.cumprod
std::optional<InferredVal> rule_cumsum(const Ctx& c, std::string_view, const TensorMeta* x) {
  // Integer and bool inputs accumulate in int64 unless a dtype is given.
  DType dtype = dtype_is_floating(x->dtype) ? x->dtype : DType::Int64;
  if (auto d = dtype_value(c.arg(2, "dtype")))
    dtype = *d;
  return single(fresh(x->shape, dtype, x->device));
}

} // namespace osched::shape_rules
