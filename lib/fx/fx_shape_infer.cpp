#include "fx/fx_shape_infer.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "ops/collective.h"
#include "ops/op_table.h"

namespace osched {
namespace {

struct Ctx {
  const Graph& g;
  const Node& n;
  const FxSymbolHints& hints;
  const FxScalars& scalars;

  // Positional argument i, else the keyword `kw`, else nullptr.
  const Value* arg(size_t i, std::string_view kw = {}) const {
    if (i < n.args.size())
      return &n.args[i];
    return kw.empty() ? nullptr : n.kwarg(kw);
  }
  const TensorMeta* meta(size_t i) const {
    const Value* v = arg(i);
    return v && v->is_ref() ? ref_meta(g, *v) : nullptr;
  }
  std::optional<Dim> dim(const Value& v) const {
    if (v.kind == Value::Kind::Int)
      return Dim::of(v.i);
    if (v.is_ref()) {
      const size_t id = static_cast<size_t>(v.i);
      if (id < scalars.size() && scalars[id].value)
        return scalars[id].value;
      // A size computed by a SymInt node of unknown value: that node's
      // name is the symbol.
      return named_symbol(g.nodes[id].name, hints);
    }
    return std::nullopt;
  }
  std::optional<std::vector<Dim>> dims(const Value* v) const {
    if (!v)
      return std::nullopt;
    std::vector<Dim> out;
    if (v->kind != Value::Kind::List) {
      auto d = dim(*v);
      if (!d)
        return std::nullopt;
      out.push_back(*d);
      return out;
    }
    for (const auto& item : v->items()) {
      auto d = dim(item);
      if (!d)
        return std::nullopt;
      out.push_back(*d);
    }
    return out;
  }
  std::optional<int64_t> integer(size_t i, std::string_view kw, std::optional<int64_t> dflt) const {
    const Value* v = arg(i, kw);
    if (!v || v->kind == Value::Kind::Null)
      return dflt;
    if (v->kind == Value::Kind::Int)
      return v->i;
    return std::nullopt;
  }
};

std::optional<int64_t> axis(int64_t d, size_t rank) {
  int64_t r = static_cast<int64_t>(rank);
  if (d < -std::max<int64_t>(r, 1) || d >= std::max<int64_t>(r, 1))
    return std::nullopt;
  return d < 0 ? d + r : d;
}

TensorMeta fresh(std::vector<Dim> shape, DType dtype, std::string device) {
  TensorMeta m;
  m.stride = contiguous_strides(shape);
  m.shape = std::move(shape);
  m.dtype = dtype;
  m.device = std::move(device);
  return m;
}

InferredVal single(TensorMeta m) {
  InferredVal r;
  r.val.push_back(std::move(m));
  return r;
}

InferredVal multi(std::vector<std::optional<TensorMeta>> metas) {
  InferredVal r;
  r.kind = ValKind::List;
  for (const auto& m : metas)
    r.val.push_back(m);
  return r;
}

bool same_dim(const Dim& a, const Dim& b) {
  return a.sym_id == b.sym_id && (a.is_symbolic() || a.value == b.value);
}

std::optional<std::vector<Dim>> broadcast(const std::vector<const TensorMeta*>& ins) {
  size_t rank = 0;
  for (const auto* m : ins)
    rank = std::max(rank, m->shape.size());
  std::vector<Dim> out(rank, Dim::of(1));
  for (const auto* m : ins) {
    size_t off = rank - m->shape.size();
    for (size_t i = 0; i < m->shape.size(); ++i) {
      const Dim& d = m->shape[i];
      Dim& o = out[off + i];
      if (!d.is_symbolic() && d.value == 1)
        continue;
      if (!o.is_symbolic() && o.value == 1)
        o = d;
      else if (!same_dim(o, d) && !d.is_symbolic() && !o.is_symbolic())
        return std::nullopt; // incompatible shapes
    }
  }
  return out;
}

std::optional<DType> dtype_value(const Value* v) {
  if (!v || v->kind != Value::Kind::String)
    return std::nullopt;
  return parse_fx_dtype_name(v->str());
}

std::string device_of(const Ctx& c, const TensorMeta* first) {
  const Value* d = c.n.kwarg("device");
  if (d && d->kind == Value::Kind::String)
    return d->str();
  return first ? first->device : "cuda:0";
}

// Known numel of concrete dims; nullopt when a dim is symbolic.
std::optional<int64_t> concrete_numel(const std::vector<Dim>& shape) {
  int64_t n = 1;
  for (const auto& d : shape) {
    if (d.is_symbolic() || __builtin_mul_overflow(n, d.value, &n))
      return std::nullopt;
  }
  return n;
}

constexpr std::array<std::string_view, 41> kSameShapePackets = {
    "aten.index_put",
    "aten.index_put_",
    "aten._unsafe_index_put",
    "aten.scatter",
    "aten.scatter_add",
    "aten.index_copy",
    "aten.slice_scatter", // self with src written into part of it
    "aten.select_scatter",
    "aten.diagonal_scatter",
    "aten.as_strided_scatter",
    "aten.clone",
    "aten.contiguous",
    "aten._to_copy",
    "aten.detach",
    "aten.alias",
    "aten.copy",
    "aten.copy_",
    "aten.fill",
    "aten.fill_",
    "aten.zeros_like",
    "aten.ones_like",
    "aten.empty_like",
    "aten.full_like",
    "aten.rand_like",
    "aten.randn_like",
    "aten.lift_fresh_copy",
    "aten.silu_backward",
    "aten.gelu_backward",
    "aten.threshold_backward",
    "aten.sigmoid_backward",
    "aten.tanh_backward",
    "aten.masked_fill",
    "aten.bernoulli",
    "aten._softmax",
    "aten._log_softmax",
    "aten._softmax_backward_data",
    "aten._log_softmax_backward_data",
    "aten.softmax",
    "aten.dropout",
    "aten.tril",
    "aten.triu",
};

// A dense layout over `shape` ordering its dims as `strides` order them
// (each operand in turn; a stride of 0 is no evidence; equal strides put
// the smaller dim inside): ATen's infer_dense_strides for one operand,
// TensorIterator's reorder_dimensions for several. Sizes are concrete.
std::vector<Dim> dense_in_order(const std::vector<Dim>& shape,
                                const std::vector<std::vector<int64_t>>& strides) {
  const size_t rank = shape.size();
  auto should_swap = [&](size_t d0, size_t d1) {
    for (const auto& st : strides) {
      if (st[d0] == 0 || st[d1] == 0)
        continue;
      if (st[d0] < st[d1])
        return -1;
      if (st[d0] > st[d1])
        return 1;
      if (shape[d0].value > shape[d1].value)
        return 1;
    }
    return 0;
  };
  std::vector<size_t> perm(rank); // innermost first
  for (size_t i = 0; i < rank; ++i)
    perm[i] = rank - 1 - i;
  for (size_t i = 1; i < rank; ++i) {
    size_t d1 = i;
    for (size_t d0 = i; d0-- > 0;) {
      const int cmp = should_swap(perm[d0], perm[d1]);
      if (cmp > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (cmp < 0) {
        break;
      }
    }
  }
  std::vector<Dim> out(rank, Dim::of(1));
  int64_t next = 1;
  for (size_t i = 0; i < rank; ++i) {
    out[perm[i]] = Dim::of(next);
    next *= std::max<int64_t>(shape[perm[i]].value, 1);
  }
  return out;
}

// The strides empty_like gives a copy of `x` (preserve_format): a dense,
// non-overlapping tensor's own, else a dense layout in x's dim order.
std::vector<Dim> preserved_strides(const TensorMeta& x) {
  std::vector<Dim> shape(x.shape.begin(), x.shape.end());
  for (size_t i = 0; i < x.shape.size(); ++i)
    if (x.shape[i].is_symbolic() || i >= x.stride.size() || x.stride[i].is_symbolic())
      return contiguous_strides(shape);
  std::vector<size_t> order(x.shape.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return x.stride[a].value < x.stride[b].value; });
  int64_t expected = 1;
  bool dense = true;
  for (size_t d : order) {
    if (x.shape[d].value == 1)
      continue; // any stride will do for a dim of one
    if (x.stride[d].value != expected) {
      dense = false;
      break;
    }
    expected *= x.shape[d].value;
  }
  if (dense)
    return std::vector<Dim>(x.stride.begin(), x.stride.end());
  std::vector<int64_t> st;
  for (const Dim& d : x.stride)
    st.push_back(d.value);
  return dense_in_order(shape, {st});
}

// The layout TensorIterator gives an elementwise op's output: inputs of
// the output's shape and one dense layout lend it theirs; otherwise the
// dims are ordered by the inputs' strides (broadcast dims ignored, equal
// strides broken by size; TensorIteratorBase::reorder_dimensions) and the
// output laid out densely in that order. nullopt: contiguous (symbolic
// sizes are left so).
std::optional<std::vector<Dim>> elementwise_strides(const std::vector<const TensorMeta*>& ins,
                                                    const std::vector<Dim>& shape) {
  const size_t rank = shape.size();
  auto concrete = [](const auto& dims) {
    return std::none_of(dims.begin(), dims.end(), [](const Dim& d) { return d.is_symbolic(); });
  };
  if (!concrete(shape))
    return std::nullopt;
  for (const TensorMeta* m : ins)
    if (!concrete(m->shape) || !concrete(m->stride) || m->stride.size() != m->shape.size() ||
        m->shape.size() > rank)
      return std::nullopt;
  auto same = [](const auto& a, const auto& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), same_dim);
  };
  if (std::any_of(shape.begin(), shape.end(), [](const Dim& d) { return d.value == 0; }))
    return std::nullopt; // an empty output is laid out contiguously
  // The fast setups, in TensorIterator's order: every input contiguous (size-one
  // dims aside), else one dense layout shared by all.
  auto contiguous = [](const TensorMeta* m) {
    int64_t expected = 1;
    for (size_t i = m->shape.size(); i-- > 0;) {
      if (m->shape[i].value == 1)
        continue;
      if (m->stride[i].value != expected)
        return false;
      expected *= m->shape[i].value;
    }
    return true;
  };
  if (std::all_of(ins.begin(), ins.end(),
                  [&](const TensorMeta* m) { return same(m->shape, shape) && contiguous(m); }))
    return std::nullopt;
  if (std::all_of(ins.begin(), ins.end(),
                  [&](const TensorMeta* m) {
                    return same(m->shape, shape) && same(m->stride, ins[0]->stride);
                  }) &&
      same(preserved_strides(*ins[0]), ins[0]->stride))
    return std::vector<Dim>(ins[0]->stride.begin(), ins[0]->stride.end());
  // Each input's strides over the output's dims; 0 where it broadcasts.
  std::vector<std::vector<int64_t>> strides;
  for (const TensorMeta* m : ins) {
    std::vector<int64_t> st(rank, 0);
    const size_t lead = rank - m->shape.size();
    for (size_t i = 0; i < m->shape.size(); ++i)
      if (!(m->shape[i].value == 1 && shape[lead + i].value != 1))
        st[lead + i] = m->stride[i].value;
    strides.push_back(std::move(st));
  }
  return dense_in_order(shape, strides);
}

bool is_comparison(std::string_view p) {
  static constexpr std::array<std::string_view, 11> k = {
      "aten.eq",          "aten.ne",    "aten.lt",          "aten.le",
      "aten.gt",          "aten.ge",    "aten.logical_and", "aten.logical_or",
      "aten.logical_not", "aten.isnan", "aten.isinf"};
  return std::find(k.begin(), k.end(), p) != k.end();
}

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

// Shape rules by op packet. Each takes the node's context, its packet and
// the metadata of its first argument (null when that is not a tensor).
using Rule = std::optional<InferredVal> (*)(const Ctx&, std::string_view, const TensorMeta*);

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

std::optional<InferredVal> matmul(const Ctx& c, std::string_view p, const TensorMeta*) {
  size_t a_pos = (p == "aten.addmm" || p == "aten.baddbmm") ? 1 : 0;
  const TensorMeta* a = c.meta(a_pos);
  const TensorMeta* b = c.meta(a_pos + 1);
  if (!a || !b || a->shape.size() < 2 || b->shape.size() < 2)
    return std::nullopt;
  std::vector<Dim> shape(a->shape.begin(), a->shape.end() - 1);
  shape.push_back(b->shape.back());
  DType dtype = a->dtype;
  if (auto d = dtype_value(c.arg(p == "aten._scaled_mm" ? 5 : 99, "out_dtype")))
    dtype = *d;
  return single(fresh(std::move(shape), dtype, a->device));
}

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

// Strides of a fresh tensor of `shape` whose dims are laid out in the order
// of `like`'s strides (SDPA outputs follow the query's layout).
std::vector<Dim> matching_layout(const TensorMeta& like, const std::vector<Dim>& shape) {
  if (like.stride.size() != shape.size())
    return contiguous_strides(shape);
  std::vector<size_t> order(shape.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  for (const auto& st : like.stride)
    if (st.is_symbolic())
      return contiguous_strides(shape);
  // Outermost first: larger stride, ties by position.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return like.stride[a].value > like.stride[b].value; });
  std::vector<Dim> stride(shape.size(), Dim::of(1));
  Dim acc = Dim::of(1);
  for (size_t k = order.size(); k-- > 0;) {
    stride[order[k]] = acc;
    const Dim& d = shape[order[k]];
    if (d.is_symbolic() || acc.is_symbolic())
      return contiguous_strides(shape);
    acc = dim_mul(acc, std::max<int64_t>(d.value, 1));
  }
  return stride;
}

// A backward's gradients: one like each input, in order.
std::vector<std::optional<TensorMeta>> gradients_like(const std::vector<const TensorMeta*>& ins) {
  std::vector<std::optional<TensorMeta>> outs;
  for (const auto* m : ins) { // empty_like(query), ... (flash, cudnn)
    TensorMeta g = fresh(m->shape, m->dtype, m->device);
    g.stride = preserved_strides(*m);
    outs.push_back(std::move(g));
  }
  return outs;
}

// Attention's output: the query's shape with the value's last dim, laid out
// as the query is.
TensorMeta attention_output(const TensorMeta& q, const TensorMeta& v) {
  std::vector<Dim> shape = q.shape;
  shape.back() = v.shape.back();
  TensorMeta out = fresh(shape, q.dtype, q.device);
  out.stride = matching_layout(q, shape);
  return out;
}

std::optional<InferredVal> attention(const Ctx& c, std::string_view p) {
  const bool backward = p.find("backward") != std::string_view::npos;
  const TensorMeta* q = c.meta(backward ? 1 : 0);
  const TensorMeta* k = c.meta(backward ? 2 : 1);
  const TensorMeta* v = c.meta(backward ? 3 : 2);
  if (!q || !k || !v || q->shape.size() < 2)
    return std::nullopt;
  std::vector<std::optional<TensorMeta>> outs;
  if (backward) {
    outs = gradients_like({q, k, v});
    if (p.find("efficient") != std::string_view::npos) {
      // empty_permuted(..., (0, 2, 1, 3)): [B, H, S, D] stored as [B, S, H, D].
      for (auto& g : outs)
        if (g && g->shape.size() == 4 && concrete_numel(g->shape)) {
          const std::vector<Dim> physical = {g->shape[0], g->shape[2], g->shape[1], g->shape[3]};
          const std::vector<Dim> st = contiguous_strides(physical);
          g->stride = {st[0], st[2], st[1], st[3]};
        }
      outs.emplace_back();
    }
    return multi(std::move(outs));
  }
  if (p == "aten._scaled_dot_product_flash_attention_for_cpu") {
    // (empty_like(query), logsumexp empty([B, L, H]).transpose(1, 2))
    if (q->shape.size() < 3 || !concrete_numel(q->shape))
      return std::nullopt;
    TensorMeta out = fresh(q->shape, q->dtype, q->device);
    out.stride = preserved_strides(*q);
    const Dim& heads = q->shape[1];
    const Dim& length = q->shape[2];
    TensorMeta lse = fresh({q->shape[0], heads, length}, DType::Float32, q->device);
    lse.stride = {Dim::of(heads.value * length.value), Dim::of(1), Dim::of(heads.value)};
    if (q->dtype == DType::Float64)
      lse.dtype = DType::Float64;
    return multi({std::move(out), std::move(lse)});
  }
  outs.push_back(attention_output(*q, *v));
  std::vector<Dim> lse(q->shape.begin(), q->shape.end() - 1);
  if (p == "aten._scaled_dot_product_cudnn_attention") {
    // (out, lse [B, H, S, 1], -, -, max_q, max_k, seed [], offset [], -)
    lse.push_back(Dim::of(1));
    outs.push_back(fresh(lse, DType::Float32, q->device));
    outs.emplace_back();
    outs.emplace_back();
    outs.emplace_back();
    outs.emplace_back();
    outs.push_back(fresh({}, DType::Int64, q->device));
    outs.push_back(fresh({}, DType::Int64, q->device));
    outs.emplace_back();
    return multi(std::move(outs));
  }
  outs.push_back(fresh(lse, DType::Float32, q->device));
  size_t total = p.find("efficient") != std::string_view::npos ? 4 : 9;
  while (outs.size() < total)
    outs.emplace_back();
  return multi(std::move(outs));
}

// flex_attention(q, k, v, score_mod, block_mask, scale, kernel_options,
// ...) -> (out [B, H, Lq, Dv], logsumexp [B, H, Lq], max [B, H, Lq]);
// its backward (q, k, v, out, lse, grad_out, grad_lse, ...) -> (dq, dk, dv,
// grads of score_mod's captured buffers).
std::optional<InferredVal> flex_attention(const Ctx& c, bool backward) {
  const TensorMeta* q = c.meta(0);
  const TensorMeta* k = c.meta(1);
  const TensorMeta* v = c.meta(2);
  if (!q || !k || !v || q->shape.size() != 4 || v->shape.empty())
    return std::nullopt;
  std::vector<std::optional<TensorMeta>> outs;
  if (backward) {
    outs = gradients_like({q, k, v});
    outs.emplace_back();
    return multi(std::move(outs));
  }
  outs.push_back(attention_output(*q, *v));
  std::vector<Dim> stat(q->shape.begin(), q->shape.end() - 1);
  outs.push_back(fresh(stat, DType::Float32, q->device));
  outs.push_back(fresh(stat, DType::Float32, q->device));
  return multi(std::move(outs));
}

// torch's _grouped_mm: 2-D x 3-D -> [M, N]; 3-D x 2-D -> [M, N]; 3-D x 3-D
// -> [G, M, N]; 2-D x 2-D (a weight gradient) -> [groups of offs, M, N].
std::optional<InferredVal> grouped_mm(const Ctx& c) {
  const TensorMeta* a = c.meta(0);
  const TensorMeta* b = c.meta(1);
  if (!a || !b)
    return std::nullopt;
  std::vector<Dim> shape;
  const size_t ra = a->shape.size(), rb = b->shape.size();
  if (ra == 2 && rb == 3) {
    shape = {a->shape[0], b->shape[2]};
  } else if (ra == 3 && rb == 2) {
    shape = {a->shape[1], b->shape[1]};
  } else if (ra == 3 && rb == 3) {
    shape = {a->shape[0], a->shape[1], b->shape[2]};
  } else if (ra == 2 && rb == 2) {
    const TensorMeta* offs = c.meta(2);
    if (!offs || offs->shape.size() != 1)
      return std::nullopt;
    shape = {offs->shape[0], a->shape[0], b->shape[1]};
  } else {
    return std::nullopt;
  }
  DType dtype = dtype_value(c.arg(4, "out_dtype")).value_or(a->dtype);
  return single(fresh(std::move(shape), dtype, a->device));
}

// aten.index.Tensor(x, [idx or None, ...]): the index tensors broadcast
// together; their result dims replace the indexed dims in place when the
// indexed dims are adjacent, else lead. Boolean masks select a
// data-dependent count: no shape.
std::optional<InferredVal> index_tensor(const Ctx& c, const TensorMeta& x) {
  const Value* list = c.arg(1, "indices");
  if (!list || list->kind != Value::Kind::List || list->items().size() > x.shape.size())
    return std::nullopt;
  std::vector<const TensorMeta*> idx;
  std::vector<size_t> at;
  for (size_t i = 0; i < list->items().size(); ++i) {
    const Value& item = list->items()[i];
    if (item.kind == Value::Kind::Null)
      continue;
    const TensorMeta* m = item.is_ref() ? ref_meta(c.g, item) : nullptr;
    if (!m || m->dtype == DType::Bool || m->dtype == DType::UInt8)
      return std::nullopt;
    idx.push_back(m);
    at.push_back(i);
  }
  if (idx.empty())
    return std::nullopt;
  auto b = broadcast(idx);
  if (!b)
    return std::nullopt;
  const bool adjacent = at.back() - at.front() + 1 == at.size();
  std::vector<Dim> shape;
  if (adjacent)
    shape.assign(x.shape.begin(), x.shape.begin() + static_cast<long>(at.front()));
  else
    shape = *b;
  for (size_t i = adjacent ? at.front() : 0; i < x.shape.size(); ++i) {
    if (std::find(at.begin(), at.end(), i) != at.end()) {
      if (adjacent && i == at.front())
        shape.insert(shape.end(), b->begin(), b->end());
      continue;
    }
    shape.push_back(x.shape[i]);
  }
  return single(fresh(std::move(shape), x.dtype, x.device));
}

// triton_kernel_wrapper_functional(..., kwargs={name: value},
// tensors_to_clone=[names]) returns a dict of the cloned tensors; as a
// list here, in tensors_to_clone's order (getitem by name looks it up).
const Value* pair_value(const Value& pairs, std::string_view key) {
  if (pairs.kind != Value::Kind::List)
    return nullptr;
  for (const auto& p : pairs.items())
    if (p.kind == Value::Kind::List && p.items().size() == 2 &&
        p.items()[0].kind == Value::Kind::String && p.items()[0].str() == key)
      return &p.items()[1];
  return nullptr;
}

std::optional<InferredVal> triton_wrapper(const Ctx& c) {
  const Value* kwargs = c.n.kwarg("kwargs");
  const Value* cloned = c.n.kwarg("tensors_to_clone");
  if (!kwargs || !cloned || cloned->kind != Value::Kind::List)
    return std::nullopt;
  std::vector<std::optional<TensorMeta>> outs;
  for (const auto& name : cloned->items()) {
    const Value* v = name.kind == Value::Kind::String ? pair_value(*kwargs, name.str()) : nullptr;
    const TensorMeta* m = v && v->is_ref() ? ref_meta(c.g, *v) : nullptr;
    if (!m)
      return std::nullopt;
    outs.push_back(fresh(m->shape, m->dtype, m->device));
  }
  return multi(std::move(outs));
}

// Which output a getitem selects: an integer, or a name of a triton
// wrapper's tensors_to_clone.
std::optional<size_t> selected_output(const Node& from, const Value& idx) {
  if (idx.kind == Value::Kind::Int)
    return idx.i < 0 ? std::nullopt : std::optional<size_t>(static_cast<size_t>(idx.i));
  if (idx.kind != Value::Kind::String)
    return std::nullopt;
  const Value* cloned = from.kwarg("tensors_to_clone");
  if (!cloned || cloned->kind != Value::Kind::List)
    return std::nullopt;
  for (size_t k = 0; k < cloned->items().size(); ++k)
    if (cloned->items()[k].kind == Value::Kind::String && cloned->items()[k].str() == idx.str())
      return k;
  return std::nullopt;
}

// Every tensor input has metadata: else the op's output is unknown, never
// borrowed from another input. Scalars, None and (for higher-order ops)
// submodules are not tensors.
bool inputs_known(const Ctx& c) {
  const bool higher_order = c.n.target.str().rfind("higher_order.", 0) == 0;
  bool known = true;
  auto check = [&](const Value& v) {
    for_each_ref(v, [&](const Value& r) {
      const size_t id = static_cast<size_t>(r.i);
      if (id < c.scalars.size() && c.scalars[id].scalar)
        return;
      const Node& src = c.g.nodes[id];
      if (higher_order && src.op == NodeOp::GetAttr)
        return;
      if (!ref_meta(c.g, r))
        known = false;
    });
  };
  for (const auto& a : c.n.args)
    check(a);
  for (const auto& kv : c.n.attrs().kwargs)
    check(kv.second);
  return known;
}

std::optional<InferredVal> collective(const Ctx& c, const CollectiveSignature& sig) {
  int64_t group_size = 0;
  if (auto s = collective_group_size_arg(c.n))
    group_size = *s;
  else if (auto r = collective_ranks(c.n))
    group_size = static_cast<int64_t>(r->size());
  auto transform = [&](const TensorMeta& in) -> std::optional<TensorMeta> {
    std::vector<Dim> shape = in.shape;
    if (sig.kind == CollectiveKind::AllGather || sig.kind == CollectiveKind::ReduceScatter) {
      if (shape.empty() || group_size <= 0)
        return std::nullopt;
      shape[0] = sig.kind == CollectiveKind::AllGather ? dim_mul(shape[0], group_size)
                                                       : dim_div(shape[0], group_size);
    } else if (sig.kind == CollectiveKind::AllToAll && !shape.empty()) {
      if (auto splits = c.dims(c.arg(1, "output_split_sizes")); splits && !splits->empty()) {
        Dim sum = Dim::of(0);
        for (const auto& d : *splits)
          sum = dim_add(sum, d);
        shape[0] = sum;
      }
    }
    return fresh(std::move(shape), in.dtype, in.device);
  };
  const Value* input = c.arg(0);
  if (!input)
    return std::nullopt;
  if (!sig.coalesced) {
    const TensorMeta* in = c.meta(0);
    if (!in)
      return std::nullopt;
    auto out = transform(*in);
    if (!out)
      return std::nullopt;
    return single(std::move(*out));
  }
  if (input->kind != Value::Kind::List)
    return std::nullopt;
  std::vector<std::optional<TensorMeta>> outs;
  for (const auto& item : input->items()) {
    const TensorMeta* in = item.is_ref() ? ref_meta(c.g, item) : nullptr;
    if (!in)
      return std::nullopt;
    outs.push_back(transform(*in));
  }
  return multi(std::move(outs));
}

// The strides a memory_format argument asks for (contiguous, channels_last
// for 4-D, channels_last_3d for 5-D); nullopt for preserve_format or none.
std::optional<std::vector<Dim>> requested_strides(const Ctx& c, const std::vector<Dim>& shape) {
  const Value* f = c.n.kwarg("memory_format");
  if (!f || f->kind != Value::Kind::String)
    return std::nullopt;
  if (f->str() == "torch.contiguous_format")
    return contiguous_strides(shape);
  const bool cl = f->str() == "torch.channels_last" && shape.size() == 4;
  const bool cl3 = f->str() == "torch.channels_last_3d" && shape.size() == 5;
  if (!cl && !cl3)
    return std::nullopt;
  // Channels innermost, then the spatial dims, then the batch: N, C, *S.
  std::vector<Dim> order(shape.begin(), shape.end());
  std::vector<Dim> nhwc{order[0]};
  nhwc.insert(nhwc.end(), order.begin() + 2, order.end());
  nhwc.push_back(order[1]);
  const std::vector<Dim> st = contiguous_strides(nhwc);
  std::vector<Dim> out(shape.size());
  out[0] = st[0];
  out[1] = st.back();
  for (size_t i = 2; i < shape.size(); ++i)
    out[i] = st[i - 1];
  return out;
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

// The strides argument `pos` names (empty_strided's), one per dim; false
// when it gives none or a wrong count.
bool take_given_strides(const Ctx& c, size_t pos, TensorMeta& m) {
  auto stride = c.dims(c.arg(pos, "stride"));
  if (!stride || stride->size() != m.shape.size())
    return false;
  m.stride = std::move(*stride);
  return true;
}

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

// aten.embedding
std::optional<InferredVal> rule_embedding(const Ctx& c, std::string_view, const TensorMeta* x) {
  const size_t rank = x->shape.size();
  const TensorMeta* idx = c.meta(1);
  if (!idx || rank != 2)
    return std::nullopt;
  std::vector<Dim> shape = idx->shape;
  shape.push_back(x->shape[1]);
  return single(fresh(std::move(shape), x->dtype, x->device));
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

// aten.select_backward, slice_backward, diagonal_backward (grad,
// input_sizes, ...): grad written into zeros of the input's sizes.
std::optional<InferredVal> rule_into_input_sizes(const Ctx& c, std::string_view,
                                                 const TensorMeta* grad) {
  auto sizes = c.dims(c.arg(1, "input_sizes"));
  if (!sizes)
    return std::nullopt;
  return single(fresh(std::move(*sizes), grad->dtype, grad->device));
}

// aten.native_dropout
std::optional<InferredVal> rule_native_dropout(const Ctx&, std::string_view, const TensorMeta* x) {
  return multi({fresh(x->shape, x->dtype, x->device), fresh(x->shape, DType::Bool, x->device)});
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

// aten.embedding_dense_backward
std::optional<InferredVal> rule_embedding_dense_backward(const Ctx& c, std::string_view,
                                                         const TensorMeta* x) {
  const size_t rank = x->shape.size();
  auto rows = c.integer(2, "num_weights", std::nullopt);
  if (!rows || rank == 0)
    return std::nullopt;
  return single(fresh({Dim::of(*rows), x->shape.back()}, x->dtype, x->device));
}

// aten._grouped_mm
std::optional<InferredVal> rule_grouped_mm(const Ctx& c, std::string_view, const TensorMeta*) {
  return grouped_mm(c);
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

// aten.index
std::optional<InferredVal> rule_index(const Ctx& c, std::string_view, const TensorMeta* x) {
  return index_tensor(c, *x);
}

// aten.gather
std::optional<InferredVal> rule_gather(const Ctx& c, std::string_view, const TensorMeta* x) {
  const TensorMeta* idx = c.meta(2);
  if (!idx)
    return std::nullopt;
  return single(fresh(idx->shape, x->dtype, x->device));
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

// prims.device_put
std::optional<InferredVal> rule_device_put(const Ctx& c, std::string_view, const TensorMeta* x) {
  const Value* d = c.arg(1, "device");
  if (!d || d->kind != Value::Kind::String)
    return std::nullopt;
  return single(fresh(x->shape, x->dtype, d->str()));
}

// What a rule needs of the first argument: nothing, that it is not a
// tensor (factories, lists of tensors), or that it is one.
enum class Needs : uint8_t { Any, NoTensor, Tensor };

struct ShapeRule {
  Rule rule;
  Needs needs;
  bool before_pointwise; // decided before the pointwise family (dtype conversions, same-shape ops)
};

// The first rule added for a packet wins.
const std::unordered_map<std::string_view, ShapeRule>& shape_rules() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<std::string_view, ShapeRule>;
    auto add = [&](std::initializer_list<std::string_view> packets, Rule rule, Needs needs,
                   bool early = false) {
      for (std::string_view p : packets)
        t->emplace(p, ShapeRule{rule, needs, early});
    };
    add({"prims.convert_element_type", "aten._to_copy", "aten.to"}, rule_convert, Needs::Any, true);
    for (std::string_view p : kSameShapePackets)
      t->emplace(p, ShapeRule{rule_same_shape, Needs::Any, true});
    add({"aten.view", "aten.reshape", "aten._unsafe_view", "aten._reshape_alias"}, view_like,
        Needs::Any);
    add({"aten.mm", "aten.addmm", "aten.bmm", "aten.baddbmm", "aten.matmul", "aten._scaled_mm"},
        matmul, Needs::Any);
    add({"aten.max", "aten.min", "aten.median", "aten.mode"}, values_and_indices, Needs::Any);
    add({"aten.split", "aten.split_with_sizes", "aten.chunk", "aten.unbind"}, split, Needs::Any);
    add({"aten.full", "aten.zeros", "aten.ones", "aten.empty", "aten.empty_strided", "aten.randn",
         "aten.rand"},
        rule_full, Needs::NoTensor);
    add({"aten.cat"}, rule_cat, Needs::NoTensor);
    add({"aten.stack"}, rule_stack, Needs::NoTensor);
    add({"aten.new_empty", "aten.new_zeros", "aten.new_ones", "aten.new_full",
         "aten.new_empty_strided"},
        rule_new_empty, Needs::Tensor);
    add({"aten.permute"}, rule_permute, Needs::Tensor);
    add({"aten.t", "aten.transpose"}, rule_t, Needs::Tensor);
    add({"aten.expand"}, rule_expand, Needs::Tensor);
    add({"aten.unsqueeze"}, rule_unsqueeze, Needs::Tensor);
    add({"aten.squeeze"}, rule_squeeze, Needs::Tensor);
    add({"aten.slice", "aten.narrow"}, rule_slice, Needs::Tensor);
    add({"aten.select"}, rule_select, Needs::Tensor);
    add({"aten.embedding"}, rule_embedding, Needs::Tensor);
    add({"aten.native_layer_norm"}, rule_native_layer_norm, Needs::Tensor);
    add({"aten.native_layer_norm_backward"}, rule_native_layer_norm_backward, Needs::Tensor);
    add({"aten.select_backward", "aten.slice_backward", "aten.diagonal_backward"},
        rule_into_input_sizes, Needs::Tensor);
    add({"aten.native_dropout"}, rule_native_dropout, Needs::Tensor);
    add({"aten.view_as_complex"}, rule_view_as_complex, Needs::Tensor);
    add({"aten.view_as_real"}, rule_view_as_real, Needs::Tensor);
    add({"aten._conj", "aten.conj", "aten._neg_view", "aten.resolve_conj", "aten.resolve_neg",
         "aten.conj_physical"},
        rule_conj, Needs::Tensor);
    add({"aten.embedding_dense_backward"}, rule_embedding_dense_backward, Needs::Tensor);
    add({"aten._grouped_mm"}, rule_grouped_mm, Needs::Tensor);
    add({"aten.constant_pad_nd"}, rule_constant_pad_nd, Needs::Tensor);
    add({"aten.index"}, rule_index, Needs::Tensor);
    add({"aten.gather"}, rule_gather, Needs::Tensor);
    add({"aten.topk"}, rule_topk, Needs::Tensor);
    add({"aten.sort"}, rule_sort, Needs::Tensor);
    add({"aten.histc"}, rule_histc, Needs::Tensor);
    add({"aten.cumsum", "aten.cumprod"}, rule_cumsum, Needs::Tensor);
    add({"prims.device_put"}, rule_device_put, Needs::Tensor);
    return t;
  }();
  return *table;
}

std::optional<InferredVal> apply(const ShapeRule& r, const Ctx& c, std::string_view p,
                                 const TensorMeta* x) {
  if ((r.needs == Needs::NoTensor && x) || (r.needs == Needs::Tensor && !x))
    return std::nullopt;
  return r.rule(c, p, x);
}

// (the op's result, then a new value of each of `_all_bases`): the
// result's metadata is the op's own, unknown here.
std::optional<InferredVal> auto_functionalized_v2(const Ctx& c) {
  const Value* bases = c.n.kwarg("_all_bases");
  if (!bases || bases->kind != Value::Kind::List)
    return std::nullopt;
  std::vector<std::optional<TensorMeta>> outs(1);
  for (const auto& b : bases->items()) {
    const TensorMeta* m = b.is_ref() ? ref_meta(c.g, b) : nullptr;
    if (!m)
      return std::nullopt;
    outs.push_back(fresh(m->shape, m->dtype, m->device));
  }
  return multi(std::move(outs));
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

} // namespace

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

std::optional<InferredVal> infer_fx_output(const Graph& g, const Node& n,
                                           const FxSymbolHints& hints, const FxScalars& scalars) {
  Ctx c{g, n, hints, scalars};
  const std::string& t = n.target;
  if (is_getitem_target(t)) {
    const Value* src = c.arg(0);
    const Value* idx = c.arg(1);
    if (!src || !src->is_ref() || !idx)
      return std::nullopt;
    const Node& from = g.nodes[static_cast<size_t>(src->i)];
    auto k = selected_output(from, *idx);
    if (!k || *k >= from.val.size() || !from.val[*k])
      return std::nullopt;
    TensorMeta m = *from.val[*k];
    return single(std::move(m));
  }
  if (!inputs_known(c))
    return std::nullopt;
  if (is_wait_node(n)) {
    const TensorMeta* in = c.meta(0);
    if (!in)
      return std::nullopt;
    return single(*in);
  }
  if (auto sig = collective_signature(t))
    return collective(c, *sig);
  if (t == "higher_order.flex_attention" || t == "higher_order.flex_attention_backward")
    return flex_attention(c, t == "higher_order.flex_attention_backward");
  if (t == "higher_order.triton_kernel_wrapper_functional")
    return triton_wrapper(c);
  if (t == "higher_order.auto_functionalized_v2")
    return auto_functionalized_v2(c);
  const std::string_view p = overload_packet(t);
  const TensorMeta* x = c.meta(0);
  const auto& rules = shape_rules();
  const auto rule = rules.find(p);
  if (rule != rules.end() && rule->second.before_pointwise)
    return apply(rule->second, c, p, x);
  if (is_pointwise_target(t))
    return pointwise(c, p);
  if (t.rfind("operator.", 0) == 0 || t.rfind("_operator.", 0) == 0)
    return python_operator(c, t);
  if (rule != rules.end())
    return apply(rule->second, c, p, x);
  if (is_reduction_target(t))
    return reduction(c);
  if (p.find("_attention") != std::string_view::npos && p.substr(0, 5) == "aten.")
    return attention(c, p);
  return std::nullopt;
}

} // namespace osched
