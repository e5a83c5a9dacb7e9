// Shape rules for views: reshape, permute, transpose, expand, (un)squeeze,
// complex views.

#include "fx/shape_rules.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "ops/collective.h"
#include "ops/op_table.h"

namespace osched::shape_rules {

namespace {

// The strides of `x` viewed as `shape` without a copy (ATen's
// computeStride), or nullopt when the view needs a copy or a size is
// symbolic.
template <typename Dims>
std::optional<std::vector<Dim>> view_strides(const TensorMeta& x, const Dims& shape) {
  auto any_symbolic = [](const auto& dims) {
    return std::any_of(dims.begin(), dims.end(), [](const Dim& d) { return d.is_symbolic(); });
  };
  if (any_symbolic(x.shape) || any_symbolic(x.stride) || any_symbolic(shape))
    return std::nullopt;
  if (x.stride.size() != x.shape.size())
    return std::nullopt;
  auto value = [](const auto& v, size_t i) { return v[i].value; };
  const auto numel = concrete_numel(x.shape);
  if (!numel)
    return std::nullopt;
  if (*numel == 0 || x.shape.empty())
    return contiguous_strides(shape);
  std::vector<Dim> out(shape.size(), Dim::of(0));
  int64_t view_d = static_cast<int64_t>(shape.size()) - 1;
  int64_t chunk_base_stride = x.stride.back().value;
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(x.shape.size()) - 1; tensor_d >= 0; --tensor_d) {
    const auto td = static_cast<size_t>(tensor_d);
    tensor_numel *= value(x.shape, td);
    if (tensor_d == 0 || (value(x.shape, td - 1) != 1 &&
                          value(x.stride, td - 1) != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 &&
             (view_numel < tensor_numel || value(shape, static_cast<size_t>(view_d)) == 1)) {
        out[static_cast<size_t>(view_d)] = Dim::of(view_numel * chunk_base_stride);
        view_numel *= value(shape, static_cast<size_t>(view_d));
        --view_d;
      }
      if (view_numel != tensor_numel)
        return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = value(x.stride, td - 1);
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1)
    return std::nullopt;
  return out;
}

} // namespace

std::optional<InferredVal> view_like(const Ctx& c, std::string_view p, const TensorMeta*) {
  const TensorMeta* x = c.meta(0);
  auto shape = c.dims(c.arg(1, "size"));
  if (!x || !shape)
    return std::nullopt;
  int wild = -1;
  for (size_t i = 0; i < shape->size(); ++i)
    if (!(*shape)[i].is_symbolic() && (*shape)[i].value == -1)
      wild = static_cast<int>(i);
  if (wild >= 0) {
    std::vector<Dim> others = *shape;
    others.erase(others.begin() + wild);
    auto total = concrete_numel(x->shape);
    auto part = concrete_numel(others);
    if (total && part) {
      if (*part == 0)
        return std::nullopt;
      (*shape)[static_cast<size_t>(wild)] = Dim::of(*total / *part);
    } else {
      // Symbolic sizes: numel // (product of the others), as an expression.
      Dim num = Dim::of(1), den = Dim::of(1);
      for (const auto& d : x->shape)
        num = *dim_arith("*", num, d);
      for (const auto& d : others)
        den = *dim_arith("*", den, d);
      if (!den.is_symbolic() && den.value == 0)
        return std::nullopt;
      auto q = dim_arith("//", num, den);
      if (!q)
        return std::nullopt;
      (*shape)[static_cast<size_t>(wild)] = *q;
    }
  }
  TensorMeta m = fresh(std::move(*shape), x->dtype, x->device);
  if (p == "aten._reshape_alias") { // (self, size, stride): the strides are given
    auto given = c.dims(c.arg(2, "stride"));
    if (!given || given->size() != m.shape.size())
      return std::nullopt;
    m.stride = std::move(*given);
  } else if (!concrete_numel(x->shape) || !concrete_numel(m.shape) ||
             std::any_of(x->stride.begin(), x->stride.end(),
                         [](const Dim& d) { return d.is_symbolic(); })) {
    // Symbolic sizes: taken as laid out contiguously (strides of symbols
    // are beyond these rules).
  } else if (std::optional<std::vector<Dim>> v = view_strides(*x, m.shape)) {
    m.stride = std::move(*v); // a view of x (reshape too, where no copy is needed)
  } else if (p != "aten.reshape") {
    return std::nullopt; // a view PyTorch would refuse: not guessed
  }
  return single(std::move(m));
}

// aten.permute
std::optional<InferredVal> rule_permute(const Ctx& c, std::string_view, const TensorMeta* x) {
  const size_t rank = x->shape.size();
  auto perm = c.dims(c.arg(1, "dims"));
  if (!perm || perm->size() != rank)
    return std::nullopt;
  TensorMeta m = *x;
  for (size_t i = 0; i < rank; ++i) {
    auto a = axis((*perm)[i].value, rank);
    if ((*perm)[i].is_symbolic() || !a)
      return std::nullopt;
    m.shape[i] = x->shape[static_cast<size_t>(*a)];
    m.stride[i] = x->stride[static_cast<size_t>(*a)];
  }
  return single(std::move(m));
}

// aten.t, aten.transpose
std::optional<InferredVal> rule_t(const Ctx& c, std::string_view p, const TensorMeta* x) {
  const size_t rank = x->shape.size();
  TensorMeta m = *x;
  int64_t a = rank - 2, b = rank - 1;
  if (p == "aten.transpose") {
    auto d0 = c.integer(1, "dim0", std::nullopt), d1 = c.integer(2, "dim1", std::nullopt);
    auto a0 = d0 ? axis(*d0, rank) : std::nullopt, a1 = d1 ? axis(*d1, rank) : std::nullopt;
    if (!a0 || !a1)
      return std::nullopt;
    a = *a0;
    b = *a1;
  }
  if (rank < 2)
    return single(std::move(m));
  std::swap(m.shape[static_cast<size_t>(a)], m.shape[static_cast<size_t>(b)]);
  std::swap(m.stride[static_cast<size_t>(a)], m.stride[static_cast<size_t>(b)]);
  return single(std::move(m));
}

// aten.expand
std::optional<InferredVal> rule_expand(const Ctx& c, std::string_view, const TensorMeta* x) {
  const size_t rank = x->shape.size();
  auto sizes = c.dims(c.arg(1, "size"));
  if (!sizes || sizes->size() < rank)
    return std::nullopt;
  TensorMeta m = *x;
  size_t off = sizes->size() - rank;
  m.shape.assign(sizes->begin(), sizes->end());
  m.stride.assign(sizes->size(), Dim::of(0));
  for (size_t i = 0; i < rank; ++i) {
    Dim& s = m.shape[off + i];
    if (!s.is_symbolic() && s.value == -1)
      s = x->shape[i];
    bool broadcasted =
        !x->shape[i].is_symbolic() && x->shape[i].value == 1 && !(!s.is_symbolic() && s.value == 1);
    m.stride[off + i] = broadcasted ? Dim::of(0) : x->stride[i];
  }
  return single(std::move(m));
}

// aten.unsqueeze
std::optional<InferredVal> rule_unsqueeze(const Ctx& c, std::string_view, const TensorMeta* x) {
  const size_t rank = x->shape.size();
  auto d = c.integer(1, "dim", std::nullopt);
  auto a = d ? axis(*d, rank + 1) : std::nullopt;
  if (!a)
    return std::nullopt;
  TensorMeta m = *x;
  size_t ai = static_cast<size_t>(*a);
  Dim st = ai < rank ? dim_mul(x->stride[ai], 1) : Dim::of(1);
  if (ai < rank && !x->shape[ai].is_symbolic() && !x->stride[ai].is_symbolic())
    st = dim_mul(x->stride[ai], x->shape[ai].value);
  m.shape.insert(m.shape.begin() + *a, Dim::of(1));
  m.stride.insert(m.stride.begin() + *a, st);
  return single(std::move(m));
}

// aten.squeeze
std::optional<InferredVal> rule_squeeze(const Ctx& c, std::string_view, const TensorMeta* x) {
  const size_t rank = x->shape.size();
  TensorMeta m;
  m.dtype = x->dtype;
  m.device = x->device;
  // squeeze(), squeeze(dim) or squeeze(dims): the named dims of size one go.
  std::vector<bool> named(rank, c.arg(1, "dim") == nullptr);
  if (const Value* d = c.arg(1, "dim"); d && d->kind == Value::Kind::List) {
    auto dims = c.dims(d);
    if (!dims)
      return std::nullopt;
    for (const Dim& k : *dims)
      if (auto a = k.is_symbolic() ? std::nullopt : axis(k.value, rank))
        named[static_cast<size_t>(*a)] = true;
  } else if (d) {
    auto k = c.integer(1, "dim", std::nullopt);
    if (auto a = k ? axis(*k, rank) : std::nullopt)
      named[static_cast<size_t>(*a)] = true;
  }
  for (size_t i = 0; i < rank; ++i) {
    bool one = !x->shape[i].is_symbolic() && x->shape[i].value == 1;
    bool drop = one && named[i];
    if (!drop) {
      m.shape.push_back(x->shape[i]);
      m.stride.push_back(x->stride[i]);
    }
  }
  return single(std::move(m));
}

// aten.view_as_complex
std::optional<InferredVal> rule_view_as_complex(const Ctx&, std::string_view, const TensorMeta* x) {
  const size_t rank = x->shape.size();
  // [..., 2] real -> [...] complex, a view: strides in complex elements.
  if (rank == 0 || x->shape.back().is_symbolic() || x->shape.back().value != 2 ||
      (x->dtype != DType::Float32 && x->dtype != DType::Float64))
    return std::nullopt;
  TensorMeta m = *x;
  m.dtype = x->dtype == DType::Float32 ? DType::Complex64 : DType::Complex128;
  m.shape.resize(rank - 1);
  m.stride.resize(rank - 1);
  for (auto& st : m.stride)
    st = dim_div(st, 2);
  return single(std::move(m));
}

// aten.view_as_real
std::optional<InferredVal> rule_view_as_real(const Ctx&, std::string_view, const TensorMeta* x) {
  if (x->dtype != DType::Complex64 && x->dtype != DType::Complex128)
    return std::nullopt;
  TensorMeta m = *x;
  m.dtype = x->dtype == DType::Complex64 ? DType::Float32 : DType::Float64;
  for (auto& st : m.stride)
    st = dim_mul(st, 2);
  m.shape.push_back(Dim::of(2));
  m.stride.push_back(Dim::of(1));
  return single(std::move(m));
}

// aten._conj, aten.conj, aten._neg_view, aten.resolve_conj, aten.resolve_neg, aten.conj_physical
std::optional<InferredVal> rule_conj(const Ctx&, std::string_view, const TensorMeta* x) {
  return single(*x);
}

} // namespace osched::shape_rules
