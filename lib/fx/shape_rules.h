#pragma once
// The shape rules behind fx_shape_infer.h, one family a file; this header
// is what the families share, internal to lib/fx. A rule returns nullopt
// when it cannot tell the output exactly: a shape is never guessed.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fx/fx_shape_infer.h"
#include "ops/collective.h"

namespace osched::shape_rules {

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

// Shape rules by op packet. Each takes the node's context, its packet and
// the metadata of its first argument (null when that is not a tensor).
using Rule = std::optional<InferredVal> (*)(const Ctx&, std::string_view, const TensorMeta*);

// what every family reads: the node context, fresh metadata, broadcasting and layouts
// (shape_support.cpp)
std::optional<int64_t> axis(int64_t d, size_t rank);
TensorMeta fresh(std::vector<Dim> shape, DType dtype, std::string device);
InferredVal single(TensorMeta m);
InferredVal multi(std::vector<std::optional<TensorMeta>> metas);
std::optional<std::vector<Dim>> broadcast(const std::vector<const TensorMeta*>& ins);
std::optional<DType> dtype_value(const Value* v);
std::string device_of(const Ctx& c, const TensorMeta* first);
std::optional<int64_t> concrete_numel(const std::vector<Dim>& shape);
std::vector<Dim> preserved_strides(const TensorMeta& x);
std::optional<std::vector<Dim>> elementwise_strides(const std::vector<const TensorMeta*>& ins,
                                                    const std::vector<Dim>& shape);
std::vector<Dim> matching_layout(const TensorMeta& like, const std::vector<Dim>& shape);
bool inputs_known(const Ctx& c);
std::optional<std::vector<Dim>> requested_strides(const Ctx& c, const std::vector<Dim>& shape);
bool take_given_strides(const Ctx& c, size_t pos, TensorMeta& m);

// pointwise ops, dtype conversions and ops that keep their input's shape (shape_pointwise.cpp)
std::optional<InferredVal> pointwise(const Ctx& c, std::string_view packet);
std::optional<InferredVal> rule_convert(const Ctx& c, std::string_view, const TensorMeta* x);
std::optional<InferredVal> rule_same_shape(const Ctx& c, std::string_view p, const TensorMeta* x);
std::optional<InferredVal> rule_native_dropout(const Ctx&, std::string_view, const TensorMeta* x);
std::optional<InferredVal> python_operator(const Ctx& c, const std::string& t);

// views: reshape, permute, transpose, expand, (un)squeeze, complex views (shape_views.cpp)
std::optional<InferredVal> view_like(const Ctx& c, std::string_view p, const TensorMeta*);
std::optional<InferredVal> rule_permute(const Ctx& c, std::string_view, const TensorMeta* x);
std::optional<InferredVal> rule_t(const Ctx& c, std::string_view p, const TensorMeta* x);
std::optional<InferredVal> rule_expand(const Ctx& c, std::string_view, const TensorMeta* x);
std::optional<InferredVal> rule_unsqueeze(const Ctx& c, std::string_view, const TensorMeta* x);
std::optional<InferredVal> rule_squeeze(const Ctx& c, std::string_view, const TensorMeta* x);
std::optional<InferredVal> rule_view_as_complex(const Ctx&, std::string_view, const TensorMeta* x);
std::optional<InferredVal> rule_view_as_real(const Ctx&, std::string_view, const TensorMeta* x);
std::optional<InferredVal> rule_conj(const Ctx&, std::string_view, const TensorMeta* x);

// cat, stack, split, slice, select, padding (shape_cat_split.cpp)
std::optional<InferredVal> split(const Ctx& c, std::string_view p, const TensorMeta*);
std::optional<InferredVal> rule_cat(const Ctx& c, std::string_view, const TensorMeta*);
std::optional<InferredVal> rule_stack(const Ctx& c, std::string_view, const TensorMeta*);
std::optional<InferredVal> rule_slice(const Ctx& c, std::string_view p, const TensorMeta* x);
std::optional<InferredVal> rule_select(const Ctx& c, std::string_view, const TensorMeta* x);
std::optional<InferredVal> rule_into_input_sizes(const Ctx& c, std::string_view,
                                                 const TensorMeta* grad);
std::optional<InferredVal> rule_constant_pad_nd(const Ctx& c, std::string_view,
                                                const TensorMeta* x);

// matmuls, grouped matmuls (shape_matmul.cpp)
std::optional<InferredVal> matmul(const Ctx& c, std::string_view p, const TensorMeta*);
std::optional<InferredVal> rule_grouped_mm(const Ctx& c, std::string_view, const TensorMeta*);

// indexing, gather, embeddings (shape_indexing.cpp)
std::optional<InferredVal> rule_embedding(const Ctx& c, std::string_view, const TensorMeta* x);
std::optional<InferredVal> rule_embedding_dense_backward(const Ctx& c, std::string_view,
                                                         const TensorMeta* x);
std::optional<InferredVal> rule_index(const Ctx& c, std::string_view, const TensorMeta* x);
std::optional<InferredVal> rule_gather(const Ctx& c, std::string_view, const TensorMeta* x);

// reductions, norms, sort and top-k, scans (shape_reductions.cpp)
std::optional<InferredVal> reduction(const Ctx& c);
std::optional<InferredVal> values_and_indices(const Ctx& c, std::string_view, const TensorMeta*);
std::optional<InferredVal> rule_native_layer_norm(const Ctx& c, std::string_view,
                                                  const TensorMeta* x);
std::optional<InferredVal> rule_native_layer_norm_backward(const Ctx& c, std::string_view,
                                                           const TensorMeta*);
std::optional<InferredVal> rule_topk(const Ctx& c, std::string_view, const TensorMeta* x);
std::optional<InferredVal> rule_sort(const Ctx&, std::string_view, const TensorMeta* x);
std::optional<InferredVal> rule_histc(const Ctx& c, std::string_view, const TensorMeta* x);
std::optional<InferredVal> rule_cumsum(const Ctx& c, std::string_view, const TensorMeta* x);

// attention: SDPA, flash and efficient kernels, flex (shape_attention.cpp)
std::optional<InferredVal> attention(const Ctx& c, std::string_view p);
std::optional<InferredVal> flex_attention(const Ctx& c, bool backward);

// collectives (shape_collectives.cpp)
std::optional<InferredVal> collective(const Ctx& c, const CollectiveSignature& sig);

// factories: full, empty, new_*, device_put (shape_factories.cpp)
std::optional<InferredVal> rule_full(const Ctx& c, std::string_view, const TensorMeta*);
std::optional<InferredVal> rule_new_empty(const Ctx& c, std::string_view, const TensorMeta* x);
std::optional<InferredVal> rule_device_put(const Ctx& c, std::string_view, const TensorMeta* x);

} // namespace osched::shape_rules
