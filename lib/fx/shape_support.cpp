// What every shape rule family reads: fresh metadata, broadcasting, dense
// and preserved layouts, requested strides.

#include "fx/shape_rules.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>

#include "ops/collective.h"
#include "ops/op_table.h"

namespace osched::shape_rules {

namespace {

bool same_dim(const Dim& a, const Dim& b) {
  return a.sym_id == b.sym_id && (a.is_symbolic() || a.value == b.value);
}

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

} // namespace

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

// The strides argument `pos` names (empty_strided's), one per dim; false
// when it gives none or a wrong count.
bool take_given_strides(const Ctx& c, size_t pos, TensorMeta& m) {
  auto stride = c.dims(c.arg(pos, "stride"));
  if (!stride || stride->size() != m.shape.size())
    return false;
  m.stride = std::move(*stride);
  return true;
}

} // namespace osched::shape_rules
