// Shape rules for cat, stack, split, slice, select, padding.

#include "fx/shape_rules.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "ops/collective.h"
#include "ops/op_table.h"

namespace osched::shape_rules {

std::optional<InferredVal> split(const Ctx& c, std::string_view p, const TensorMeta*) {
  const TensorMeta* x = c.meta(0);
  if (!x)
    return std::nullopt;
  auto dim = c.integer(2, "dim", 0);
  if (p == "aten.unbind")
    dim = c.integer(1, "dim", 0);
  if (!dim)
    return std::nullopt;
  auto ax = axis(*dim, x->shape.size());
  if (!ax || x->shape.empty())
    return std::nullopt;
  const Dim& whole = x->shape[static_cast<size_t>(*ax)];
  std::vector<Dim> sizes;
  if (p == "aten.split_with_sizes") {
    auto s = c.dims(c.arg(1, "split_sizes"));
    if (!s)
      return std::nullopt;
    sizes = *s;
  } else {
    if (whole.is_symbolic())
      return std::nullopt;
    int64_t total = whole.value;
    int64_t step = 0;
    if (p == "aten.unbind") {
      step = 1;
    } else if (p == "aten.chunk") {
      auto n = c.integer(1, "chunks", std::nullopt);
      if (!n || *n <= 0)
        return std::nullopt;
      step = total > 0 ? (total - 1) / *n + 1 : 0; // ceil without overflow
    } else {
      auto s = c.integer(1, "split_size", std::nullopt);
      if (!s || *s <= 0)
        return std::nullopt;
      step = *s;
    }
    if (step <= 0 || total / step > 65536)
      return std::nullopt;
    for (int64_t off = 0; off < total; off += step)
      sizes.push_back(Dim::of(std::min(step, total - off)));
  }
  std::vector<std::optional<TensorMeta>> outs;
  for (const auto& s : sizes) {
    TensorMeta m = *x; // a view: same storage as x
    if (p == "aten.unbind") {
      m.shape.erase(m.shape.begin() + *ax);
      m.stride.erase(m.stride.begin() + *ax);
    } else {
      m.shape[static_cast<size_t>(*ax)] = s;
    }
    outs.push_back(std::move(m));
  }
  return multi(std::move(outs));
}

// aten.cat
std::optional<InferredVal> rule_cat(const Ctx& c, std::string_view, const TensorMeta*) {
  const Value* list = c.arg(0, "tensors");
  if (!list || list->kind != Value::Kind::List || list->items().empty())
    return std::nullopt;
  std::vector<const TensorMeta*> ins;
  for (const auto& item : list->items()) {
    const TensorMeta* m = item.is_ref() ? ref_meta(c.g, item) : nullptr;
    if (!m)
      return std::nullopt;
    if (m->shape.size() == 1 && !m->shape[0].is_symbolic() && m->shape[0].value == 0)
      continue; // legacy empty tensors join anything
    ins.push_back(m);
  }
  if (ins.empty())
    return std::nullopt;
  auto d = c.integer(1, "dim", 0);
  auto ax = d ? axis(*d, ins[0]->shape.size()) : std::nullopt;
  if (!ax)
    return std::nullopt;
  std::vector<Dim> shape = ins[0]->shape;
  Dim total = Dim::of(0);
  for (const auto* m : ins) {
    if (m->shape.size() != shape.size())
      return std::nullopt;
    total = dim_add(total, m->shape[static_cast<size_t>(*ax)]);
  }
  shape[static_cast<size_t>(*ax)] = total;
  return single(fresh(std::move(shape), ins[0]->dtype, ins[0]->device));
}

// aten.stack
std::optional<InferredVal> rule_stack(const Ctx& c, std::string_view, const TensorMeta*) {
  // Equal shapes (torch checks) joined along a new axis (dim may be -rank-1 .. rank).
  const Value* list = c.arg(0, "tensors");
  if (!list || list->kind != Value::Kind::List || list->items().empty())
    return std::nullopt;
  const TensorMeta* first = nullptr;
  for (const auto& item : list->items()) {
    const TensorMeta* m = item.is_ref() ? ref_meta(c.g, item) : nullptr;
    if (!m || (first && m->shape.size() != first->shape.size()))
      return std::nullopt;
    first = first ? first : m;
  }
  auto d = c.integer(1, "dim", 0);
  auto ax = d ? axis(*d, first->shape.size() + 1) : std::nullopt;
  if (!ax)
    return std::nullopt;
  std::vector<Dim> shape = first->shape;
  shape.insert(shape.begin() + *ax, Dim::of(static_cast<int64_t>(list->items().size())));
  return single(fresh(std::move(shape), first->dtype, first->device));
}

// aten.slice, aten.narrow
std::optional<InferredVal> rule_slice(const Ctx& c, std::string_view p, const TensorMeta* x) {
  const size_t rank = x->shape.size();
  auto d = c.integer(1, "dim", 0);
  auto a = d ? axis(*d, rank) : std::nullopt;
  if (!a || rank == 0)
    return std::nullopt;
  const Dim& whole = x->shape[static_cast<size_t>(*a)];
  TensorMeta m = *x;
  if (p == "aten.narrow") {
    auto len = c.dim(*c.arg(3, "length"));
    if (!c.arg(3, "length") || !len)
      return std::nullopt;
    m.shape[static_cast<size_t>(*a)] = *len;
    return single(std::move(m));
  }
  auto start = c.integer(2, "start", 0), end = c.integer(3, "end", INT64_MAX),
       step = c.integer(4, "step", 1);
  if (whole.is_symbolic()) {
    // A symbolic size with step 1 and a start and end that need no
    // clamping against it: `whole - start`, or `whole + end - start` for
    // a negative end, as symbolic shapes would have it.
    if (!start || !end || step != 1 || *start < 0 || (*end < 0 && *end < -(INT32_MAX)))
      return std::nullopt;
    Dim len;
    if (*end >= INT32_MAX)
      len = *dim_arith("-", whole, Dim::of(*start));
    else if (*end < 0)
      len = *dim_arith("-", whole, Dim::of(*start - *end));
    else
      return std::nullopt; // min(end, whole) - start: unknown without the value
    m.shape[static_cast<size_t>(*a)] = len;
    return single(std::move(m));
  }
  if (!start || !end || !step || *step <= 0)
    return std::nullopt;
  int64_t n = whole.value;
  int64_t s = std::clamp<int64_t>(*start < 0 ? *start + n : *start, 0, n);
  int64_t e = std::clamp<int64_t>(*end < 0 ? *end + n : *end, 0, n);
  m.shape[static_cast<size_t>(*a)] = Dim::of(e > s ? (e - s - 1) / *step + 1 : 0);
  return single(std::move(m));
}

// aten.select
std::optional<InferredVal> rule_select(const Ctx& c, std::string_view, const TensorMeta* x) {
  const size_t rank = x->shape.size();
  auto d = c.integer(1, "dim", std::nullopt);
  auto a = d ? axis(*d, rank) : std::nullopt;
  if (!a || rank == 0)
    return std::nullopt;
  TensorMeta m = *x;
  m.shape.erase(m.shape.begin() + *a);
  m.stride.erase(m.stride.begin() + *a);
  return single(std::move(m));
}

// aten.select_backward, slice_backward, diagonal_backward (grad,
// input_sizes, ...): grad written into zeros of the input's sizes.
std::optional<InferredVal> rule_into_input_sizes(const Ctx& c, std::string_view,
                                                 const TensorMeta* grad) {
  auto sizes = c.dims(c.arg(1, "input_sizes"));
  if (!sizes)
    return std::nullopt;
  return single(fresh(std::move(*sizes), grad->dtype, grad->device));
}

// aten.constant_pad_nd
std::optional<InferredVal> rule_constant_pad_nd(const Ctx& c, std::string_view,
                                                const TensorMeta* x) {
  const size_t rank = x->shape.size();
  auto pad = c.dims(c.arg(1, "pad"));
  if (!pad || pad->size() % 2 != 0 || pad->size() / 2 > rank)
    return std::nullopt;
  std::vector<Dim> shape = x->shape;
  for (size_t i = 0; i < pad->size() / 2; ++i) {
    Dim& d = shape[rank - 1 - i];
    d = dim_add(dim_add(d, (*pad)[2 * i]), (*pad)[2 * i + 1]);
  }
  return single(fresh(std::move(shape), x->dtype, x->device));
}

} // namespace osched::shape_rules
